"""Single-source shortest paths for non-negative weights: distances and a
predecessor tree. Delta-stepping (the default) relaxes the near bucket of a
two-level priority queue (minigr.operators.Buckets): an improved vertex below
the threshold joins the next near level, one above it the far bucket, and
when the near bucket runs dry the threshold rises and the far vertices are
split again. The frontier form (delta=None) relaxes the out-edges of every
improved vertex each iteration. Either loops on the device. loop="async"
relaxes without rounds (minigr.operators.Relax); its iterations are the
pairs it queued."""
import math

import numpy

from minigr import alternatives as alt
from minigr import validate
from minigr.arguments import weight_summary
from minigr.catalog import App, BenchCase, Option, PositiveOrWords, System, needs
from minigr.enactor import Problem, Result, Start, Timer, loop_mode, problem, reached_edges_later
from minigr.graph import Graph
from minigr.operators import AdvanceFunctor, Buckets, Relax, advance, smallest_in_neighbour
from minigr.transforms import Functor, copied
from minigr.transforms.errors import MinigrError
from minigr.transforms.loop import Replay

from .bfs import bfs

# An improved vertex is offered to the buckets: where it is near, advance appends it to near's
# next level. Non-negative floats order like their bit patterns as ints: atomicMin on those.
RELAX_SPLIT = dict(cond="""
    const float candidate = dist[src] + weights[edge];
    const int old = atomicMin((int*)&dist[dst], minigr::bit_cast<int>(candidate));
    return candidate < minigr::bit_cast<float>(old) && buckets.offer(dst, candidate);""")
DISTANCE = "double operator()(int v) const { return dist[v]; }"  # a far vertex's label, when split again
UNROLL = 4  # iterations per iteration of the device loop: one with empty buckets does nothing
# loop="async": a path's length through an in-neighbour, as the bits of a float (non-negative: ordered as uint),
# in buckets: a distance `width` above another.
PATH_LENGTH = """const float length = minigr::bit_cast<float>(label) + weights[edge];
    return minigr::bit_cast<unsigned>(length);"""
ABOVE = "return minigr::bit_cast<unsigned>((float)(minigr::bit_cast<float>(label) + width));"
# loop="async", delta="auto": the first bucket 32 mean weights wide, then each as wide as the pairs it queued
# want (Relax's adapt); starting at 128 mean weights was 7-15% slower (H100, 2026-11-26, USA-road-d.NY,
# luxembourg_osm, grid_20, grid_22), at 8 or 128 on 2026-11-27 NY 3.93 / 4.14 ms against 3.88.
ASYNC_DELTA = 32
# The parent of v: its smallest in-neighbour on a shortest path (with weights
# above 0 it is closer to the source, so parents form a tree).
PARENT = """int operator()(int v, int u, long long edge) const {
    return u != v && !isinf(dist[v]) && dist[u] + weights[edge] == dist[v] ? u : -1;
}"""
# A run's start (minigr.enactor.Start): the source at 0 (root -1: none here), the rest
# unreached; the source alone in the near bucket.
START_BUCKETS = """
        origin[0] = root;
        buckets.reset(root, delta);"""
START_DISTANCE = "dist[v] = v == root ? 0.0f : minigr::bit_cast<float>(0x7f800000);"


@needs(weights="SSSP")
def sssp(graph, source, *, delta="auto", loop="auto"):
    """Single-source shortest paths over non-negative edge weights.

    Parameters
    ----------
    source : int
        The start vertex.
    delta : float, 'auto' or None, default 'auto'
        Delta-stepping's bucket width; 'auto': BUCKET_WEIGHTS (64) times the largest weight
        over the mean degree (measured on the standard graphs), or with loop='async' a width
        that adapts to the work each bucket queued; None: the frontier form (one bucket of
        infinite width).

    Returns
    -------
    Result
        ``distance`` (float32, inf unreachable) and ``parent`` (int32, -1 unreachable; the
        source is its own).

    Examples
    --------
    >>> import minigr
    >>> graph = minigr.Graph.from_edges([0, 1, 0], [1, 2, 2], weights=[1.0, 1.0, 5.0])
    >>> result = minigr.sssp(graph, 0)
    >>> result.distance.tolist(), result.parent.tolist()
    ([0.0, 1.0, 2.0], [0, 0, 1])
    """
    run = problem(graph, ("sssp",), lambda: SSSP(graph))
    mode = loop_mode(graph, loop, relaxes=True, last=run.last_iterations)
    width, adapt = bucket_delta(delta, run.largest, graph.num_vertices, graph.num_edges), False
    if mode == "async" and delta == "auto":  # buckets that adapt, from ASYNC_DELTA mean weights
        width, adapt = max(run.mean, 1e-30) * ASYNC_DELTA, True
    result = settle(run, graph, source, width, mode, adapt)
    # a path may pass float32's range (compared as Python floats: a float32 cast of a larger one warns)
    if (graph.num_vertices - 1) * run.largest >= float(numpy.finfo(numpy.float32).max):
        distance, sources = result.values["distance"], graph.edge_sources()
        if bool((graph.xp.isfinite(distance[sources]) & graph.xp.isinf(distance[graph.col_indices])).any()):
            raise MinigrError("SSSP's distances are float32 and pass its range (3.4e38) here; scale the weights down")
    return result


def settle(run, graph, source, delta, loop, adapt=False):
    """Runs an SSSP Problem from source: the Result of its graph's own vertices
    (graph: the Graph, or the Part that run is on). adapt: loop="async"'s
    buckets widen or narrow by the pairs each queued (else they stay delta wide)."""
    mode = loop_mode(run.graph, loop)
    relaxed = (lambda: run.wait_relaxed(source, delta, adapt)) if graph is run.graph else None  # not on a part
    with Timer(run.graph.device) as timer:
        # the frontier form settles within n + 1 iterations; delta-stepping's
        # empty buckets have no such bound, so only the counter's range caps it
        limit = graph.num_vertices + 1 if math.isinf(delta) else 2**31 - 1
        wait = run.queue_mode(mode, limit, relaxed, run.starting(source, delta))
        parent, distance = run.parents(source), copied(run.dist[:run.owned])
        iterations, exhausted = wait()
    if exhausted:
        raise MinigrError(f"internal error: SSSP did not settle in {iterations} iterations")
    return Result({"distance": distance, "parent": parent[:run.owned]}, iterations, timer.ms,
                  reached_edges_later(run.graph, distance, numpy.inf, run.owned))


class SSSP(Problem):
    name = "sssp"

    def __init__(self, graph):
        xp, n = graph.xp, graph.num_vertices
        self.graph, self.owned = graph, n
        self.dist = xp.empty(n, dtype=numpy.float32)
        lowest, self.largest, self.mean = weight_summary(graph, "SSSP")  # read once per graph
        self.zero_weights = lowest == 0
        self.parent = Functor(PARENT, filename="<sssp parent>", dist=self.dist, weights=graph.reverse().weights)
        self.origin, self.found = xp.empty(1, dtype=numpy.int32), xp.empty(n, dtype=numpy.int32)  # source, parents
        self.finding = Replay("sssp parents", graph.device, lambda: self.in_parents(self.found))
        self.buckets = Buckets(n, graph.device)
        self.relax = AdvanceFunctor(**RELAX_SPLIT, filename="<sssp relax>", dist=self.dist, weights=graph.weights,
                                    buckets=self.buckets.view)
        self.start = Start("sssp", n, START_BUCKETS, START_DISTANCE, dist=self.dist, buckets=self.buckets.view,
                           origin=self.origin, delta=numpy.float64(1), root=numpy.int32(0))
        self.distance = Functor(DISTANCE, filename="<sssp distance>", dist=self.dist)
        self.start_loop(graph, self.iteration, self.next_bucket(), UNROLL, self.buckets.overflow_checks())
        self.lengths = Relax(graph, self.dist.view(numpy.uint32), PATH_LENGTH, filename="<sssp path length>",
                             above=ABOVE, name="sssp", weights=graph.weights)  # async

    def iteration(self):
        near = self.buckets.near
        advance(self.graph, near, self.relax, out=near, iteration=self.loop.iteration, unique=True)
        self.buckets.split(self.distance)  # far's level holds vertices only after the threshold rose

    def next_bucket(self):
        return self.buckets.next_condition()

    def starting(self, source, delta):
        """(items, functor): the transform a run from source begins with; source: a
        vertex id of this graph, or None (a part without it)."""
        return self.start(root=-1 if source is None else source, delta=delta)

    def wait_relaxed(self, source, width, adapt):
        """loop="async": the pairs queued, or None where the queue overflowed (then reset and loop): waits."""
        self.lengths.run([source], [0], width, adapt)
        return self.lengths.wait_pushes()

    def parents(self, source):
        if self.zero_weights:  # ties of equal distance: a BFS over the edges on shortest paths orders them
            graph, dist = self.graph, self.dist
            sources, targets = graph.edge_sources(), graph.col_indices
            tight = graph.xp.isfinite(dist[sources]) & (dist[sources] + graph.weights == dist[targets])
            return bfs(Graph.from_edges(sources[tight], targets[tight], num_vertices=self.owned, device=graph.device),
                       source).parent
        self.finding.run()
        return copied(self.found)

    def in_parents(self, out=None):
        """Each vertex's smallest in-neighbour on a shortest path (local ids), or -1, the
        run's source (origin, set on the device by its reset) its own (into out)."""
        return smallest_in_neighbour(self.graph, self.parent, out, own=self.origin)


# --delta, a width: a number, 'auto' or 'none' (None, the frontier form), the CLI's and Python's
WIDTH = PositiveOrWords({"auto": "auto", "none": None}, "a positive number, 'auto' or None (--delta none)")
DELTA = Option("delta", WIDTH, "auto", "bucket width for delta-stepping: a number, 'auto' (the default) or 'none' "
               "(the plain frontier form)", WIDTH.valid)


# delta="auto": this many times the largest weight over the mean degree. Persistent SSSP, H100,
# 2026-11-27, weights 1..64, ms with 16 / 32 / 64 / 128 / 256 (.devrun/deltasweep.py): rgg_n22 28.6 /
# 26.9 / 26.8 / 29.6 / 41.4, rgg scale 20 12.4 / 11.0 / 10.8 / 11.4 / 13.0, rgg scale 18 4.93 / 4.32 /
# 4.02 / 4.14 / 4.55, grid_22 32.7 / 28.0 / 25.1 / 25.7 / 30.8, kron_s21_e16 5.50 / 4.63 / 4.41 / 4.44 /
# 4.43, kron scale 18 1.17 / 0.98 / 0.93 / 0.93 / 0.86, kron scale 12 0.230 / 0.201 / 0.191 / 0.190 /
# 0.176: 64 is within 9% of the best of these everywhere (32, the width before, up to 14% behind).
BUCKET_WEIGHTS = 64


def bucket_delta(delta, largest, num_vertices, num_edges):
    """The bucket width for the delta option (see sssp), given the largest
    weight and the size of the whole graph; "auto": BUCKET_WEIGHTS times the
    largest weight over the mean degree; a MinigrError where delta is none
    of those (DELTA's limits)."""
    delta = DELTA.check(delta)
    if delta is None:
        return math.inf
    if delta == "auto":
        return max(largest, 1e-30) * BUCKET_WEIGHTS * num_vertices / num_edges if num_edges else 1.0
    return float(delta)


ALTERNATIVES = (
    System("CuPy composed (scatter_min)", "gpu", lambda i, trace=None: alt.sssp_cupy(
        i.graph.row_offsets, i.graph.col_indices, i.graph.weights, i.source, trace), traced=True),
    System("SciPy csgraph Dijkstra (CPU)", "cpu", lambda i, trace=None: alt.sssp_scipy(i.scipy, i.source)),
    System("NetworKit Dijkstra (CPU)", "cpu", lambda i, trace=None: alt.sssp_networkit(i.scipy, i.source),
           skip=alt.no_networkit))
APP = App(
    "sssp", sssp, "single-source shortest paths: distance and parent of every vertex", ("distance", "parent"),
    lambda graph, source, values, options: validate.check_sssp(graph, source, values["distance"], values["parent"]),
    options=(DELTA,),
    variants=({"delta": None}, {"delta": 16.0}, {"delta": "auto"}), partitioned="_sssp_parts",
    persistent=True, relaxes=True,
    bench=(BenchCase("sssp", "distance", ALTERNATIVES, "SciPy csgraph Dijkstra (CPU)", alt.close,
                     traced=lambda inputs, trace: alt.push_levels(inputs, trace, RELAX_SPLIT, relax=True)),))
