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
    """The common out-neighbours of pairs of vertices: triangles, similarity.

    For every pair p, the out-neighbours that first[p] and second[p] share, by one
    segmented intersection of their two sorted neighbour lists (`intersect_transform`):
    counted into `out`, and each given to `f` with its two edges. A neighbour stored j
    times in one row and k in the other is common min(j, k) times. Queued on the current
    stream; nothing waits.

    Parameters
    ----------
    graph : Graph
        The graph, whose rows are sorted.
    first, second : array
        The pairs: vertex ids (int32) of one length, on the graph's device.
    f : Functor, optional
        ``void operator()(long long p, long long ia, long long ib) const``, called once per
        common neighbour with its edges from first[p] (ia) and from second[p] (ib).
    out : array, optional
        One int64 entry per pair, which receives the pair's count (written, not added).

    Returns
    -------
    array or None
        `out` (None without one).

    Examples
    --------
    The triangles through edges 0 -> 1 and 1 -> 3 of a directed graph:

    >>> import minigr
    >>> from minigr.operators import intersect_neighbors
    >>> from minigr.transforms import Functor
    >>> graph = minigr.Graph.from_edges([0, 0, 0, 1, 1, 2], [1, 2, 3, 2, 3, 3])
    >>> first = graph.xp.asarray([0, 1], dtype="int32")
    >>> second = graph.xp.asarray([1, 3], dtype="int32")
    >>> found = graph.xp.zeros(4, dtype="int32")
    >>> mark = Functor("void operator()(long long p, long long ia, long long ib) const { found[col[ia]] += 1; }",
    ...                found=found, col=graph.col_indices)
    >>> intersect_neighbors(graph, first, second, mark, out=graph.xp.zeros(2, dtype="int64")).tolist()
    [2, 0]
    >>> found.tolist()
    [0, 0, 1, 1]
    """
    pairs = Functor(_PAIR, filename="<intersect_neighbors pairs>", first=first, second=second,
                    row_offsets=graph.row_offsets)
    return intersect_transform(len(first), pairs, graph.col_indices, f, out=out)
