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
    """The tables of one graph, grouping by `label` (an int32 array of labels >= 0,
    one per vertex, read at each fill) the values of op(vertex, neighbor, edge)
    (a Functor returning a double); loops: whether a vertex's self-loops count.
    `view` is the device view user functors capture: for (s = g.begin(v); s < g.end(v);
    ++s), a used slot has g.label(s) != -1 and its sum g.sum(s); g.clear(s) empties it."""

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
        """Adds every edge's value to its source's table (queued; the tables must be empty)."""
        advance(self.graph, None, self._fill)
