"""Graph coloring, largest degree first: every vertex takes the smallest color
that none of its higher-priority neighbours has (priority: larger degree,
ties by the seed), so the colors are those of a sequential greedy coloring in
that order, as networkx's greedy_color(strategy="largest_first") gives. It
runs in rounds on the device: the graph oriented towards higher priority is
built first (select_edges); then each round every undecided vertex looks at
its higher neighbours and decides once no undecided one can still take its
color (ECL-GC's shortcut; see color.h), a thread per vertex, or a warp for
vertices with many."""
from pathlib import Path

import numpy

from minigr import alternatives as alt
from minigr import validate
from minigr.catalog import SEED_WORD, App, BenchCase, Option, System, needs
from minigr.enactor import Problem, Result, Timer, problem
from minigr.frontier import HEADER as FRONTIER_HEADER, Frontier
from minigr.generators import SHUFFLE32, seed_word
from minigr.operators import compute, select_edges
from minigr.transforms import DeviceCount, Functor, transform

HEADERS = (FRONTIER_HEADER, Path(FRONTIER_HEADER).parent / "color.h")
GREEDY = "largest-first greedy (CPU)"  # the bench's reference coloring
BROAD = 32  # vertices with this many higher neighbours or more take a group of threads each (a warp on the GPU)

# Degree above a 32-bit tie-break: the lower vertex id first for seed 0, else
# the order the seed shuffles the ids into, so that no two priorities are equal.
PRIORITY = SHUFFLE32 + """void operator()(int v, int iteration) const {
    const unsigned tie = seed != 0 ? shuffled((unsigned)v, seed) : (unsigned)v;
    priority[v] = (row_offsets[v + 1] - row_offsets[v]) << 32 | (0xFFFFFFFFu - tie);
}"""
HIGHER = "bool operator()(int v, int u, long long edge) const { return u != v && priority[u] > priority[v]; }"
# Every vertex may take colors 0..(its higher neighbours); one without any has color 0.
START = """void operator()(int v, int iteration) const {
    const long long higher = dag_offsets[v + 1] - dag_offsets[v];
    state[v] = (unsigned long long)higher << 32;
    if (higher == 0) return;
    if (higher < many) narrow.append(v, 0); else broad.append(v, 0);
}"""
NARROW_ROUND = "void operator()(long long i) const { minigr::color_round<1>(*this, i); }"
BROAD_ROUND = "void operator()(long long i) const { minigr::color_round<minigr::COLOR_WIDE>(*this, i); }"
# After each round: the undecided vertices make the next; the broad ones' launch has a group of threads each.
NEXT_ROUND = """bool operator()() const {
    const long long few = narrow.next_level(), many = broad.next_level();
    broad_items[0] = many * minigr::COLOR_WIDE;
    return few + many > 0;
}"""
FIRST_ROUND = "void operator()(long long) const { next_round(); }"


@needs(undirected="coloring")
def color(graph, *, seed=0, loop="device"):
    """A proper coloring of an undirected graph: the greedy coloring in order of degree
    (stored edges), largest first; self-loops are ignored.

    Parameters
    ----------
    seed : int, default 0
        Ties among vertices of equal degree: 0 breaks them by the lower vertex id, any
        other seed by a pseudo-random order drawn from it.

    Returns
    -------
    Result
        ``color`` (int32 colors from 0) and ``num_colors``.

    Examples
    --------
    >>> import minigr
    >>> triangle = minigr.Graph.from_edges([0, 1, 2], [1, 2, 0], symmetrize=True)
    >>> result = minigr.color(triangle)
    >>> result.color.tolist(), result.num_colors
    ([0, 1, 2], 3)
    """
    n = graph.num_vertices
    if n == 0:
        return Result({"color": graph.xp.zeros(0, dtype=numpy.int32)}, 0, 0.0, 0, {"num_colors": 0})
    run = problem(graph, ("color",), lambda: Coloring(graph))
    with Timer(graph.device) as timer:
        run.reset(seed)
        # each round decides the first undecided vertex or moves it to its next 32 colors
        rounds = run.finish_loop(loop, min(n + graph.num_edges // 32 + 1, 2**31 - 1), "coloring did not finish")
        colors = (run.state & numpy.uint64(0xFFFFFFFF)).astype(numpy.int32)
    return Result({"color": colors}, rounds, timer.ms, graph.num_edges, {"num_colors": int(colors.max()) + 1})


class Coloring(Problem):
    name = "color"

    def __init__(self, graph):
        xp, n = graph.xp, graph.num_vertices
        self.graph = graph
        self.priority = xp.empty(n, dtype=numpy.int64)
        self.dag_offsets = xp.zeros(n + 1, dtype=numpy.int64)
        self.dag_cols = xp.empty(max(graph.num_edges, 1), dtype=numpy.int32)
        self.state = xp.empty(n, dtype=numpy.uint64)  # high << 32 | low (see color.h)
        broad = int((graph.out_degrees() >= BROAD).sum())  # those that may have BROAD higher neighbours
        self.narrow = Frontier(n, graph.device)
        self.broad = Frontier(n, graph.device, capacity=2 * broad)
        # the broad round's items: a group of threads per vertex, at most BROAD
        self.broad_items = DeviceCount(xp.zeros(1, dtype=numpy.int64), broad * BROAD)
        dag = dict(dag_offsets=self.dag_offsets, dag_cols=self.dag_cols)
        self.higher = Functor(HIGHER, filename="<color higher>", priority=self.priority)
        self.start = Functor(START, filename="<color start>", headers=HEADERS, state=self.state,
                             dag_offsets=self.dag_offsets, many=BROAD, narrow=self.narrow.view, broad=self.broad.view)
        next_round = Functor(NEXT_ROUND, filename="<color next round>", headers=HEADERS, narrow=self.narrow.view,
                             broad=self.broad.view, broad_items=self.broad_items.cell)
        self.first_round = Functor(FIRST_ROUND, filename="<color first round>", next_round=next_round)
        narrow_round = Functor(NARROW_ROUND, filename="<color round>", headers=HEADERS, level=self.narrow.view,
                               state=self.state, **dag)
        broad_round = Functor(BROAD_ROUND, filename="<color round>", headers=HEADERS, level=self.broad.view,
                              state=self.state, **dag)

        def color_round():
            transform(self.narrow.size, narrow_round)
            transform(self.broad_items, broad_round)

        self.start_loop(graph, color_round, next_round, 4,  # unroll: a round of no vertices does nothing
                        [self.narrow.overflow_check(), self.broad.overflow_check()])

    def reset(self, seed):
        """Priorities from the seed, the oriented graph, and the first round's vertices."""
        graph = self.graph
        compute(graph, None, Functor(PRIORITY, filename="<color priority>", row_offsets=graph.row_offsets,
                                     priority=self.priority, seed=seed_word(seed)))
        select_edges(graph, self.higher, offsets=self.dag_offsets, columns=self.dag_cols)
        self.narrow.reset()
        self.broad.reset()
        compute(graph, None, self.start)
        transform(1, self.first_round)


APP = App(
    "color", color, "graph coloring: a color per vertex, no edge joining equal colors", ("color",),
    lambda graph, source, values, options: validate.check_coloring(graph, values["color"]),
    options=(Option("seed", int, 0, "tie-break among vertices of equal degree: 0 the lower id, else a "
                                    "random order from the seed (default 0)", SEED_WORD),),
    bench=(BenchCase("color", "color", (System("CuPy composed JP (scatter_max)", "gpu", lambda i, trace=None:
                                               alt.color_cupy(i.graph.row_offsets, i.graph.col_indices)),
                                        System(GREEDY, "cpu", lambda i, trace=None: alt.color_greedy(i.graph))),
                     reference=GREEDY, verify=alt.proper_coloring,
                     score=("colors", lambda colors, inputs: int(colors.max()) + 1 if len(colors) else 0)),))
