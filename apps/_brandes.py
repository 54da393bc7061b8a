"""Brandes' two passes from batches of sources, which apps/betweenness.py and
apps/edge_betweenness.py share: a forward BFS counts the shortest paths to
every vertex, its frontier keeping the levels, and a backward pass walks those
levels again from the deepest, summing each vertex's dependency on its
successors (and, per edge, the flow along each edge). Not an app: its name
starts with an underscore."""
import numpy

from minigr.enactor import Loop, Problem
from minigr.frontier import Frontier
from minigr.operators import advance, compute
from minigr.transforms import Functor, transform

WIDTH = 64  # sources walked at once, a bit each in a vertex's mask
MEMORY = 2**33  # bytes the per-(vertex, source) arrays may take: fewer sources at once beyond
# Per (vertex v, source b of the batch), at v * width + b: depth (-1 unreached), sigma (paths), delta (dependency).
RESET = "void operator()(long long i) const { depth[i] = -1; sigma[i] = 0.0; }"
SEED = """void operator()(long long b) const {
    const long long s = sources[first + b];
    depth[s * width + b] = 0;
    sigma[s * width + b] = 1.0;
    reached[b] = 0;
    frontier.append_unique((int)s, 0);
}"""
# mask[v]: the sources for which v lies at the level's depth; backward, their dependencies start from 0.
LEVEL_MASK = """void operator()(int v, int iteration) const {
    const int at = forward ? iteration : (int)frontier.level();
    uint64_t bits = 0;
    for (int b = 0; b < width; ++b) {
        if (depth[(long long)v * width + b] != at) continue;
        bits |= 1ull << b;
        if (!forward) delta[(long long)v * width + b] = 0;
    }
    mask[v] = bits;
}"""
# For each source of v's mask: the first to reach w claims its depth; every edge from the level before adds its paths.
COUNT_PATHS = """
bool cond(int v, int w, long long edge, long long rank, long long out_idx, int iteration) const {
    bool first = false;
    for (uint64_t bits = mask[v]; bits; bits &= bits - 1) {
        const long long b = __ffsll((long long)bits) - 1, at = (long long)w * width + b;
        const int old = depth[at] == -1 ? atomicCAS(&depth[at], -1, iteration + 1) : depth[at];
        if (old == -1 || old == iteration + 1) atomicAdd(&sigma[at], sigma[(long long)v * width + b]);
        first |= old == -1;
    }
    return first;
}
void apply(int v, int w, long long edge, long long rank, long long out_idx, int iteration) const {}"""
# v's dependency on its successor w, for each source of v's mask (networkx's order of operations);
# per_edge: their sum kept as the edge's flow.
DEPENDENCY = """
bool cond(int v, int w, long long edge, long long rank, long long out_idx, int iteration) const {
    double total = 0;
    for (uint64_t bits = mask[v]; bits; bits &= bits - 1) {
        const long long b = __ffsll((long long)bits) - 1;
        const long long at = (long long)w * width + b, from = (long long)v * width + b;
        if (depth[at] != depth[from] + 1) continue;
        const double flow = sigma[from] * ((1 + delta[at]) / sigma[at]);
        atomicAdd(&delta[from], flow);
        total += flow;
    }
    if (per_edge) edge_flow[edge] += total;
    return false;
}
void apply(int v, int w, long long edge, long long rank, long long out_idx, int iteration) const {}"""
# endpoints[0]: each vertex reached is a path's end too, and its source gets one per vertex reached.
ACCUMULATE = """void operator()(int v, int) const {
    for (uint64_t bits = mask[v]; bits; bits &= bits - 1) {
        const long long b = __ffsll((long long)bits) - 1, at = (long long)v * width + b;
        if (depth[at] == 0) continue;
        atomicAdd(&centrality[v], delta[at] + endpoints[0]);
        if (endpoints[0]) atomicAdd(&reached[b], 1ll);
    }
}"""
SOURCE_ENDS = """void operator()(long long b) const {
    if (endpoints[0]) atomicAdd(&centrality[sources[first + b]], (double)reached[b]);
}"""


class Brandes(Problem):
    """Both passes on the simple view of a graph (duplicates once), from up to
    `width` sources at once; centrality and, per_edge, edge_flow (per edge of
    `simple`) sum over the sources; twins: each simple edge's reverse (per_edge, undirected)."""
    name = "betweenness"

    def __init__(self, graph, per_edge):
        self.simple, self.edge_map = graph.simple()
        xp, n, self.edges = graph.xp, graph.num_vertices, self.simple.num_edges
        self.width = width = max(1, min(WIDTH, MEMORY // (24 * max(n, 1))))
        self.depth = xp.empty(n * width, dtype=numpy.int32)
        self.sigma, self.delta = xp.empty(n * width), xp.empty(n * width)
        self.mask, self.centrality = xp.empty(n, dtype=numpy.uint64), xp.zeros(n)
        self.edge_flow = xp.zeros(self.edges if per_edge else 1)
        self.twins = self.simple.reverse_edges() if per_edge and not graph.directed else None
        self.endpoints, self.reached = xp.zeros(1), xp.zeros(width, dtype=numpy.int64)
        self.frontier = Frontier(n, graph.device, capacity=n * width, levels=n + 1)
        arrays = dict(depth=self.depth, sigma=self.sigma, mask=self.mask, width=numpy.int64(width))
        forward_mask, backward_mask = (
            Functor(LEVEL_MASK, filename="<betweenness level mask>", delta=self.delta, forward=forward,
                    frontier=self.frontier.view, **arrays) for forward in (True, False))
        count_paths = Functor(COUNT_PATHS, filename="<betweenness paths>", **arrays)
        dependency = Functor(DEPENDENCY, filename="<betweenness dependency>", delta=self.delta,
                             edge_flow=self.edge_flow, per_edge=bool(per_edge), **arrays)
        add = Functor(ACCUMULATE, filename="<betweenness accumulate>", endpoints=self.endpoints,
                      reached=self.reached, centrality=self.centrality, delta=self.delta, **arrays)

        def forward():
            compute(self.simple, self.frontier, forward_mask, iteration=self.forward.iteration)
            advance(self.simple, self.frontier, count_paths, out=self.frontier, iteration=self.forward.iteration,
                    unique=True)

        def backward():
            compute(self.simple, self.frontier, backward_mask)
            advance(self.simple, self.frontier, dependency)
            compute(self.simple, self.frontier, add)
        self.forward = Loop("betweenness forward", graph.device, forward, self.frontier.not_empty())
        # Back from the deepest level down to the sources' level.
        self.backward = Loop("betweenness backward", graph.device, backward, self.frontier.previous_not_empty())

    def accumulate(self, sources, endpoints, loop):
        """Queues both passes from the sources, `width` at a time, the sums
        starting from 0; waits for them at the end."""
        xp, n = self.simple.xp, self.simple.num_vertices
        self.centrality.fill(0)
        self.edge_flow.fill(0)
        self.endpoints.fill(float(endpoints))
        listed = xp.asarray(numpy.asarray(sources, dtype=numpy.int32))
        batch = dict(sources=listed, reached=self.reached, width=numpy.int64(self.width))
        for first in range(0, len(sources), self.width):
            count, at = min(self.width, len(sources) - first), dict(first=numpy.int64(first), **batch)
            transform(len(self.depth), Functor(RESET, filename="<betweenness reset>", depth=self.depth,
                                               sigma=self.sigma))
            self.frontier.reset()
            transform(count, Functor(SEED, filename="<betweenness seed>", depth=self.depth, sigma=self.sigma,
                                     frontier=self.frontier.view, **at))
            self.frontier.next_level()
            self.forward.run(loop, n)
            self.frontier.previous_level()
            self.backward.run(loop, n)
            transform(count, Functor(SOURCE_ENDS, filename="<betweenness source ends>", endpoints=self.endpoints,
                                     centrality=self.centrality, **at))
        self.frontier.check_waiting()
