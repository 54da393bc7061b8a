"""advance: from a frontier's current level to its neighbours, calling the
user's cond(src, dst, edge, rank, out_idx, iteration) and, where it holds,
apply(src, dst, edge, rank, out_idx, iteration); the accepted destinations
are appended to a frontier's next level. One file per strategy: push over
a level (segments.py), push over every edge (lbs.py), pull (pull.py)."""
from .glue import AdvanceFunctor
from .lbs import advance_all_edges
from .pull import advance_pull
from .segments import advance_level


def advance(graph, frontier, op, *, out=None, iteration=0, unique=False, count=None):
    """Visits the out-edges of `frontier`'s current level (None: every edge of
    the graph) with the user functor `op`, and appends each destination where
    cond held to `out`'s next level (out=None: no output; out may be
    `frontier` itself). unique: append a destination at most once a level (op
    may then accept it more than once, with no atomics). iteration: an int, or
    a loop's iteration counter on the device. count: visit only the level's
    first `count` vertices (a DeviceCount), so that a decision on the device
    can skip the operator (count 0) at the cost of an empty launch. Queued on
    the current stream; nothing waits."""
    if frontier is None:
        advance_all_edges(graph, op, out, iteration, unique)
    else:
        advance_level(graph, frontier, op, out, iteration, unique, count)


__all__ = ["AdvanceFunctor", "advance", "advance_pull"]
