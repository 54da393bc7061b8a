"""advance: from a frontier to its neighbours, calling the user's
cond(src, dst, edge, rank, out_idx, iteration) and, where it holds,
apply(src, dst, edge, rank, out_idx, iteration). One file per strategy."""
from ..edges import THREAD_MAPPED_MAX_DEGREE
from .lbs import advance_lbs
from .pull import advance_pull
from .thread_mapped import advance_thread_mapped

STRATEGIES = {"lbs": advance_lbs, "thread_mapped": advance_thread_mapped}
# Thread-mapped when no vertex has over THREAD_MAPPED_MAX_DEGREE out-edges and
# the frontier's edges (bounded by vertices x max degree) fit this.
THREAD_MAPPED_MAX_EDGES = 1 << 22


def advance(graph, frontier, op, *, iteration=0, output=True, idempotent=False, strategy=None):
    """Visits the out-edges of `frontier` (a Frontier, or None for every vertex)
    with the user functor `op`. Returns the Frontier of destinations where cond
    held, or None when output=False (skips writing it). With idempotent=True, op
    may accept a destination more than once (no atomics needed) and the output
    is uniquified. strategy: "lbs" (load-balanced over edges, output in edge
    order), "thread_mapped" (a thread per vertex, output order unspecified), or
    None to pick thread_mapped for small frontiers of low-degree graphs."""
    if strategy is None:
        small = (frontier is not None and graph.max_out_degree <= THREAD_MAPPED_MAX_DEGREE
                 and len(frontier) * graph.max_out_degree <= THREAD_MAPPED_MAX_EDGES)
        strategy = "thread_mapped" if small else "lbs"
    if strategy not in STRATEGIES or (frontier is None and strategy != "lbs"):
        raise ValueError(f"strategy must be one of {sorted(STRATEGIES)} (lbs over all vertices), got {strategy!r}")
    return STRATEGIES[strategy](graph, frontier, op, iteration=iteration, output=output, idempotent=idempotent)


__all__ = ["advance", "advance_pull"]
