"""NeighborGroups: per vertex, the sum of the user's op(vertex, neighbor, edge)
over its out-neighbours grouped by a label of the neighbour (Louvain's edge
weight to each neighbouring community; with an op of 1, how many neighbours
hold each label). Each vertex has a hash table of twice its degree in slots, filled by
advance over every edge with atomics; the user's functor walks a vertex's
slots through the table's device view and empties them for the next fill."""
import numpy

from ..transforms import Functor
from .advance import advance

EMPTY = -1
_VIEW = """__device__ long long begin(int v) const { return 2 * row_offsets[v]; }
__device__ long long end(int v) const { return 2 * row_offsets[v + 1]; }
__device__ int label(long long s) const { return labels[s]; }
__device__ double sum(long long s) const { return sums[s]; }
__device__ void clear(long long s) const { labels[s] = -1; sums[s] = 0; }"""
# src adds op's value to its neighbour's label's slot (linear probing from a hash of the label).
_FILL = """
bool cond(int src, int dst, long long edge, long long rank, long long out_idx, int iteration) const {
    if (src == dst && !loops) return false;
    const int key = label[dst];
    const long long begin = 2 * row_offsets[src], size = 2 * (row_offsets[src + 1] - row_offsets[src]);
    long long i = ((unsigned)key * 2654435761u) % size;
    for (;;) {
        const int seen = atomicCAS(&labels[begin + i], -1, key);
        if (seen == -1 || seen == key) { atomicAdd(&sums[begin + i], (double)op(src, dst, edge)); return false; }
        i = i + 1 == size ? 0 : i + 1;
    }
}
void apply(int src, int dst, long long edge, long long rank, long long out_idx, int iteration) const {}"""


class NeighborGroups:
    """Per vertex, the values of op(vertex, neighbor, edge) summed by the neighbour's label.

    Louvain's edge weight to each neighbouring community; with an op of 1, how many
    neighbours hold each label. Each vertex has a hash table of twice its degree in
    slots, filled by `fill` (advance over every edge, with atomics); user functors walk a
    vertex's slots through `view` and empty them for the next fill.

    Parameters
    ----------
    graph : Graph
        The graph, over whose out-edges the tables are filled.
    label : array
        Labels (int32, >= 0), one per vertex, read at each fill.
    op : Functor
        ``double operator()(int v, int neighbor, long long edge) const``: an edge's value.
    loops : bool, default True
        Whether a vertex's self-loops count.

    Attributes
    ----------
    view : Functor
        The tables' device view, for user functors to capture (say as ``g``): for (s =
        g.begin(v); s < g.end(v); ++s), a used slot has g.label(s) != -1 and its sum
        g.sum(s); g.clear(s) empties it.
    labels, sums : array
        The slots' labels (-1: empty) and sums.

    Examples
    --------
    Each vertex's count of neighbours labelled 1, and of labels among its neighbours:

    >>> import minigr
    >>> from minigr.operators import NeighborGroups
    >>> from minigr.transforms import Functor, transform
    >>> graph = minigr.Graph.from_edges([0, 0, 0, 1, 2], [1, 2, 3, 3, 3])
    >>> label = graph.xp.asarray([0, 0, 1, 1], dtype="int32")
    >>> one = Functor("double operator()(int v, int u, long long e) const { return 1; }")
    >>> groups = NeighborGroups(graph, label, one)
    >>> groups.fill()
    >>> ones, kinds = graph.xp.zeros(4), graph.xp.zeros(4, dtype="int32")
    >>> walk = Functor('''void operator()(long long v) const {
    ...     for (long long s = g.begin(v); s < g.end(v); ++s) {
    ...         if (g.label(s) == -1) continue;
    ...         if (g.label(s) == 1) ones[v] = g.sum(s);
    ...         kinds[v] += 1;
    ...         g.clear(s);
    ...     }
    ... }''', g=groups.view, ones=ones, kinds=kinds)
    >>> transform(graph.num_vertices, walk)
    >>> ones.tolist(), kinds.tolist()
    ([2.0, 1.0, 1.0, 0.0], [2, 1, 1, 0])
    """

    def __init__(self, graph, label, op, loops=True):
        xp = graph.xp
        self.graph = graph
        self.labels = xp.full(max(2 * graph.num_edges, 1), EMPTY, dtype=numpy.int32)
        self.sums = xp.zeros(len(self.labels))
        tables = dict(row_offsets=graph.row_offsets, labels=self.labels, sums=self.sums)
        self.view = Functor(_VIEW, filename="<neighbor groups>", **tables)
        self._fill = Functor(_FILL, filename="<neighbor groups fill>", label=label, op=op, loops=bool(loops),
                             **tables)

    def fill(self):
        """Add every edge's value to its source's table, by its neighbour's label.

        The tables must be empty: new, or emptied by the user's walk (``g.clear(s)``).
        Queued on the current stream; nothing waits.

        Examples
        --------
        >>> import minigr
        >>> from minigr.operators import NeighborGroups
        >>> from minigr.transforms import Functor
        >>> graph = minigr.Graph.from_edges([0, 0, 1], [1, 2, 2])
        >>> weight = Functor("double operator()(int v, int u, long long e) const { return 0.5; }")
        >>> groups = NeighborGroups(graph, graph.xp.zeros(3, dtype="int32"), weight)
        >>> groups.fill()
        >>> sorted(groups.sums.tolist())[-2:]  # 0's two edges in one slot, 1's edge in another
        [0.5, 1.0]
        """
        advance(self.graph, None, self._fill)
