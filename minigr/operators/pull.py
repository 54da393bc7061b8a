"""pull: per vertex, the sum of a per-vertex array's values over its in- (or
out-) neighbours, times the edges' weights where asked: the step of PageRank
and the power iterations. The values are gathered at random where ids have
no locality; where the array overflows L2, the edges are pulled block by
block of neighbour ids (Graph.in_blocks), each block's values fitting L2.
What bounds it: L2 requests. ncu, H100, 2026-11-27, grid_22 (ids permuted)
float32: the pull 119.5 us, 14.3M L2 read requests for 17.3M sectors (a
gather of a permuted id is a sector of its own), L2 throughput 93% of peak;
cuSPARSE's csrmv on the same matrix 123.8 us, 14.3M requests, 91%. Blocks
taking contiguous chunks of the vertices (for L1 reuse) instead of striding
over the grid: no change (128 against 120-126 us)."""
import math

import numpy

from ..transforms import Functor
from ..transforms.launch import l2_bytes
from .neighbor_reduce import neighbor_reduce

GATHER = "double operator()(int v, int u, long long edge) const { return x[u]; }"
WEIGHTED_GATHER = "double operator()(int v, int u, long long edge) const { return x[u] * weights[edge]; }"
# v's sum over the blocks, each block's n sums stored in turn.
TOTAL = """double operator()(long long v) const {
    double total = sums[v];
    for (long long block = 1; block < blocks; ++block) total += sums[block * n + v];
    return total;
}"""
# While the gathered array takes at most this part of the GPU's L2, its gathers
# hit there. PageRank's pull of float64 shares (33.5 MB) on an H100 (L2 50 MB),
# 2026-11-27 (.devrun/split23.py): grid_22 216 -> 176 us in 2 blocks, rgg_n22 734
# -> 582 (3 or 4 blocks slower); in 2 blocks slower where the array is 16.8 MB:
# grid_22 and rgg_n22 float32 151 -> 173 and 550 -> 576, kron_s21_e16 float64 551 -> 585.
PULL_L2_SHARE = 0.4


def pull_blocks(graph, itemsize):
    """How many blocks of neighbour ids a pull over every vertex gathers through, so that
    each block's values stay in the GPU's L2.

    Parameters
    ----------
    graph : Graph
        The graph pulled over.
    itemsize : int
        Bytes of each vertex's gathered value.

    Returns
    -------
    int
        The fewest blocks whose ranges' values take at most PULL_L2_SHARE (0.4) of the L2
        each; 1 on the CPU.

    Examples
    --------
    >>> import minigr
    >>> from minigr.operators import pull_blocks
    >>> pull_blocks(minigr.Graph.from_edges([0, 1], [1, 2]), 8)  # 24 bytes fit any L2
    1
    """
    if graph.device != "gpu":
        return 1
    return max(1, math.ceil(graph.num_vertices * itemsize / (PULL_L2_SHARE * l2_bytes(graph.gpu))))


def gather(graph, x, weighted, direction="in"):
    """neighbor_reduce's value functor that gathers a per-vertex array from the neighbours:
    x[u] of each neighbour u, times the edge's weight when weighted (as networkx's weight=;
    unweighted, a duplicate edge counts once per copy). For a reduction into an array of
    its own; `Pull` sums the same in blocks.

    Parameters
    ----------
    graph : Graph
        The graph reduced over.
    x : array
        One value per vertex.
    weighted : bool
        Whether each value is multiplied by its edge's weight.
    direction : {'in', 'out'}, default 'in'
        The neighbours neighbor_reduce is called over (their edge ids index the weights).

    Returns
    -------
    Functor
        ``double operator()(int v, int u, long long edge) const``.

    Examples
    --------
    >>> import minigr
    >>> from minigr.operators import gather, neighbor_reduce
    >>> graph = minigr.Graph.from_edges([0, 1], [2, 2], weights=[2.0, 3.0])
    >>> x = graph.xp.asarray([1.0, 10.0, 100.0])
    >>> neighbor_reduce(graph, gather(graph, x, True), direction="in").tolist()
    [0.0, 0.0, 32.0]
    """
    g = graph if direction == "out" else graph.reverse()
    if weighted:
        return Functor(WEIGHTED_GATHER, filename="<gather weighted>", x=x, weights=g.weights)
    return Functor(GATHER, filename="<gather>", x=x)


class Pull:
    """Per vertex v, the sum of x[u] over its in-neighbours u (times the edges' weights
    where weighted), gathered block by block of neighbour ids (`pull_blocks`).

    Calling it queues the pull (nothing waits); a functor that captures `total` reads
    v's sum as ``total(v)``.

    Parameters
    ----------
    graph : Graph
        The graph.
    x : array
        One value per vertex (float64 or float32), read where the pull runs.
    weighted : bool
        Whether each value is multiplied by its edge's weight.
    direction : {'in', 'out'}, default 'in'
        Pull over in-neighbours, or over out-neighbours.

    Attributes
    ----------
    total : Functor
        ``double operator()(long long v) const``: v's sum after the last pull.

    Examples
    --------
    >>> import minigr
    >>> from minigr.operators import Pull
    >>> graph = minigr.Graph.from_edges([0, 1, 2], [2, 2, 0])
    >>> x = graph.xp.asarray([1.0, 10.0, 100.0])
    >>> pull = Pull(graph, x, weighted=False)
    >>> pull()
    >>> [pull.sums[v].item() for v in range(3)]  # one block here: each vertex's sum
    [100.0, 0.0, 11.0]
    """

    def __init__(self, graph, x, weighted, direction="in"):
        rows = graph if direction == "in" else graph.reverse()
        self.blocks = rows.in_blocks(pull_blocks(graph, x.itemsize))
        self.gathers = [Functor(WEIGHTED_GATHER, filename="<pull weighted>", x=x, weights=block.weights)
                        if weighted else Functor(GATHER, filename="<pull>", x=x) for block in self.blocks]
        n = graph.num_vertices
        self.sums = graph.xp.empty(len(self.blocks) * n)  # each block's n sums in turn
        self.total = Functor(TOTAL, filename="<pull total>", sums=self.sums, blocks=numpy.int64(len(self.blocks)),
                             n=numpy.int64(n))

    def __call__(self):
        for block, gather_values, out in zip(self.blocks, self.gathers, self.sums.reshape(len(self.blocks), -1)):
            neighbor_reduce(block, gather_values, out=out)  # a block's rows are the pulling vertices
