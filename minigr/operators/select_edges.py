"""select_edges: the rows of a graph cut down to the edges where the user's
keep(v, neighbor, edge) holds, as CSR written into the caller's buffers
(coloring's graph oriented towards higher priority). neighbor_reduce counts
each row's kept edges, a scan makes the offsets, and advance lists them."""
import numpy

from ..transforms import Functor
from .advance import AdvanceFunctor, advance
from .neighbor_reduce import neighbor_reduce

_COUNT = "int operator()(int v, int u, long long edge) const { return keep(v, u, edge) ? 1 : 0; }"
# Each kept edge takes the last free place of its row: the row's count, run down to 0.
_LIST = """
    if (keep(src, dst, edge)) columns[offsets[src] + atomicSub(&counts[src], 1) - 1] = dst;
    return false;"""


def select_edges(graph, keep, *, offsets, columns):
    """The graph's out-edges where the user's keep holds, as CSR rows in the given buffers.

    offsets (V + 1 entries) and columns become the rows of the edges v -> u for which
    ``keep(v, u, edge)`` holds: a graph oriented towards higher priority, a subgraph. A row
    lists its edges in no set order. Buffers of the caller's, so that a loop made once
    reads them while each run fills them anew. Queued on the current stream; nothing waits.

    Parameters
    ----------
    graph : Graph
        The graph, whose out-edges are kept or not.
    keep : Functor
        ``bool operator()(int v, int neighbor, long long edge) const``.
    offsets : array
        int64, V + 1 entries: the rows' offsets into columns.
    columns : array
        int32, room for every kept edge (at most the graph's edges): each row's kept neighbours.

    Returns
    -------
    array
        `offsets`.

    Examples
    --------
    Each vertex's neighbours of a larger id:

    >>> import minigr
    >>> from minigr.operators import select_edges
    >>> from minigr.transforms import Functor
    >>> triangle = minigr.Graph.from_edges([0, 1, 2], [1, 2, 0], symmetrize=True)
    >>> larger = Functor("bool operator()(int v, int u, long long edge) const { return u > v; }")
    >>> offsets = triangle.xp.zeros(4, dtype="int64")
    >>> columns = triangle.xp.zeros(triangle.num_edges, dtype="int32")
    >>> select_edges(triangle, larger, offsets=offsets, columns=columns).tolist()
    [0, 2, 3, 3]
    >>> sorted(columns[0:2].tolist()), columns[2:3].tolist()
    ([1, 2], [2])
    """
    xp = graph.xp
    counts = neighbor_reduce(graph, Functor(_COUNT, filename="<select_edges count>", keep=keep), dtype=numpy.int32)
    offsets[0] = 0
    offsets[1:] = xp.cumsum(counts, dtype=numpy.int64)
    advance(graph, None, AdvanceFunctor(cond=_LIST, filename="<select_edges list>", keep=keep, offsets=offsets,
                                        columns=columns, counts=counts))
    return offsets
