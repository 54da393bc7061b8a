"""Graph coloring by Jones-Plassmann independent sets, as in the Mini-Gunrock
paper: each round, every uncolored vertex whose random priority beats all its
uncolored neighbours' (neighbor_reduce, max) takes the round's color (compute);
filter keeps the rest for the next round. The rounds loop on the device."""
import numpy

from minigr import validate
from minigr.bench import alternatives as alt
from minigr.bench import primitives as bench
from minigr.catalog import App, BenchCase, Option, System
from minigr.enactor import Problem, Result, Timer, problem
from minigr.frontier import Frontier
from minigr.operators import compute, filter_frontier, neighbor_reduce
from minigr.transforms import Functor
from minigr.transforms.errors import MinigrError

# Priorities: a hashed 31-bit value above the vertex id, so all are distinct.
PRIORITY = """void operator()(int v, int iteration) const {
    unsigned long long x = (unsigned long long)v * 0x9E3779B97F4A7C15ull + seed[0];
    x = (x ^ (x >> 31)) * 0xBF58476D1CE4E5B9ull;
    x ^= x >> 29;
    priority[v] = (long long)(x & 0x7fffffffull) << 32 | v;
}"""
RIVAL = """long long operator()(int v, int u, long long edge) const {
    return u != v && color[u] < 0 ? priority[u] : -1;
}"""
TAKE = """void operator()(int v, int iteration) const {
    if (priority[v] > best_rival[v]) color[v] = iteration;
}"""
UNCOLORED = "bool cond(int v, int iteration) const { return color[v] < 0; }"


def color(graph, *, seed=0, loop="device"):
    """A proper coloring (int32 colors from 0) of an undirected graph; self-loops
    are ignored. extra["num_colors"] is the number of colors used. loop:
    "device" or "host" (who decides each round)."""
    if graph.directed:
        raise MinigrError("coloring needs an undirected graph; symmetrize it first (--symmetrize)")
    n = graph.num_vertices
    if n == 0:
        return Result({"color": graph.xp.zeros(0, dtype=numpy.int32)}, 0, 0.0, 0, {"num_colors": 0})
    run = problem(graph, ("color",), lambda: Coloring(graph))
    with Timer(graph.device) as timer:
        run.reset(seed)
        rounds, _ = run.run_loop(loop, n)
    run.uncolored.check_waiting()
    # every round looks at the uncolored vertices' edges; report the graph's
    return Result({"color": run.colors.copy()}, rounds, timer.ms, graph.num_edges, {"num_colors": rounds})


class Coloring(Problem):
    name = "color"

    def __init__(self, graph):
        xp, n = graph.xp, graph.num_vertices
        self.graph = graph
        self.colors = xp.empty(n, dtype=numpy.int32)
        self.priority = xp.empty(n, dtype=numpy.int64)
        self.best_rival = xp.empty(n, dtype=numpy.int64)
        self.seed = xp.zeros(1, dtype=numpy.uint64)
        self.uncolored = Frontier(n, graph.device)
        rival = Functor(RIVAL, filename="<color rival>", color=self.colors, priority=self.priority)
        take = Functor(TAKE, filename="<color take>", color=self.colors, priority=self.priority,
                       best_rival=self.best_rival)
        still_uncolored = Functor(UNCOLORED, filename="<color uncolored>", color=self.colors)
        self.assign_priorities = Functor(PRIORITY, filename="<color priority>", priority=self.priority,
                                         seed=self.seed)

        def round():
            it, level = self.loop.iteration, self.uncolored
            neighbor_reduce(graph, rival, frontier=level, out=self.best_rival, reduce="max", identity=-1)
            compute(graph, level, take, iteration=it)
            filter_frontier(level, still_uncolored, out=level, iteration=it)

        self.start_loop(graph.device, round, self.uncolored.not_empty(), unroll=4)  # a round of none does nothing

    def reset(self, seed):
        self.colors.fill(-1)
        self.seed.fill(seed)
        compute(self.graph, None, self.assign_priorities)
        self.uncolored.reset(self.graph.xp.arange(self.graph.num_vertices, dtype=numpy.int32))


APP = App(
    "color", color, "graph coloring: a color per vertex, no edge joining equal colors", ("color",),
    lambda graph, source, values, options: validate.check_coloring(graph, values["color"]),
    options=(Option("seed", int, 0, "random seed of the coloring (default 0)"),), needs="undirected",
    bench=(BenchCase("color", "color", (System("CuPy composed JP (scatter_max)", "gpu", lambda i, trace=None:
                                               alt.color_cupy(i.graph.row_offsets, i.graph.col_indices)),),
                     verify=bench.proper_coloring),))
