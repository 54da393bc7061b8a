"""Push advance, one thread per frontier vertex looping over its out-edges,
appending accepted destinations with an atomic counter: one kernel and one
read-back, for small frontiers of low-degree graphs (road networks, meshes),
where launches and round trips, not edges, dominate. Output order is
unspecified; out_idx is -1."""
import numpy

from ...frontier import Frontier
from ...transforms import Functor, transform

_VERTEX = """void operator()(long long i) const {
    int src = frontier[i];
    long long first = row_offsets[src];
    for (long long edge = first; edge < row_offsets[src + 1]; ++edge) {
        int dst = col_indices[edge];
        if (!op.cond(src, dst, edge, edge - first, -1, iteration)) continue;
        op.apply(src, dst, edge, edge - first, -1, iteration);
        OUTPUT
    }
}"""
_APPEND = "out[atomicAdd(&count[0], 1LL)] = dst;"
_APPEND_ONCE = """unsigned bit = 1u << (dst & 31);
        if (atomicOr(&seen[dst >> 5], bit) & bit) continue;
        out[atomicAdd(&count[0], 1LL)] = dst;"""


def advance_thread_mapped(graph, frontier, op, *, iteration, output, idempotent):
    ids, xp = frontier.ids, graph.xp
    captures = dict(op=op, frontier=ids, row_offsets=graph.row_offsets, col_indices=graph.col_indices,
                    iteration=numpy.int32(iteration))
    appends = ""
    if output:
        captures.update(out=xp.empty(min(len(ids) * graph.max_out_degree, graph.num_edges), dtype=numpy.int32),
                        count=xp.zeros(1, dtype=numpy.int64))
        appends = _APPEND
        if idempotent:
            captures["seen"] = xp.zeros((graph.num_vertices + 31) // 32, dtype=numpy.uint32)
            appends = _APPEND_ONCE
    transform(len(ids), Functor(_VERTEX.replace("OUTPUT", appends), filename="<advance thread-mapped>",
                                **captures))
    if not output:
        return None
    return Frontier(graph.num_vertices, ids=captures["out"][:int(captures["count"][0])])
