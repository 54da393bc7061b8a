"""Minimum spanning forest (a minimum spanning tree of every component) of an
undirected graph by Borůvka's algorithm. Edges are ordered by weight, ties by
an id both stored directions share (the lower of an edge's and its mirror's
positions), so no two edges tie and the lightest edges between components
form no cycle. Each round: every vertex's lightest edge to another component
(neighbor_reduce, a min over packed (weight, id) keys), each component's
lightest of those (an atomic min per vertex), each component root hooking
under the component its edge reaches (where two pick each other, the
smaller stays root), and every vertex pointed at its new root; until a round
hooks nothing. The rounds loop on the device. Weights as networkx's
minimum_spanning_edges takes them: the edge weights (negative ones too), or 1
without; self-loops never join a forest; of duplicate edges the lightest can."""
import numpy

from minigr import alternatives as alt
from minigr.catalog import App, BenchCase, System, needs
from minigr.enactor import Problem, Result, Timer, problem
from minigr.operators import neighbor_reduce
from minigr.transforms import Functor, transform
from minigr.transforms.errors import MinigrError

from ._mst_references import check_mst

NONE = numpy.int64(2**63 - 1)  # no edge: the min's identity
# The edge's key: its weight's bits in signed order above its shared id (below 2^32); NONE inside a component.
LIGHTEST = """long long operator()(int v, int u, long long e) const {
    if (component[u] == component[v]) return none;
    const int bits = minigr::bit_cast<int>(weighted ? weights[e] : 1.0f);
    return (long long)(bits >= 0 ? bits : bits ^ 0x7fffffff) << 32 | shared[e];
}"""
TO_COMPONENT = """void operator()(long long v) const {
    if (lightest[v] != none) minigr::lower(&best[component[v]], lightest[v]);
}"""
# A root hooks under the component across its best edge, unless that one picked the same edge and is larger.
HOOK = """void operator()(long long r) const {
    if (component[r] != r || best[r] == none) return;
    const long long e = best[r] & 0xffffffffll;
    const int a = component[sources[e]], b = component[col_indices[e]];
    const int other = a == r ? b : a;
    if (best[other] == best[r] && other > r) return;
    parent[r] = other;
    owned[r] = e;
    hooked[0] = 1;
}"""
COMPRESS = """void operator()(long long v) const {
    int r = component[v];
    while (parent[r] != r) r = parent[r];
    component[v] = r;
    best[v] = none;
}"""
NEXT_ROUND = "bool operator()() const { const bool any = hooked[0]; hooked[0] = 0; return any; }"
START = "void operator()(long long v) const { component[v] = parent[v] = (int)v; owned[v] = -1; best[v] = none; }"


@needs(undirected="a minimum spanning forest")
def mst(graph):
    """A minimum spanning forest of an undirected graph (a minimum spanning tree of every
    component), weighted as networkx's ``minimum_spanning_edges`` weighs edges: by their
    weights, 1 without.

    Returns
    -------
    Result
        ``src``, ``dst`` and ``weight`` (float64): the forest's edges, at most one per
        vertex, the one its component took when it hooked under another (``src`` -1 and
        ``weight`` nan where a component took none: one vertex per component);
        ``total_weight`` and ``num_edges`` (vertices minus components).

    Examples
    --------
    >>> import minigr
    >>> square = minigr.Graph.from_edges([0, 1, 2, 3], [1, 2, 3, 0], [1.0, 2.0, 3.0, 4.0], symmetrize=True)
    >>> forest = minigr.mst(square)
    >>> forest.total_weight, forest.num_edges
    (6.0, 3)
    """
    if graph.num_edges >= 2**32:
        raise MinigrError(f"mst takes graphs of fewer than 2^32 stored edges; this one has {graph.num_edges}")
    if graph.weights is not None and graph.num_edges and bool(graph.xp.isnan(graph.weights).any()):
        raise MinigrError("the graph has NaN weights, which no spanning forest can order")
    n, xp = graph.num_vertices, graph.xp
    if graph.num_edges == 0:  # no edge to take: every vertex its own tree
        return Result({"src": xp.full(n, -1), "dst": xp.full(n, -1), "weight": xp.full(n, numpy.nan)}, 0, 0.0, 0,
                      {"total_weight": 0.0, "num_edges": 0})
    run = problem(graph, ("mst",), lambda: MST(graph))
    with Timer(graph.device) as timer:
        rounds = run.forest()
        edge = run.owned[:n]
        has = edge >= 0
        at = xp.where(has, edge, 0)
        src, dst = xp.where(has, run.sources[at], -1), xp.where(has, graph.col_indices[at], -1)
        weight = xp.where(has, graph.weights[at].astype(numpy.float64) if graph.weights is not None else 1.0, numpy.nan)
    return Result({"src": src, "dst": dst, "weight": weight}, rounds, timer.ms, graph.num_edges * rounds,
                  {"total_weight": float(xp.nansum(weight)), "num_edges": int(has.sum())})


class MST(Problem):
    name = "mst"

    def __init__(self, graph):
        xp, n = graph.xp, graph.num_vertices
        self.graph = graph
        self.sources = graph.edge_sources()
        self.shared = graph.undirected_edge_ids()
        self.component, self.parent = xp.empty(n, dtype=numpy.int32), xp.empty(n, dtype=numpy.int32)
        self.lightest, self.best, self.owned = (xp.empty(n, dtype=numpy.int64) for _ in range(3))
        self.hooked = xp.zeros(1, dtype=numpy.int32)
        sets = dict(component=self.component, parent=self.parent, best=self.best, owned=self.owned, none=NONE)
        self.start = Functor(START, filename="<mst start>", **sets)
        weights = graph.weights if graph.weights is not None else xp.zeros(1, dtype=numpy.float32)
        lightest = Functor(LIGHTEST, filename="<mst lightest>", component=self.component, shared=self.shared,
                           weights=weights, weighted=graph.weights is not None, none=NONE)
        to_component = Functor(TO_COMPONENT, filename="<mst to component>", lightest=self.lightest, **sets)
        hook = Functor(HOOK, filename="<mst hook>", hooked=self.hooked, sources=self.sources,
                       col_indices=graph.col_indices, **sets)
        compress = Functor(COMPRESS, filename="<mst compress>", **sets)

        def boruvka_round():
            neighbor_reduce(graph, lightest, out=self.lightest, reduce="min")
            for step in (to_component, hook, compress):
                transform(graph.num_vertices, step)
        self.start_loop(graph, boruvka_round, Functor(NEXT_ROUND, filename="<mst next round>", hooked=self.hooked))

    def forest(self):
        """Runs Borůvka's rounds: owned[v] becomes the edge v's component hooked by, or -1. Returns the rounds."""
        transform(self.graph.num_vertices, self.start)
        return self.finish_loop("device", self.graph.num_vertices + 1, "the spanning forest was not done")


APP = App(
    "mst", mst, "minimum spanning forest (Borůvka): a lightest tree spanning each component", ("src", "dst", "weight"),
    lambda graph, source, values, options: check_mst(graph, values["src"], values["dst"], values["weight"]),
    bench=(BenchCase("mst", "total_weight", (  # against SciPy's minimum_spanning_tree and networkx's Kruskal
        System("SciPy csgraph (CPU)", "cpu", lambda i, trace=None: alt.mst_scipy(i.scipy)),
        System("networkx Kruskal (CPU)", "cpu", lambda i, trace=None: alt.mst_networkx(i.networkx),
               skip=alt.too_big(2_000_000, "networkx"))), "SciPy csgraph (CPU)", alt.close),))
