"""intersect_neighbors: the common out-neighbours of pairs of vertices, one
segmented intersection (intersect_transform) of their two sorted neighbour
lists a pair: triangles (the two ends of an edge), similarity (given pairs),
k-truss (the pairs a frontier's level names: edges being peeled)."""
from ..transforms import Functor, intersect_transform

# Item i is pair p: i itself, or the i-th of a frontier's level (%s).
_PAIR = """
void operator()(long long i, long long& a_begin, long long& a_end, long long& b_begin, long long& b_end) const {
    const long long p = %s;
    const int u = first[p], v = second[p];
    a_begin = row_offsets[u];
    a_end = row_offsets[u + 1];
    b_begin = row_offsets[v];
    b_end = row_offsets[v + 1];
}"""
_LEVEL_F = "void operator()(long long i, long long ia, long long ib) const { f(frontier.vertex(i), ia, ib); }"


def intersect_neighbors(graph, first, second, f=None, *, frontier=None, out=None):
    """The common out-neighbours of pairs of vertices: triangles, similarity, k-truss.

    For every pair p (or each p that a frontier's current level lists), the out-neighbours
    that first[p] and second[p] share, by one segmented intersection of their two sorted
    neighbour lists (`intersect_transform`): counted into `out`, and each given to `f` with
    its two edges. A neighbour stored j times in one row and k in the other is common
    min(j, k) times. Queued on the current stream; nothing waits.

    Parameters
    ----------
    graph : Graph
        The graph, whose rows are sorted.
    first, second : array
        The pairs: vertex ids (int32) of one length, on the graph's device.
    f : Functor, optional
        ``void operator()(long long p, long long ia, long long ib) const``, called once per
        common neighbour with its edges from first[p] (ia) and from second[p] (ib).
    frontier : Frontier, optional
        Its current level's ids are the pairs p to intersect; default: every pair.
    out : array, optional
        One int64 entry per pair (with a frontier, per position in its level, as many as
        its capacity), which receives the pair's count (written, not added).

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

    Of pair 0 alone, as a frontier's level lists it:

    >>> from minigr.frontier import Frontier
    >>> found.fill(0)
    >>> intersect_neighbors(graph, first, second, mark, frontier=Frontier.from_ids([0], len(first), graph.device))
    >>> found.tolist()
    [0, 0, 1, 1]
    """
    if frontier is None:
        pairs = Functor(_PAIR % "i", filename="<intersect_neighbors pairs>", first=first, second=second,
                        row_offsets=graph.row_offsets)
        return intersect_transform(len(first), pairs, graph.col_indices, f, out=out)
    pairs = Functor(_PAIR % "frontier.vertex(i)", filename="<intersect_neighbors level pairs>", first=first,
                    second=second, row_offsets=graph.row_offsets, frontier=frontier.view)
    if f is not None:
        f = Functor(_LEVEL_F, filename="<intersect_neighbors level>", f=f, frontier=frontier.view)
    return intersect_transform(frontier.size, pairs, graph.col_indices, f, out=out)
