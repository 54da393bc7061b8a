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
    """Appends to `out`'s next level (out may be `frontier`) each vertex of
    `frontier`'s current level for which op.cond(vertex, iteration) holds (every
    vertex without op); unique: each vertex at most once a level. The order
    of appends is unspecified."""
    op = op or Functor(_KEEP_ALL, filename="<keep all>")
    transform(frontier.size, Functor(_KEEP % ("append_unique" if unique else "append"), filename="<filter>",
                                     op=op, frontier=frontier.view, out=out.view,
                                     iteration=iteration_capture(iteration)))
