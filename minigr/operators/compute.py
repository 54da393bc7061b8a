"""compute: the user's op(vertex, iteration) on every vertex of a frontier's
current level, or of the graph."""
from ..transforms import Functor, transform
from .iteration import iteration_capture

_LEVEL = "void operator()(long long i) const { op(frontier.vertex(i), minigr::value_of(iteration)); }"
_ALL = "void operator()(long long v) const { op((int)v, minigr::value_of(iteration)); }"


def compute(graph, frontier, op, *, iteration=0, count=None):
    """Calls op(vertex, iteration) for each vertex of `frontier`'s current level
    (None: every vertex). count (every vertex only): vertices [0, count) alone,
    a DeviceCount, so that a decision on the device can skip the operator (0)."""
    if frontier is None:
        transform(graph.num_vertices if count is None else count,
                  Functor(_ALL, filename="<compute>", op=op, iteration=iteration_capture(iteration)))
    else:
        transform(frontier.size, Functor(_LEVEL, filename="<compute>", op=op, frontier=frontier.view,
                                         iteration=iteration_capture(iteration)))
