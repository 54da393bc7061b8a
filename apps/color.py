"""Graph coloring by Jones-Plassmann independent sets, as in the Mini-Gunrock
paper: each round, every uncolored vertex whose random priority beats all its
uncolored neighbours' (neighbor_reduce, max) takes the round's color (compute);
filter keeps the rest for the next round."""
import numpy

from minigr.enactor import Result, Timer
from minigr.frontier import Frontier
from minigr.operators import compute, filter_frontier, neighbor_reduce
from minigr.transforms import Functor
from minigr.transforms.errors import MinigrError

# Priorities: a hashed 31-bit value above the vertex id, so all are distinct.
PRIORITY = """void operator()(int v, int iteration) const {
    unsigned long long x = (unsigned long long)v * 0x9E3779B97F4A7C15ull + seed;
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


def color(graph, *, seed=0):
    """A proper coloring (int32 colors from 0) of an undirected graph; self-loops
    are ignored. extra["num_colors"] is the number of colors used."""
    if graph.directed:
        raise MinigrError("coloring needs an undirected graph; symmetrize it first (--symmetrize)")
    xp, n = graph.xp, graph.num_vertices
    colors = xp.full(n, -1, dtype=numpy.int32)
    priority = xp.empty(n, dtype=numpy.int64)
    best_rival = xp.empty(n, dtype=numpy.int64)
    rival = Functor(RIVAL, filename="<color rival>", color=colors, priority=priority)
    take = Functor(TAKE, filename="<color take>", color=colors, priority=priority, best_rival=best_rival)
    uncolored = Functor(UNCOLORED, filename="<color uncolored>", color=colors)
    frontier, rounds, edges = Frontier.all_vertices(n, graph.device), 0, 0
    with Timer(graph.device) as timer:
        compute(graph, None, Functor(PRIORITY, filename="<color priority>", priority=priority,
                                     seed=numpy.uint64(seed)))
        while len(frontier):
            ids = frontier.ids
            best_rival[ids] = neighbor_reduce(graph, rival, frontier=frontier, reduce="max", identity=-1,
                                              dtype=numpy.int64)
            compute(graph, frontier, take, iteration=rounds)
            frontier = filter_frontier(frontier, uncolored)
            rounds += 1
    edges = graph.num_edges  # every round looks at the uncolored vertices' edges; report the graph's
    return Result({"color": colors}, rounds, timer.ms, edges, {"num_colors": rounds})
