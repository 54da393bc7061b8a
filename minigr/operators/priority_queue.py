"""A two-level priority queue: the vertices of a frontier's current level
split into near and far by a user score and a threshold (delta-stepping's
buckets, Gunrock style)."""
import numpy

from ..transforms import Functor, transform

_SIDE = """void operator()(long long i) const {
    const int v = frontier.vertex(i);
    if (op(v) < minigr::value_of(threshold)) near.append_unique(v, 0); else far.append_unique(v, 0);
}"""


def split_near_far(frontier, op, threshold, *, near, far):
    """Appends each vertex of `frontier`'s current level to `near`'s next level
    when its op(vertex) score is below `threshold` (a float, or a one-element
    float64 array on the device), else to `far`'s; each at most once a level."""
    if not hasattr(threshold, "dtype"):
        threshold = numpy.float64(threshold)
    transform(frontier.size, Functor(_SIDE, filename="<split>", op=op, frontier=frontier.view, near=near.view,
                                     far=far.view, threshold=threshold))
