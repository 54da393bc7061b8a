"""filter: compact a frontier, keeping valid ids (>= 0) where the user's
cond(vertex, iteration) holds, optionally removing duplicates."""
import numpy

from ..frontier import Frontier
from ..transforms import Functor, compact_transform

_KEEP = """bool operator()(long long i) const {
    int v = ids[i];
    if (v < 0) return false;
    CONDITION
    UNIQUE
    return true;
}"""
_UNIQUE = "if (atomicOr(&seen[v >> 5], 1u << (v & 31)) & (1u << (v & 31))) return false;"
_WRITE = "void operator()(long long dest, long long src) const { out[dest] = ids[src]; }"


def filter_frontier(frontier, op=None, *, iteration=0, uniquify=False):
    """The frontier's valid ids for which op.cond(vertex, iteration) holds (all
    valid ids without op), in order; with uniquify, each vertex once."""
    ids = frontier.ids
    xp = frontier.xp
    captures = dict(ids=ids)
    condition = ""
    if op is not None:
        captures.update(op=op, iteration=numpy.int32(iteration))
        condition = "if (!op.cond(v, iteration)) return false;"
    if uniquify:
        captures["seen"] = xp.zeros((frontier.num_vertices + 31) // 32, dtype=numpy.uint32)
    source = _KEEP.replace("CONDITION", condition).replace("UNIQUE", _UNIQUE if uniquify else "")
    out = xp.empty(len(ids), dtype=numpy.int32)
    _, count = compact_transform(len(ids), Functor(source, filename="<filter>", **captures),
                                 Functor(_WRITE, filename="<filter write>", ids=ids, out=out))
    return Frontier(frontier.num_vertices, ids=out[:count])
