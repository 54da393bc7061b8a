"""Single-source shortest paths for non-negative weights: distances and a
predecessor tree. The frontier form relaxes the out-edges of every improved
vertex each iteration (advance, then uniquify); the delta-stepping form works
on the near half of a two-level priority queue, raising the threshold by
delta whenever the near half runs dry."""
import numpy

from minigr.enactor import Result, Timer
from minigr.frontier import Frontier
from minigr.operators import advance, filter_frontier, neighbor_reduce, split_near_far
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


def sssp(graph, source, *, delta=None):
    """Distance (float32, inf unreachable) and parent (-1 unreachable, the source
    its own) of every vertex. delta=None: frontier form; delta > 0: delta-stepping."""
    source = check_source(graph, source)
    if graph.weights is None:
        raise MinigrError("SSSP needs edge weights and the graph has none: load a weighted file, "
                          "or pass weights='random' (--weights random)")
    if graph.num_edges and float(graph.weights.min()) < 0:
        raise MinigrError("SSSP needs non-negative weights; this graph has negative ones")
    if delta is not None and not delta > 0:
        raise MinigrError(f"delta must be positive, got {delta}")
    xp, n = graph.xp, graph.num_vertices
    dist = xp.full(n, numpy.inf, dtype=numpy.float32)
    dist[source] = 0
    relax = Functor(RELAX, filename="<sssp relax>", dist=dist, weights=graph.weights)
    frontier = Frontier.from_ids([source], n, graph.device)
    with Timer(graph.device) as timer:
        if delta is None:
            iterations = _frontier_form(graph, frontier, relax)
        else:
            iterations = _delta_stepping(graph, frontier, relax, Functor(DISTANCE, dist=dist), delta)
        parent = _parents(graph, dist, source)
    edges = int(graph.out_degrees()[xp.isfinite(dist)].sum())
    return Result({"distance": dist, "parent": parent}, iterations, timer.ms, edges)


def _frontier_form(graph, frontier, relax):
    iteration = 0
    while len(frontier):
        frontier = advance(graph, frontier, relax, iteration=iteration, idempotent=True)
        iteration += 1
    return iteration


def _delta_stepping(graph, frontier, relax, distance, delta):
    threshold, iteration = delta, 0
    near, far = split_near_far(frontier, distance, threshold)
    while len(near) or len(far):
        while len(near):
            improved = advance(graph, near, relax, iteration=iteration, idempotent=True)
            near, later = split_near_far(improved, distance, threshold)
            far = Frontier(graph.num_vertices, ids=graph.xp.concatenate([far.ids, later.ids]))
            iteration += 1
        threshold += delta
        near, far = split_near_far(filter_frontier(far, uniquify=True), distance, threshold)
    return iteration


def _parents(graph, dist, source):
    parent = neighbor_reduce(graph, Functor(PARENT, filename="<sssp parent>", dist=dist,
                                            weights=graph.reverse().weights),
                             direction="in", reduce="min", dtype=numpy.int32)
    parent[parent == numpy.iinfo(numpy.int32).max] = -1
    parent[source] = source
    return parent
