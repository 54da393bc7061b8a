"""The k-truss, as networkx.k_truss defines it: the largest subgraph of an
undirected graph in which every edge lies in at least k - 2 triangles of the
subgraph. Duplicate edges count once; self-loops are refused, as networkx
refuses them.

An edge's support (its triangles) is one segmented intersection of its ends'
neighbour lists, each undirected edge once, from its lower end. Peeling then
runs on a frontier of edges: the edges whose support is below k - 2 form a
level; intersecting the ends of each edge e of the level lists its
triangles, and each triangle not broken at an earlier level lowers the
support of its other two edges, once (where both of them fall at this level
nothing is left to lower; where one does, the one of lower id than the
other lowers the third). The edge whose support crosses to below k - 2
joins the next level. The levels loop on the device."""
import numpy

from minigr import alternatives as alt
from minigr.catalog import App, BenchCase, Option, System, needs
from minigr.enactor import Problem, Result, Timer, problem
from minigr.frontier import Frontier
from minigr.operators import intersect_neighbors
from minigr.transforms import Functor, intersect_transform, transform

from . import _ktruss_references as references

ALIVE = numpy.int32(2**31 - 1)  # level of an edge still in the truss
# The neighbour lists of edge e's ends; none for an edge from its higher end (each undirected edge once).
EDGE = """void operator()(long long e, long long& a0, long long& a1, long long& b0, long long& b1) const {
    const int u = sources[e], v = targets[e];
    a0 = a1 = b0 = b1 = 0;
    if (u > v) return;
    a0 = offsets[u];
    a1 = offsets[u + 1];
    b0 = offsets[v];
    b1 = offsets[v + 1];
}"""
# Edges of support below k - 2 (state[0]) start the peeling; the others stay alive.
START = """void operator()(long long e) const {
    const bool weak = sources[e] < targets[e] && support[e] < state[0];
    level[e] = weak ? 0 : alive;
    if (weak) frontier.append((int)e, 0);
}"""
# Triangle (e, a, b) of edge e at level L, a and b (u -> w and v -> w) named by their lower ends' copies.
LOWER = """void operator()(long long e, long long ia, long long ib) const {
    const int at = level[e];
    const long long a = canonical[ia], b = canonical[ib];
    const int la = level[a], lb = level[b];
    if (la < at || lb < at) return;
    if (la > at && (lb > at || e < b)) lower(a, at);
    if (lb > at && (la > at || e < a)) lower(b, at);
}
void lower(long long x, int at) const {
    if (atomicAdd(&support[x], -1ll) == state[0]) {
        level[x] = at + 1;
        frontier.append((int)x, 0);
    }
}"""


@needs(undirected="ktruss", no_self_loops="the k-truss is")
def ktruss(graph, *, k=3, loop="device"):
    """Whether each stored edge of an undirected graph lies in its k-truss, as networkx's
    ``k_truss`` finds it.

    Parameters
    ----------
    k : int, default 3
        The truss: every edge in it closes at least k - 2 triangles within it.

    Returns
    -------
    Result
        ``source`` and ``target`` (the edges, as stored) and ``in_truss`` (int8, 1 in it).

    Examples
    --------
    >>> import minigr
    >>> triangle_and_tail = minigr.Graph.from_edges([0, 1, 2, 2], [1, 2, 0, 3], symmetrize=True)
    >>> result = minigr.ktruss(triangle_and_tail)
    >>> result.target[result.in_truss == 0].tolist()
    [3, 2]
    """
    run = problem(graph, ("ktruss",), lambda: Truss(graph))
    with Timer(graph.device) as timer:
        levels = run.peel(k, loop)
        kept = run.level[run.canonical[run.edge_map]] == ALIVE
    ends = {"source": graph.edge_sources().astype(numpy.int32), "target": graph.col_indices.copy()}
    return Result({**ends, "in_truss": kept.astype(numpy.int8)}, levels, timer.ms, graph.num_edges)


class Truss(Problem):
    """The simple graph's supports and each edge's level of removal (on its lower end's copy)."""
    name = "ktruss"

    def __init__(self, graph):
        simple, self.edge_map = graph.simple()
        xp, self.edges = graph.xp, simple.num_edges
        sources, targets = simple.edge_sources().astype(numpy.int32), simple.col_indices
        self.canonical = simple.undirected_edge_ids()
        self.support = xp.empty(max(self.edges, 1), dtype=numpy.int64)
        self.level = xp.empty(max(self.edges, 1), dtype=numpy.int32)
        self.state = xp.zeros(1, dtype=numpy.int64)
        self.frontier = Frontier(self.edges, graph.device, capacity=self.edges)
        self.items = simple.col_indices
        ends = dict(sources=sources, targets=targets, offsets=simple.row_offsets)
        self.edge = Functor(EDGE, filename="<ktruss edge>", **ends)
        self.start = Functor(START, filename="<ktruss start>", support=self.support, level=self.level,
                             state=self.state, frontier=self.frontier.view, alive=ALIVE, **ends)
        lower = Functor(LOWER, filename="<ktruss lower>", frontier=self.frontier.view, level=self.level,
                        canonical=self.canonical, support=self.support, state=self.state)
        self.start_loop(graph, lambda: intersect_neighbors(simple, sources, targets, lower, frontier=self.frontier),
                        self.frontier.not_empty(), checks=[self.frontier.overflow_check()])

    def peel(self, k, loop):
        """Queues the peeling for k; returns its levels (waits for them)."""
        if not self.edges:
            return 0
        self.state.fill(k - 2)
        intersect_transform(self.edges, self.edge, self.items, out=self.support[:self.edges])
        self.frontier.reset()
        transform(self.edges, self.start)
        self.frontier.next_level()
        return self.run_loop(loop, self.edges + 1)[0]


NUMPY = "rounds over the listed triangles (NumPy, CPU)"
APP = App(
    "ktruss", ktruss, "the k-truss (networkx's k_truss): whether each edge lies in it",
    ("source", "target", "in_truss"),
    lambda graph, source, values, options: references.check_ktruss(graph, values, options.get("k", 3)),
    options=(Option("k", int, 3, "the truss's order: each edge in k - 2 triangles of it (default 3)"),),
    rows="edge", variants=({"k": 3}, {"k": 5}),
    bench=(BenchCase("ktruss k=5", "in_truss", (
        System("cuGraph", "gpu", lambda i, trace=None: references.cugraph_truss(i, 5), skip=alt.no_cugraph),
        System(NUMPY, "cpu", lambda i, trace=None: references.numpy_truss(i, 5), skip=alt.too_big(20_000_000)),
        System("networkx (CPU)", "cpu", lambda i, trace=None: references.networkx_truss(i.graph, 5),
               skip=alt.too_big(100_000, "networkx"))), NUMPY, alt.same, options={"k": 5}),))
