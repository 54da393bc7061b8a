"""Single-source shortest paths for non-negative weights: distances and a
predecessor tree. The frontier form relaxes the out-edges of every improved
vertex each iteration (advance, each improved vertex once a level); the
delta-stepping form relaxes the near bucket of a two-level priority queue,
raising the threshold by delta whenever the near bucket runs dry. Either loops
on the device."""
import numpy

from minigr.enactor import Problem, Result, Timer, problem
from minigr.frontier import Frontier
from minigr.operators import advance, neighbor_reduce, split_near_far
from minigr.transforms import Functor
from minigr.transforms.errors import MinigrError

from ._checks import check_source

# Non-negative floats order like their bit patterns as ints: atomicMin on those.
RELAX = """
bool cond(int src, int dst, long long edge, long long rank, long long out_idx, int iteration) const {
    float candidate = dist[src] + weights[edge];
    int old = atomicMin((int*)&dist[dst], minigr::bit_cast<int>(candidate));
    return candidate < minigr::bit_cast<float>(old);
}
void apply(int src, int dst, long long edge, long long rank, long long out_idx, int iteration) const {}
"""
DISTANCE = "double operator()(int v) const { return dist[v]; }"
# The parent of v: its smallest in-neighbour on a shortest path.
PARENT = """int operator()(int v, int u, long long edge) const {
    return u != v && !isinf(dist[v]) && dist[u] + weights[edge] == dist[v] ? u : 2147483647;
}"""
# Delta-stepping, after each iteration: far's batch (if any) was split; go on
# with the near bucket, and when it is empty raise the threshold and split the
# far vertices next.
NEXT_BUCKET = """bool operator()() const {
    far.drop_level();
    if (near.next_level() > 0) return true;
    threshold[0] += delta;
    return far.next_level() > 0;
}"""


def sssp(graph, source, *, delta=None, loop="device"):
    """Distance (float32, inf unreachable) and parent (-1 unreachable, the source
    its own) of every vertex. delta=None: frontier form; delta > 0:
    delta-stepping. loop: "device" or "host" (who decides each iteration)."""
    source = check_source(graph, source)
    if graph.weights is None:
        raise MinigrError("SSSP needs edge weights and the graph has none: load a weighted file, "
                          "or pass weights='random' (--weights random)")
    if graph.num_edges and float(graph.weights.min()) < 0:
        raise MinigrError("SSSP needs non-negative weights; this graph has negative ones")
    if delta is not None and not delta > 0:
        raise MinigrError(f"delta must be positive, got {delta}")
    run = problem(graph, ("sssp", delta), lambda: SSSP(graph, delta))
    with Timer(graph.device) as timer:
        run.reset(source)
        # the frontier form settles within n + 1 iterations; delta-stepping's
        # empty buckets have no such bound, so only the counter's range caps it
        iterations, exhausted = run.run_loop(loop, graph.num_vertices + 1 if delta is None else 2**31 - 1)
        parent = run.parents(source)
    if exhausted:
        raise MinigrError(f"internal error: SSSP did not settle in {iterations} iterations")
    for frontier in run.frontiers:
        frontier.check_waiting()
    edges = int(graph.out_degrees()[graph.xp.isfinite(run.dist)].sum())
    return Result({"distance": run.dist.copy(), "parent": parent}, iterations, timer.ms, edges)


class SSSP(Problem):
    name = "sssp"

    def __init__(self, graph, delta):
        xp, n = graph.xp, graph.num_vertices
        self.graph = graph
        self.dist = xp.empty(n, dtype=numpy.float32)
        relax = Functor(RELAX, filename="<sssp relax>", dist=self.dist, weights=graph.weights)
        self.parent = Functor(PARENT, filename="<sssp parent>", dist=self.dist, weights=graph.reverse().weights)
        if delta is None:
            frontier = Frontier(n, graph.device)
            self.frontiers = [frontier]
            self.start_loop(graph.device, lambda: advance(graph, frontier, relax, out=frontier,
                                                          iteration=self.loop.iteration, unique=True),
                            frontier.not_empty())
            return
        near, far, improved = (Frontier(n, graph.device) for _ in range(3))
        self.frontiers = [near, far, improved]
        self.threshold = xp.zeros(1, dtype=numpy.float64)
        self.delta = delta
        distance = Functor(DISTANCE, filename="<sssp distance>", dist=self.dist)

        def iteration():
            advance(graph, near, relax, out=improved, iteration=self.loop.iteration, unique=True)
            improved.next_level()
            for level in (improved, far):  # far's level holds vertices only after the threshold rose
                split_near_far(level, distance, self.threshold, near=near, far=far)

        self.start_loop(graph.device, iteration,
                        Functor(NEXT_BUCKET, filename="<sssp next bucket>", near=near.view, far=far.view,
                                threshold=self.threshold, delta=float(delta)))

    def reset(self, source):
        self.dist.fill(numpy.inf)
        self.dist[source] = 0
        self.frontiers[0].reset(source)
        for frontier in self.frontiers[1:]:
            frontier.reset()
        if len(self.frontiers) > 1:
            self.threshold.fill(self.delta)

    def parents(self, source):
        parent = neighbor_reduce(self.graph, self.parent, direction="in", reduce="min", dtype=numpy.int32)
        parent[parent == numpy.iinfo(numpy.int32).max] = -1
        parent[source] = source
        return parent
