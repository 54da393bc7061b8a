"""neighbor_reduce: per vertex, reduce op(vertex, neighbor, edge) over its out-
or in-neighbours: a scan of the degrees (or the row offsets for every vertex)
and a segmented reduction."""
import numpy

from ..transforms import Functor, scan_transform, segreduce_transform
from ..transforms.functor import c_type

_DEGREE = """long long operator()(long long i) const {
    int v = frontier[i];
    return row_offsets[v + 1] - row_offsets[v];
}"""
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
    captures = dict(op=op, row_offsets=g.row_offsets, col_indices=g.col_indices)
    source = _VALUE.replace("T ", c_type(dtype) + " ", 1)
    if frontier is None:
        offsets, total = g.row_offsets, g.num_edges
        source = source.replace("VERTEX_AND_EDGE", "int v = (int)seg; long long edge = idx;")
    else:
        ids = frontier.ids
        offsets, total = scan_transform(len(ids), Functor(_DEGREE, filename="<reduce degrees>", frontier=ids,
                                                          row_offsets=g.row_offsets))
        captures["frontier"] = ids
        source = source.replace("VERTEX_AND_EDGE", "int v = frontier[seg]; long long edge = row_offsets[v] + rank;")
    return segreduce_transform(offsets, Functor(source, filename="<neighbor_reduce>", **captures), op=reduce,
                               identity=identity, dtype=dtype, total=total)
