"""intersect_neighbors: the common out-neighbours of pairs of vertices, one
segmented intersection (intersect_transform) of their two sorted neighbour
lists a pair: triangles (the two ends of an edge), similarity (given pairs)."""
from ..transforms import Functor, intersect_transform

_PAIR = """
void operator()(long long p, long long& a_begin, long long& a_end, long long& b_begin, long long& b_end) const {
    const int u = first[p], v = second[p];
    a_begin = row_offsets[u];
    a_end = row_offsets[u + 1];
    b_begin = row_offsets[v];
    b_end = row_offsets[v + 1];
}"""


def intersect_neighbors(graph, first, second, f=None, *, out=None):
    """The common out-neighbours of first[p] and second[p] for every pair p
    (first and second: int32 vertex arrays of one length on the graph's
    device); a neighbour stored j times in one row and k in the other is
    common min(j, k) times. f(p, ia, ib), when given, is called once per
    common neighbour with its edges from first[p] (ia) and from second[p]
    (ib); out (int64, one entry per pair), when given, receives each pair's
    count. Returns out."""
    pairs = Functor(_PAIR, filename="<intersect_neighbors pairs>", first=first, second=second,
                    row_offsets=graph.row_offsets)
    return intersect_transform(len(first), pairs, graph.col_indices, f, out=out)
