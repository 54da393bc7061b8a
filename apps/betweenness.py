"""Betweenness centrality, as networkx.betweenness_centrality defines it
(unweighted): Brandes' algorithm from every source, or from k sources sampled
as networkx samples them (random.Random(seed).sample), or from given ones.

From each source a forward BFS counts the shortest paths to every vertex
(sigma, summed by atomics as a vertex is reached), its frontier keeping the
levels; a backward pass walks those levels again from the deepest: each
vertex's dependency is a neighbour reduction over its successors w, the
sum of sigma[v] / sigma[w] * (1 + delta[w]), added to its centrality. Both
passes loop on the device, and no source waits for the one before. Duplicate
edges count once and self-loops lie on no shortest path, as in networkx.
apps/edge_betweenness.py keeps the flow of each edge from the same passes."""
import math
import random

import numpy

from minigr.catalog import AT_LEAST_1, IDS, App, BenchCase, Option, System, vertex_ids
from minigr.enactor import Loop, Problem, Result, Timer, problem
from minigr.frontier import Frontier
from minigr.operators import advance, compute, neighbor_reduce
from minigr.transforms import Functor, transform
from minigr.transforms.errors import MinigrError

from . import _betweenness_references as references

RESET = """void operator()(long long v) const {
    depth[v] = v == root ? 0 : -1;
    sigma[v] = v == root ? 1.0 : 0.0;
    if (v == 0) state[0] = root;
}"""
# The first to reach w claims its depth; every edge from the level before adds its paths.
COUNT_PATHS = """
bool cond(int v, int w, long long edge, long long rank, long long out_idx, int iteration) const {
    const int old = depth[w] == -1 ? atomicCAS(&depth[w], -1, iteration + 1) : depth[w];
    if (old == -1 || old == iteration + 1) atomicAdd(&sigma[w], sigma[v]);
    return old == -1;
}
void apply(int v, int w, long long edge, long long rank, long long out_idx, int iteration) const {}"""
# v's dependency on its successor w (networkx's order of operations); per_edge: kept as the edge's flow.
DEPENDENCY = """double operator()(int v, int w, long long edge) const {
    if (depth[w] != depth[v] + 1) return 0;
    const double flow = sigma[v] * ((1 + delta[w]) / sigma[w]);
    if (per_edge) edge_flow[edge] += flow;
    return flow;
}"""
# state = [source, endpoints]: with endpoints, each reached vertex is a path's end too.
ACCUMULATE = "void operator()(int v, int) const { if (v != state[0]) centrality[v] += delta[v] + state[1]; }"
SOURCE_ENDS = "void operator()(long long) const { if (state[1]) centrality[state[0]] += frontier.kept_vertices() - 1; }"
BACK = "bool operator()() const { return frontier.previous_level() > 0; }"  # down to the source's level


def betweenness(graph, *, k=None, seed=0, sources=None, normalized=True, endpoints=False, loop="device"):
    """Betweenness centrality of every vertex (float64), networkx's
    betweenness_centrality: from every source, or k sampled with `seed` as
    networkx samples them, or from the given `sources`; normalized and
    endpoints as networkx defines them. loop: "device" or "host"."""
    n = graph.num_vertices
    chosen, sampled = pick_sources(graph, k, seed, sources, k == n)
    run = problem(graph, ("brandes", False), lambda: Brandes(graph, per_edge=False))
    with Timer(graph.device) as timer:
        run.accumulate(chosen, endpoints, loop)
        source_scale, scale = scales(n, sampled and len(chosen), graph.directed, normalized, endpoints)
        factor = graph.xp.full(n, scale)
        factor[graph.xp.asarray(numpy.asarray(chosen, dtype=numpy.int64))] = source_scale
        centrality = run.centrality * factor
    return Result({"betweenness": centrality}, len(chosen), timer.ms, run.edges * len(chosen))


def pick_sources(graph, k, seed, sources, exact_when_all):
    """(sources, sampled): every vertex, k sampled with seed (networkx's
    random.Random(seed).sample), or the given ones, checked; sampled tells
    how networkx would scale (exact_when_all: k = n is no sample)."""
    n = graph.num_vertices
    if sources is not None:
        if k is not None:
            raise MinigrError("give k (sources to sample) or sources, not both")
        chosen = numpy.asarray(sources.get() if hasattr(sources, "get") else sources, dtype=numpy.int64).ravel()
        if not len(chosen) or int(chosen.min()) < 0 or int(chosen.max()) >= n:
            raise MinigrError(f"sources must be vertex ids of the graph (0 to {n - 1}), got {chosen.tolist()[:8]}")
        return chosen.tolist(), True
    if k is None or k == n and exact_when_all:
        return list(range(n)), False
    if not 1 <= k <= n:
        raise MinigrError(f"k must be between 1 and the vertex count ({n}), got {k}")
    return random.Random(seed).sample(range(n), k), True


def scales(n, sampled, directed, normalized, endpoints):
    """networkx's rescaling (its _rescale): (factor of the sources, of the
    other vertices); sampled: the count of sampled sources, or False."""
    ends = n if endpoints else n - 1
    if ends < 2:
        return 1.0, 1.0
    count, halves = sampled or ends, 1 if directed else 2
    if not sampled or endpoints:
        scale = 1 / (count * (ends - 1)) if normalized else ends / (count * halves)
        return scale, scale
    if normalized:
        return (1 / ((count - 1) * (ends - 1)) if count > 1 else math.nan), 1 / (count * (ends - 1))
    return (ends / ((count - 1) * halves) if count > 1 else math.nan), ends / (count * halves)


class Brandes(Problem):
    """Both passes on the simple view of a graph (duplicates once); centrality
    and, per_edge, edge_flow (per edge of `simple`) sum over the sources;
    twins: each simple edge's reverse (per_edge, undirected)."""
    name = "betweenness"

    def __init__(self, graph, per_edge):
        self.simple, self.edge_map = graph.simple()
        xp, n, self.edges = graph.xp, graph.num_vertices, self.simple.num_edges
        self.depth = xp.empty(n, dtype=numpy.int32)
        self.sigma, self.delta, self.centrality = (xp.zeros(n) for _ in range(3))
        self.edge_flow = xp.zeros(self.edges if per_edge else 1)
        self.twins = self.simple.reverse_edges() if per_edge and not graph.directed else None
        self.state = xp.zeros(2, dtype=numpy.int32)
        self.frontier = Frontier(n, graph.device, capacity=n, levels=n + 1)
        arrays = dict(depth=self.depth, sigma=self.sigma)
        count_paths = Functor(COUNT_PATHS, filename="<betweenness paths>", **arrays)
        self.dependency = Functor(DEPENDENCY, filename="<betweenness dependency>", delta=self.delta,
                                  edge_flow=self.edge_flow, per_edge=bool(per_edge), **arrays)
        self.add = Functor(ACCUMULATE, filename="<betweenness accumulate>", state=self.state,
                           centrality=self.centrality, delta=self.delta)
        self.source_ends = Functor(SOURCE_ENDS, filename="<betweenness source ends>", state=self.state,
                                   centrality=self.centrality, frontier=self.frontier.view)
        self.forward = Loop("betweenness forward", graph.device, lambda: advance(
            self.simple, self.frontier, count_paths, out=self.frontier, iteration=self.forward.iteration),
            self.frontier.not_empty())
        self.backward = Loop("betweenness backward", graph.device, self.level_back,
                             Functor(BACK, filename="<betweenness back>", frontier=self.frontier.view))

    def level_back(self):
        neighbor_reduce(self.simple, self.dependency, frontier=self.frontier, out=self.delta)
        compute(self.simple, self.frontier, self.add)

    def accumulate(self, sources, endpoints, loop):
        """Queues both passes from each source, the sums starting from 0; waits for them at the end."""
        self.centrality.fill(0)
        self.edge_flow.fill(0)
        self.state[1] = int(endpoints)
        n = len(self.depth)
        for source in sources:
            transform(n, Functor(RESET, filename="<betweenness reset>", depth=self.depth, sigma=self.sigma,
                                 state=self.state, root=numpy.int32(source)))
            self.frontier.reset(source)
            self.forward.run(loop, n)
            transform(1, self.source_ends)
            self.frontier.previous_level()
            self.backward.run(loop, n)
        self.frontier.check_waiting()


def check_betweenness(graph, values, options):
    """Centralities against a SciPy Brandes over the same sources (relative 1e-9)."""
    return references.check(graph, values, options, edges=False)


APP = App(
    "betweenness", betweenness, "betweenness centrality of every vertex (networkx's, unweighted; exact or sampled)",
    ("betweenness",), lambda graph, source, values, options: check_betweenness(graph, values, options),
    options=(Option("k", int, None, "sample k sources (networkx's sampling); default every vertex", AT_LEAST_1),
             Option("seed", int, 0, "seed of the sampling (default 0)"),
             Option("sources", vertex_ids, None, "the sources, as ids: 3,8,12 (instead of k)", IDS),
             Option("normalized", bool, True, "divide by the (source, target) pairs, as networkx"),
             Option("endpoints", bool, False, "count a path's ends as on it, as networkx")),
    variants=({"k": 8}, {"k": 8, "endpoints": True, "normalized": False}),
    bench=(BenchCase("betweenness 64 sources", "betweenness", references.alternatives("betweenness", {"k": 64}),
                     references.REFERENCE, references.close, options={"k": 64}),))
