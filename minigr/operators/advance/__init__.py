"""advance: from a frontier to its neighbours, calling the user's
cond(src, dst, edge, rank, out_idx, iteration) and, where it holds,
apply(src, dst, edge, rank, out_idx, iteration). One file per strategy."""
from .pull import advance_pull
from .push import advance

__all__ = ["advance", "advance_pull"]
