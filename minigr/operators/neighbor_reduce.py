"""neighbor_reduce: per vertex, reduce op(vertex, neighbor, edge) over its out-
or in-neighbours: a scan of the degrees (or the row offsets for every vertex)
and a segmented reduction."""
import numpy

from ..transforms import Functor, segreduce_transform
from ..transforms.functor import c_type
from .edges import frontier_edges

_VALUE = """T operator()(long long idx, long long seg, long long rank) const {
    VERTEX_AND_EDGE
    return op(v, col_indices[edge], edge);
}"""


def neighbor_reduce(graph, op, *, frontier=None, direction="out", reduce="sum", identity=None,
                    dtype=numpy.float64):
    """For each vertex of `frontier` (None: every vertex, in id order), the
    reduction (`reduce`: "sum", "min", "max" or a C expression in a and b with
    its identity) of op(vertex, neighbor, edge) over its out-neighbours, or its
    in-neighbours with direction="in" (then `edge` indexes graph.reverse()).
    Returns an array aligned with the frontier; identity where there are none."""
    if direction not in ("out", "in"):
        raise ValueError(f"direction must be 'out' or 'in', got {direction!r}")
    g = graph if direction == "out" else graph.reverse()
    offsets, total, captures, vertex_and_edge = frontier_edges(g, frontier, "v")
    captures["op"] = op
    source = _VALUE.replace("T ", c_type(dtype) + " ", 1).replace("VERTEX_AND_EDGE", vertex_and_edge)
    return segreduce_transform(offsets, Functor(source, filename="<neighbor_reduce>", **captures), op=reduce,
                               identity=identity, dtype=dtype, total=total)
