"""filter: keep the vertices of a frontier's current level where the user's
cond(vertex, iteration) holds, appending them to a frontier's next level."""
from ..transforms import Functor, transform
from .iteration import iteration_capture

_KEEP = """void operator()(long long i) const {
    const int v = frontier.vertex(i);
    if (op.cond(v, minigr::value_of(iteration))) out.%s(v, 0);
}"""
_KEEP_ALL = "bool cond(int v, int iteration) const { return true; }"


def filter_frontier(frontier, op=None, *, out, iteration=0, unique=False):
    """Keep the vertices of a frontier's current level where the user's cond holds.

    Appends to `out`'s next level each vertex of `frontier`'s current level for which
    ``op.cond(vertex, iteration)`` holds (every vertex without op), in no set order: a
    level pruned, or copied. Queued on the current stream; nothing waits.

    Parameters
    ----------
    frontier : Frontier
        Its current level is filtered.
    op : Functor, optional
        Defines ``bool cond(int vertex, int iteration) const``. None: keep every vertex.
    out : Frontier
        Receives the vertices kept in its next level; may be `frontier` itself.
    iteration : int or array, default 0
        What cond sees as iteration: an int, or a loop's counter on the device.
    unique : bool, default False
        Append each vertex at most once a level.

    Examples
    --------
    >>> import minigr
    >>> from minigr.frontier import Frontier
    >>> from minigr.operators import filter_frontier
    >>> from minigr.transforms import Functor
    >>> frontier = Frontier.from_ids([0, 1, 2, 3, 4], 5)
    >>> even = Functor("bool cond(int v, int iteration) const { return v % 2 == 0; }")
    >>> filter_frontier(frontier, even, out=frontier)
    >>> frontier.next_level()
    >>> sorted(frontier.wait_ids().tolist())
    [0, 2, 4]
    """
    op = op or Functor(_KEEP_ALL, filename="<keep all>")
    transform(frontier.size, Functor(_KEEP % ("append_unique" if unique else "append"), filename="<filter>",
                                     op=op, frontier=frontier.view, out=out.view,
                                     iteration=iteration_capture(iteration)))
