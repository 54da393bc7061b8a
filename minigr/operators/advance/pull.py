"""Pull advance: each unvisited vertex scans its in-neighbours for one in the
active frontier (a bitmap) and stops at the first where cond holds."""
import numpy

from ...frontier import Frontier
from ...transforms import Functor, compact_transform, transform

_PULL = """void operator()(long long i) const {
    int dst = unvisited[i];
    int found = -1;
    for (long long edge = in_offsets[dst]; edge < in_offsets[dst + 1]; ++edge) {
        int src = in_sources[edge];
        if (!((active[src >> 5] >> (src & 31)) & 1u)) continue;
        long long rank = edge - in_offsets[dst];
        if (op.cond(src, dst, edge, rank, i, iteration)) {
            op.apply(src, dst, edge, rank, i, iteration);
            found = dst;
            break;
        }
    }
    out[i] = found;
}"""
_FOUND = "bool operator()(long long i) const { return out[i] >= 0; }"
_KEEP = "void operator()(long long dest, long long src) const { kept[dest] = out[src]; }"


def advance_pull(graph, unvisited, active, op, *, iteration=0):
    """For each vertex of `unvisited` (a Frontier), looks through its in-edges
    (graph.reverse(): `edge` indexes the reverse graph's arrays) for a source in
    `active` (a Frontier, used as a bitmap) and calls op.cond, then op.apply on
    the first where cond holds. Returns the Frontier of vertices so reached."""
    reverse = graph.reverse()
    ids = unvisited.ids
    out = graph.xp.empty(len(ids), dtype=numpy.int32)
    transform(len(ids), Functor(_PULL, filename="<advance pull>", op=op, unvisited=ids, out=out,
                                in_offsets=reverse.row_offsets, in_sources=reverse.col_indices,
                                active=active.bitmap, iteration=numpy.int32(iteration)))
    kept = graph.xp.empty(len(ids), dtype=numpy.int32)
    _, count = compact_transform(len(ids), Functor(_FOUND, filename="<pull found>", out=out),
                                 Functor(_KEEP, filename="<pull keep>", out=out, kept=kept))
    return Frontier(graph.num_vertices, ids=kept[:count])
