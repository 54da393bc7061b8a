"""neighbor_reduce: per vertex, reduce op(vertex, neighbor, edge) over its out-
or in-neighbours: load-balanced, a scan of the degrees (or the row offsets for
every vertex) and a segmented reduction; or, on low-degree graphs, a group of
threads per vertex looping over its edges."""
import math

import numpy

from ..transforms import Functor, segreduce_transform, transform
from ..transforms.api import reduction
from ..transforms.functor import c_type
from .edges import THREAD_MAPPED_MAX_DEGREE, frontier_edges

# GROUP consecutive threads take one vertex: their loads of its edges coalesce,
# and a shuffle combines their partial results.
_THREAD = """void operator()(long long i) const {
    const long long k = i / GROUP;
    const int lane = (int)(i % GROUP);
    T acc = identity;
    if (k < n) {
        int v = VERTEX;
        for (long long edge = row_offsets[v] + lane; edge < row_offsets[v + 1]; edge += GROUP)
            acc = combine(acc, (T)op(v, col_indices[edge], edge));
    }
    SHUFFLE
    if (k < n && lane == 0) out[k] = acc;
}"""
_SHUFFLE = "for (int d = GROUP / 2; d > 0; d >>= 1) acc = combine(acc, __shfl_xor_sync(0xffffffffu, acc, d, GROUP));"
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
    strategy: "lbs", "thread_mapped" (a group of threads per vertex: one on the
    CPU, on the GPU a power of two near half the mean degree, at most a warp),
    or None for thread_mapped when no vertex has over THREAD_MAPPED_MAX_DEGREE
    edges."""
    if direction not in ("out", "in"):
        raise ValueError(f"direction must be 'out' or 'in', got {direction!r}")
    g = graph if direction == "out" else graph.reverse()
    if strategy is None:
        strategy = "thread_mapped" if g.max_out_degree <= THREAD_MAPPED_MAX_DEGREE else "lbs"
    if strategy not in ("lbs", "thread_mapped"):
        raise ValueError(f"strategy must be 'lbs' or 'thread_mapped', got {strategy!r}")
    if strategy == "thread_mapped":
        return _thread_mapped(g, op, frontier, reduce, identity, dtype)
    offsets, total, partition, captures, vertex_and_edge = frontier_edges(g, frontier, "v")
    captures["op"] = op
    source = _VALUE.replace("T ", c_type(dtype) + " ", 1).replace("VERTEX_AND_EDGE", vertex_and_edge)
    return segreduce_transform(offsets, Functor(source, filename="<neighbor_reduce>", **captures), op=reduce,
                               identity=identity, dtype=dtype, total=total, partition=partition)


def _group_size(graph):
    """Threads per vertex: the power of two nearest half the mean degree, 1 to 32
    (1 on the CPU). Measured on an H100: 2 on grid_22 (mean 3), 8 on rgg_n22 (14.5)."""
    if graph.device == "cpu" or graph.num_edges < 2 * max(graph.num_vertices, 1):
        return 1
    return min(32, 2 ** round(math.log2(graph.num_edges / graph.num_vertices / 2)))


def _thread_mapped(g, op, frontier, reduce, identity, dtype):
    """neighbor_reduce with a group of threads per vertex (see _group_size)."""
    combine, identity = reduction(reduce, identity, dtype)
    n = g.num_vertices if frontier is None else len(frontier)
    out = g.xp.empty(n, dtype=dtype)
    captures = dict(op=op, combine=combine, identity=identity, out=out, row_offsets=g.row_offsets,
                    col_indices=g.col_indices, n=numpy.int64(n))
    vertex = "(int)k"
    if frontier is not None:
        captures["frontier"], vertex = frontier.ids, "frontier[k]"
    group = _group_size(g)
    items = n if group == 1 else -(-n * group // 32) * 32  # whole warps: every lane reaches the shuffle
    transform(items, Functor(thread_mapped_source(c_type(dtype), vertex, group),
                             filename="<neighbor_reduce thread-mapped>", **captures))
    return out


def thread_mapped_source(ctype, vertex, group):
    """The thread-mapped functor for values of C type `ctype`, the vertex of
    position k given by the C expression `vertex`, `group` threads per vertex."""
    return (_THREAD.replace("T ", ctype + " ").replace("(T)", f"({ctype})").replace("VERTEX", vertex)
            .replace("SHUFFLE", _SHUFFLE if group > 1 else "").replace("GROUP", str(group)))
