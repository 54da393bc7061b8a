"""A two-level priority queue: split a frontier into near and far by a user
score and a threshold (delta-stepping's buckets, Gunrock style)."""
from ..frontier import Frontier
from ..transforms import Functor, compact_transform
import numpy

_SIDE = "bool operator()(long long i) const { return (op(ids[i]) < threshold) == near; }"
_WRITE = "void operator()(long long dest, long long src) const { out[dest] = ids[src]; }"


def split_near_far(frontier, op, threshold):
    """(near, far): the vertices whose op(vertex) score is below `threshold`,
    and the rest, each in frontier order."""
    ids = frontier.ids
    parts = []
    for near in (True, False):
        out = frontier.xp.empty(len(ids), dtype=numpy.int32)
        _, count = compact_transform(len(ids), Functor(_SIDE, filename="<split>", op=op, ids=ids,
                                                       threshold=float(threshold), near=near),
                                     Functor(_WRITE, filename="<split write>", ids=ids, out=out))
        parts.append(Frontier(frontier.num_vertices, ids=out[:count]))
    return tuple(parts)
