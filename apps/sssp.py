"""Single-source shortest paths for non-negative weights: distances and a
predecessor tree. Delta-stepping (the default) relaxes the near bucket of a
two-level priority queue: an improved vertex below the threshold joins the
next near level, one above it the far bucket, and when the near bucket runs
dry the threshold rises by delta and the far vertices are split again. The
frontier form (delta=None) relaxes the out-edges of every improved vertex
each iteration. Either loops on the device."""
import math
import numbers

import numpy

from minigr import validate
from minigr.bench import alternatives as alt
from minigr.bench import primitives as bench
from minigr.catalog import App, BenchCase, Option, System
from minigr.enactor import Problem, Result, Timer, check_source, check_weights, problem
from minigr.frontier import HEADER as FRONTIER_HEADER
from minigr.frontier import Frontier
from minigr.operators import advance, neighbor_reduce, split_near_far
from minigr.partition import Border
from minigr.transforms import Functor, transform
from minigr.transforms.errors import MinigrError

# An improved vertex below the threshold is accepted (advance appends it to the
# near bucket's next level); one above it goes to far. Non-negative floats
# order like their bit patterns as ints: atomicMin on those.
RELAX_SPLIT = """
bool cond(int src, int dst, long long edge, long long rank, long long out_idx, int iteration) const {
    float candidate = dist[src] + weights[edge];
    int old = atomicMin((int*)&dist[dst], minigr::bit_cast<int>(candidate));
    if (!(candidate < minigr::bit_cast<float>(old))) return false;
    if (candidate < threshold[0]) return true;
    far.append_unique(dst, 0);
    return false;
}
void apply(int src, int dst, long long edge, long long rank, long long out_idx, int iteration) const {}
"""
DISTANCE = "double operator()(int v) const { return dist[v]; }"
UNROLL = 4  # iterations per iteration of the device loop: one with empty buckets does nothing
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
    bucket[0] += bucket[1];  // the threshold rises by delta
    return far.next_level() > 0;
}"""


def sssp(graph, source, *, delta="auto", loop="device"):
    """Distance (float32, inf unreachable) and parent (-1 unreachable, the source
    its own) of every vertex. delta > 0: delta-stepping with that bucket width;
    "auto": 32 times the largest weight over the mean degree (measured on the
    standard graphs); None: the frontier form (one bucket of infinite width).
    loop: "device" or "host" (who decides each iteration)."""
    source = check_source(graph, source)
    check_weights(graph, "SSSP")
    largest = float(graph.weights.max()) if graph.num_edges else 0.0
    return _settle(problem(graph, ("sssp",), lambda: SSSP(graph)), graph, source,
                   bucket_delta(delta, largest, graph.num_vertices, graph.num_edges), loop)


def sssp_part(part, source, *, delta="auto", loop="device"):
    """sssp on one part of a partitioned graph (minigr.partition), called by
    every rank: distance and parent (global ids) of the part's own vertices."""
    source = check_source(part, source)
    check_weights(part.graph, "SSSP")
    largest = part.graph.xp.asarray([float(part.graph.weights.max()) if part.graph.num_edges else 0.0])
    part.comm.allreduce(largest, "max")
    delta = bucket_delta(delta, float(largest[0]), part.num_vertices, part.num_edges)
    run = problem(part.graph, ("sssp part",), lambda: PartitionedSSSP(part))
    result = _settle(run, part, source, delta, loop)
    result.extra["bytes_sent_per_iteration"] = run.shorter.volume()[1] + run.totals.nbytes
    return result


def _settle(run, graph, source, delta, loop):
    """Runs an SSSP Problem from source: the Result of its graph's own vertices
    (graph: the Graph, or the Part that run is on)."""
    with Timer(run.graph.device) as timer:
        run.reset(source, delta)
        # the frontier form settles within n + 1 iterations; delta-stepping's
        # empty buckets have no such bound, so only the counter's range caps it
        iterations, exhausted = run.run_loop(loop, graph.num_vertices + 1 if math.isinf(delta) else 2**31 - 1)
        parent = run.parents(source)
    if exhausted:
        raise MinigrError(f"internal error: SSSP did not settle in {iterations} iterations")
    run.near.check_waiting()
    run.far.check_waiting()
    owned = run.owned
    dist = run.dist[:owned]
    edges = int(run.graph.out_degrees()[:owned][run.graph.xp.isfinite(dist)].sum())
    return Result({"distance": dist.copy(), "parent": parent[:owned]}, iterations, timer.ms, edges)


class SSSP(Problem):
    name = "sssp"

    def __init__(self, graph):
        xp, n = graph.xp, graph.num_vertices
        self.graph, self.owned = graph, n
        self.dist = xp.empty(n, dtype=numpy.float32)
        self.parent = Functor(PARENT, filename="<sssp parent>", dist=self.dist, weights=graph.reverse().weights)
        self.near, self.far = Frontier(n, graph.device), Frontier(n, graph.device)
        self.bucket = xp.zeros(2, dtype=numpy.float64)  # [threshold, delta]: set by each call
        self.relax = Functor(RELAX_SPLIT, filename="<sssp relax>", headers=(FRONTIER_HEADER,), dist=self.dist,
                             weights=graph.weights, threshold=self.bucket[0:1], far=self.far.view)
        self.distance = Functor(DISTANCE, filename="<sssp distance>", dist=self.dist)
        self.start_loop(graph.device, self.iteration, self.next_bucket(), unroll=UNROLL)

    def iteration(self):
        advance(self.graph, self.near, self.relax, out=self.near, iteration=self.loop.iteration, unique=True)
        # far's level holds vertices only after the threshold rose: split them again
        split_near_far(self.far, self.distance, self.bucket[0:1], near=self.near, far=self.far)

    def next_bucket(self):
        return Functor(NEXT_BUCKET, filename="<sssp next bucket>", near=self.near.view, far=self.far.view,
                       bucket=self.bucket)

    def reset(self, source, delta):
        self.dist.fill(numpy.inf)
        self.dist[source] = 0
        self.near.reset(source)
        self.far.reset()
        self.bucket.fill(delta)

    def parents(self, source):
        parent = self.in_parents()
        parent[source] = source
        return parent

    def in_parents(self):
        """Each vertex's smallest in-neighbour on a shortest path (local ids), or -1."""
        parent = neighbor_reduce(self.graph, self.parent, direction="in", reduce="min", dtype=numpy.int32)
        parent[parent == numpy.iinfo(numpy.int32).max] = -1
        return parent


# A part's vertex that a peer found a shorter path to: it joins a bucket here.
SHORTER = """void operator()(int v, float got) const {
    const int old = atomicMin((int*)&dist[v], minigr::bit_cast<int>(got));
    if (!(got < minigr::bit_cast<float>(old))) return;
    if (got < threshold[0]) near.append_unique(v, 0);
    else far.append_unique(v, 0);
}"""
COUNT_NEXT = "void operator()(long long) const { totals[0] = near.appended(); totals[1] = far.appended(); }"
# NEXT_BUCKET on a part, from totals = the next near and far levels' sizes on all parts.
NEXT_BUCKET_OF_PARTS = """bool operator()() const {
    far.drop_level();
    near.next_level();
    if (totals[0] > 0) return true;
    bucket[0] += bucket[1];
    far.next_level();
    return totals[1] > 0;
}"""


class PartitionedSSSP(SSSP):
    """SSSP on a part: after each iteration, proxies' distances go to their
    owners, which keep the shorter ones, and the buckets' sizes are summed
    over the parts."""

    def __init__(self, part):
        self.part = part
        self.totals = part.graph.xp.zeros(2, dtype=numpy.int64)
        super().__init__(part.graph)
        self.owned = part.owned
        self.shorter = Border(part, self.dist, Functor(
            SHORTER, filename="<sssp shorter>", headers=(FRONTIER_HEADER,), dist=self.dist,
            threshold=self.bucket[0:1], near=self.near.view, far=self.far.view))
        self.count = Functor(COUNT_NEXT, filename="<sssp count next>", totals=self.totals, near=self.near.view,
                             far=self.far.view)

    def iteration(self):
        super().iteration()
        self.shorter.to_owners()
        transform(1, self.count)
        self.part.comm.allreduce(self.totals)

    def next_bucket(self):
        return Functor(NEXT_BUCKET_OF_PARTS, filename="<sssp next bucket>", near=self.near.view, far=self.far.view,
                       bucket=self.bucket, totals=self.totals)

    def reset(self, source, delta):
        local = self.part.local_id(source)
        self.dist.fill(numpy.inf)
        self.far.reset()
        self.bucket.fill(delta)
        if local is None:
            self.near.reset()
        else:
            self.dist[local] = 0
            self.near.reset(local)

    def parents(self, source):
        """Every vertex's parent (global ids), proxies told their final distances first."""
        self.shorter.to_proxies()
        parent = self.in_parents()
        found = parent >= 0
        parent[found] = self.part.global_ids[parent[found]]
        if self.part.local_id(source) is not None:
            parent[self.part.local_id(source)] = source
        return parent


def bucket_delta(delta, largest, num_vertices, num_edges):
    """The bucket width for the delta option (see sssp), given the largest
    weight and the size of the whole graph; "auto": 32 times the largest
    weight over the mean degree, which on the standard graphs (weights 1..64)
    is within 10% of the best of widths 8 to 1024 (H100, 2026-11-23)."""
    if delta is None:
        return math.inf
    if delta == "auto":
        return max(largest, 1e-30) * 32 * num_vertices / num_edges if num_edges else 1.0
    if not (isinstance(delta, (int, float)) and delta > 0):
        raise MinigrError(f"delta must be a positive number, 'auto' or None, got {delta!r}")
    return delta


def bucket_width(text):
    """--delta's value: 'auto', 'none' (None: the frontier form) or a number."""
    return text if text == "auto" else None if text == "none" else float(text)


ALTERNATIVES = (
    System("CuPy composed (scatter_min)", "gpu", lambda i, trace=None: alt.sssp_cupy(
        i.graph.row_offsets, i.graph.col_indices, i.graph.weights, i.source, trace), traced=True),
    System("SciPy csgraph Dijkstra (CPU)", "cpu", lambda i, trace=None: alt.sssp_scipy(i.scipy, i.source)))
APP = App(
    "sssp", sssp, "single-source shortest paths: distance and parent of every vertex", ("distance", "parent"),
    lambda graph, source, values, options: validate.check_sssp(graph, source, values["distance"], values["parent"]),
    options=(Option("delta", bucket_width, "auto", "bucket width for delta-stepping: a number, 'auto' (the default) "
                    "or 'none' (the plain frontier form)",
                    (lambda x: x in ("auto", None) or isinstance(x, numbers.Real) and not isinstance(x, bool)
                     and math.isfinite(x) and x > 0, "a positive number, 'auto' or 'none'")),),
    needs="weights", variants=({"delta": None}, {"delta": 16.0}, {"delta": "auto"}), partitioned=sssp_part,
    bench=(BenchCase("sssp", "distance", ALTERNATIVES, "SciPy csgraph Dijkstra (CPU)", bench.close,
                     traced=lambda inputs, trace: bench.minigr_levels(inputs, trace, relax=True)),))
