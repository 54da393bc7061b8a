"""compute: the user's op(vertex, iteration) on every vertex of a frontier."""
import numpy

from ..transforms import Functor, transform

_CALL = "void operator()(long long i) const { op(VERTEX, iteration); }"


def compute(graph, frontier, op, *, iteration=0):
    """Calls op(vertex, iteration) for each vertex of `frontier` (None: every vertex)."""
    if frontier is None:
        transform(graph.num_vertices, Functor(_CALL.replace("VERTEX", "(int)i"), filename="<compute>", op=op,
                                              iteration=numpy.int32(iteration)))
    else:
        ids = frontier.ids
        transform(len(ids), Functor(_CALL.replace("VERTEX", "ids[i]"), filename="<compute>", op=op, ids=ids,
                                    iteration=numpy.int32(iteration)))
