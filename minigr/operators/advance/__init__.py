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
    """Visit the out-edges of a frontier's current level with an advance functor.

    A traversal's push step: for each out-edge src -> dst of the level's vertices (or of
    every vertex), ``op.cond(src, dst, edge, rank, out_idx, iteration)`` says whether it
    is taken, ``op.apply(...)`` runs where it is, and each destination taken is appended
    to `out`'s next level, in no set order. A level's vertices are walked by a group of
    threads, a warp or a block by degree; every edge, load-balanced by merge path over the
    graph's rows. Queued on the current stream; nothing waits.

    Parameters
    ----------
    graph : Graph
        The graph whose out-edges are visited.
    frontier : Frontier or None
        Its current level's out-edges are visited (``out_idx`` is then -1); None: every
        edge of the graph (``out_idx`` is the edge's index).
    op : AdvanceFunctor or Functor
        Defines ``cond`` and ``apply``; one without either is refused (a MinigrError).
    out : Frontier, optional
        Receives the destinations taken in its next level; may be `frontier` itself.
        None: no output.
    iteration : int or array, default 0
        What cond and apply see as ``iteration``: an int, or a loop's counter on the
        device (``loop.iteration``).
    unique : bool, default False
        Append a destination at most once a level, so that op may accept it more than
        once, with no atomics.
    count : DeviceCount, optional
        Visit only the level's first `count` vertices, so that a decision on the device
        can skip the operator (count 0) at the cost of an empty launch. Used with a
        frontier only.

    Examples
    --------
    One level of BFS, from vertex 0:

    >>> import minigr
    >>> from minigr.frontier import Frontier
    >>> from minigr.operators import AdvanceFunctor, advance
    >>> graph = minigr.Graph.from_edges([0, 0, 1, 2], [1, 2, 3, 3])
    >>> depth = graph.xp.asarray([0, -1, -1, -1], dtype="int32")
    >>> visit = AdvanceFunctor(cond="return atomicCAS(&depth[dst], -1, iteration + 1) == -1;", depth=depth)
    >>> frontier = Frontier.from_ids(0, graph.num_vertices, graph.device)
    >>> advance(graph, frontier, visit, out=frontier, iteration=0)
    >>> frontier.next_level()
    >>> sorted(frontier.wait_ids().tolist()), depth.tolist()
    ([1, 2], [0, 1, 1, -1])
    """
    if frontier is None:
        advance_all_edges(graph, op, out, iteration, unique)
    else:
        advance_level(graph, frontier, op, out, iteration, unique, count)


__all__ = ["AdvanceFunctor", "advance", "advance_pull"]
