"""compute: the user's op(vertex, iteration) on every vertex of a frontier's
current level, or of the graph."""
from ..transforms import Functor, transform
from .iteration import iteration_capture

_LEVEL = "void operator()(long long i) const { op(frontier.vertex(i), minigr::value_of(iteration)); }"
_ALL = "void operator()(long long v) const { op((int)v, minigr::value_of(iteration)); }"


def compute(graph, frontier, op, *, iteration=0, count=None):
    """Call the user's op(vertex, iteration) on each vertex of a frontier's level, or of the graph.

    For per-vertex work beside a traversal (a reset, an update from a level); op's
    effects are its writes to its captures. Queued on the current stream; nothing waits.

    Parameters
    ----------
    graph : Graph
        The graph, whose vertex count is walked when `frontier` is None.
    frontier : Frontier or None
        Its current level's vertices; None: every vertex.
    op : Functor
        ``void operator()(int vertex, int iteration) const``.
    iteration : int or array, default 0
        What op sees as iteration: an int, or a loop's counter on the device.
    count : DeviceCount, optional
        Every vertex only: vertices [0, count) alone, so that a decision on the device can
        skip the operator (0).

    Examples
    --------
    >>> import minigr
    >>> from minigr.frontier import Frontier
    >>> from minigr.operators import compute
    >>> from minigr.transforms import Functor
    >>> graph = minigr.Graph.from_edges([0, 0, 1, 2], [1, 2, 3, 3])
    >>> score = graph.xp.zeros(4, dtype="int32")
    >>> op = Functor("void operator()(int v, int iteration) const { score[v] += 10 * iteration + v; }", score=score)
    >>> compute(graph, None, op, iteration=1)
    >>> compute(graph, Frontier.from_ids([1, 3], graph.num_vertices, graph.device), op, iteration=2)
    >>> score.tolist()
    [10, 32, 12, 36]
    """
    if frontier is None:
        transform(graph.num_vertices if count is None else count,
                  Functor(_ALL, filename="<compute>", op=op, iteration=iteration_capture(iteration)))
    else:
        transform(frontier.size, Functor(_LEVEL, filename="<compute>", op=op, frontier=frontier.view,
                                         iteration=iteration_capture(iteration)))
