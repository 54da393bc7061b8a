"""Core numbers and the k-core, as networkx.core_number and k_core define
them: a vertex's core number is the largest k such that it lies in a
subgraph where every vertex has degree at least k (a directed graph's degree
counts in- and out-edges). Duplicate edges count once; self-loops are
refused, as networkx refuses them.

Peeling, a level of vertices at a time: at threshold k, a frontier holds the
vertices whose degree fell to k or below; advance over their edges lowers
their remaining neighbours' degrees, and a neighbour whose degree crosses
from k + 1 to k joins the next level (one thread sees the crossing). When a
level comes out empty, k rises to the least remaining degree (an atomic min
over the vertices) and every remaining vertex of that degree forms the next
level. The decision is made on the device after each level (the operator not
needed gets a count of 0), so the peeling loops there."""
import numpy

from minigr import alternatives as alt
from minigr.catalog import App, BenchCase, Option, System, needs
from minigr.enactor import Problem, Result, Start, Timer, loop_mode, problem
from minigr.frontier import Frontier
from minigr.graph import Graph
from minigr.operators import AdvanceFunctor, advance, compute
from minigr.transforms import DeviceCount, Functor, copied

from . import _kcore_references as references

# state: [threshold k, least remaining degree, vertices the selection passes look at (n, or 0 to skip
# them), vertices removed so far]
SELECT = 2
NONE = numpy.int64(2**62)
START_STATE = "state[0] = 0; state[1] = none; state[2] = vertices; state[3] = 0;"  # minigr.enactor.Start
START_VERTEX = """
        degree[v] = (int)(row_offsets[v + 1] - row_offsets[v]);
        core[v] = -1;"""
# A removed vertex's neighbour dst loses a degree; the one that takes it from k + 1 to k appends dst.
PEEL = dict(cond="""
    if (core[dst] >= 0 || atomicSub(&degree[dst], 1) != state[0] + 1) return false;
    core[dst] = (int)state[0];
    return true;""")
LEAST_DEGREE = """void operator()(int v, int) const {
    if (core[v] < 0) minigr::lower(&state[1], (long long)degree[v]);
}"""
SELECT_LEAST = """void operator()(int v, int) const {
    if (core[v] < 0 && degree[v] == state[1]) { core[v] = (int)state[1]; frontier.append(v, 0); }
}"""
# After each level: a selection's threshold takes effect; an empty level with vertices left calls for one.
NEXT = """bool operator()() const {
    if (state[2]) state[0] = state[1];
    const long long size = frontier.next_level();
    state[3] += size;
    state[2] = size == 0 && state[3] < n ? n : 0;
    state[1] = none;
    return size > 0 || state[2] > 0;
}"""


@needs(no_self_loops="core numbers are")
def kcore(graph, *, k=None, loop="auto"):
    """Core number of every vertex (networkx's ``core_number``), and whether it lies in
    the k-core (networkx's ``k_core``).

    Parameters
    ----------
    k : int, optional
        The core to mark; default the largest core number.
    loop : {"device", "host", "persistent", "auto"}, default "auto"
        Who decides each level: a CUDA graph's loop, the host, one persistent kernel,
        or "auto": the persistent kernel, which ran 1.2-1.7x faster than the CUDA graph
        on kron, rgg and grid graphs of 50k to 31M edges (H100, 2026-11-27).

    Returns
    -------
    Result
        ``core`` (int32), ``in_core`` (int8, 1 in the k-core) and ``max_core``.

    Examples
    --------
    >>> import minigr
    >>> triangle_and_tail = minigr.Graph.from_edges([0, 1, 2, 2], [1, 2, 0, 3], symmetrize=True)
    >>> result = minigr.kcore(triangle_and_tail)
    >>> result.core.tolist(), result.in_core.tolist(), result.max_core
    ([2, 2, 2, 1], [1, 1, 1, 0], 2)
    """
    run = problem(graph, ("kcore",), lambda: Cores(graph))
    if graph.num_vertices == 0:
        none = graph.xp.zeros(0, dtype=numpy.int32)
        return Result({"core": none, "in_core": none.astype(numpy.int8)}, 0, 0.0, 0, {"max_core": 0})
    with Timer(graph.device) as timer:
        run.frontier.reset()
        levels, _ = run.run_loop(loop_mode(graph, loop, dense="persistent"), 2 * graph.num_vertices + 1,
                                 before=run.start())
    max_core = int(run.core.max())
    in_core = (run.core >= (max_core if k is None else k)).astype(numpy.int8)
    return Result({"core": copied(run.core), "in_core": in_core}, levels, timer.ms, run.peel.num_edges,
                  {"max_core": max_core})


class Cores(Problem):
    name = "kcore"

    def __init__(self, graph):
        xp, n = graph.xp, graph.num_vertices
        simple, _ = graph.simple()
        if graph.directed:  # out- and in-neighbours: an edge both ways counts twice, as in networkx
            simple = Graph.from_edges(simple.edge_sources(), simple.col_indices, num_vertices=n, symmetrize=True,
                                      device=graph.device)
        self.peel = simple
        self.degree, self.core = xp.empty(n, dtype=numpy.int32), xp.empty(n, dtype=numpy.int32)
        self.state = xp.zeros(4, dtype=numpy.int64)
        self.frontier = Frontier(n, graph.device, capacity=n)
        arrays = dict(degree=self.degree, core=self.core, state=self.state)
        self.start = Start("kcore", n, START_STATE, START_VERTEX, row_offsets=simple.row_offsets, none=NONE,
                           **arrays)
        self.peel_op = AdvanceFunctor(**PEEL, filename="<kcore peel>", **arrays)
        self.least = Functor(LEAST_DEGREE, filename="<kcore least degree>", **arrays)
        self.select = Functor(SELECT_LEAST, filename="<kcore select>", frontier=self.frontier.view, **arrays)
        self.selecting = DeviceCount(self.state, max(n, 1), SELECT, stable=True)
        self.start_loop(graph, self.level, Functor(NEXT, filename="<kcore next>", frontier=self.frontier.view,
                                                          state=self.state, none=NONE, n=numpy.int64(n)),
                        checks=[self.frontier.overflow_check()])

    def level(self):
        advance(self.peel, self.frontier, self.peel_op, out=self.frontier)
        compute(self.peel, None, self.least, count=self.selecting)
        compute(self.peel, None, self.select, count=self.selecting)


NUMPY = "peeling by rounds (NumPy, CPU)"
APP = App(
    "kcore", kcore, "core numbers (networkx's core_number) and the k-core's vertices", ("core", "in_core"),
    lambda graph, source, values, options: references.check_kcore(graph, values, options.get("k")),
    options=(Option("k", int, None, "the k-core's order (default the largest core number)"),),
    bench=(BenchCase("kcore core numbers", "core", (
        System("cuGraph", "gpu", lambda i, trace=None: references.cugraph_cores(i), skip=references.cugraph_skip),
        System(NUMPY, "cpu", lambda i, trace=None: references.numpy_cores(i), skip=alt.too_big(100_000_000)),
        System("networkx (CPU)", "cpu", lambda i, trace=None: references.networkx_cores(i.graph),
               skip=alt.too_big(5_000_000, "networkx"))), NUMPY, alt.same),), persistent=True)
