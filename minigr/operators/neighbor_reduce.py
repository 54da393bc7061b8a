"""neighbor_reduce: per vertex, reduce op(vertex, neighbor, edge) over its out-
or in-neighbours: load-balanced, a scan of the degrees (or the row offsets for
every vertex) and a segmented reduction; or, on low-degree graphs, a thread
per vertex looping over its edges."""
import numpy

from ..transforms import Functor, segreduce_transform, transform
from ..transforms.api import reduction
from ..transforms.functor import c_type
from .edges import frontier_edges

_THREAD = """void operator()(long long i) const {
    int v = VERTEX;
    T acc = identity;
    for (long long edge = row_offsets[v]; edge < row_offsets[v + 1]; ++edge)
        acc = combine(acc, (T)op(v, col_indices[edge], edge));
    out[i] = acc;
}"""
# Thread per vertex when no vertex has more edges than this.
THREAD_MAPPED_MAX_DEGREE = 64
_VALUE = """T operator()(long long idx, long long seg, long long rank) const {
    VERTEX_AND_EDGE
    return op(v, col_indices[edge], edge);
}"""


def neighbor_reduce(graph, op, *, frontier=None, direction="out", reduce="sum", identity=None,
                    dtype=numpy.float64, strategy=None):
    """For each vertex of `frontier` (None: every vertex, in id order), the
    reduction (`reduce`: "sum", "min", "max" or a C expression in a and b with
    its identity) of op(vertex, neighbor, edge) over its out-neighbours, or its
    in-neighbours with direction="in" (then `edge` indexes graph.reverse()).
    Returns an array aligned with the frontier; identity where there are none.
    strategy: "lbs", "thread_mapped", or None for thread_mapped when no vertex
    has over THREAD_MAPPED_MAX_DEGREE edges."""
    if direction not in ("out", "in"):
        raise ValueError(f"direction must be 'out' or 'in', got {direction!r}")
    g = graph if direction == "out" else graph.reverse()
    if strategy is None:
        strategy = "thread_mapped" if g.max_out_degree <= THREAD_MAPPED_MAX_DEGREE else "lbs"
    if strategy not in ("lbs", "thread_mapped"):
        raise ValueError(f"strategy must be 'lbs' or 'thread_mapped', got {strategy!r}")
    ctype = c_type(dtype)
    if strategy == "thread_mapped":
        combine, identity = reduction(reduce, identity, dtype)
        n = g.num_vertices if frontier is None else len(frontier)
        out = g.xp.empty(n, dtype=dtype)
        captures = dict(op=op, combine=combine, identity=identity, out=out, row_offsets=g.row_offsets,
                        col_indices=g.col_indices)
        vertex = "(int)i"
        if frontier is not None:
            captures["frontier"], vertex = frontier.ids, "frontier[i]"
        transform(n, Functor(_THREAD.replace("T ", ctype + " ").replace("(T)", f"({ctype})").replace("VERTEX", vertex),
                             filename="<neighbor_reduce thread-mapped>", **captures))
        return out
    offsets, total, captures, vertex_and_edge = frontier_edges(g, frontier, "v")
    captures["op"] = op
    source = _VALUE.replace("T ", ctype + " ", 1).replace("VERTEX_AND_EDGE", vertex_and_edge)
    return segreduce_transform(offsets, Functor(source, filename="<neighbor_reduce>", **captures), op=reduce,
                               identity=identity, dtype=dtype, total=total)
