"""Push advance, load-balanced over edges: scan the frontier's out-degrees, then
one lbs item per edge. Over all vertices (frontier=None) the row offsets serve as
the scan."""
import numpy

from ...frontier import Frontier
from ...transforms import Functor, lbs_transform, scan_transform
from ..filter import filter_frontier

_DEGREE = """long long operator()(long long i) const {
    int v = frontier[i];
    return row_offsets[v + 1] - row_offsets[v];
}"""

# One item per edge: the source is frontier[seg]; over all vertices it is seg
# itself, and the item is the edge.
_EDGE = """void operator()(long long idx, long long seg, long long rank) const {
    SOURCE_AND_EDGE
    int dst = col_indices[edge];
    bool keep = op.cond(src, dst, edge, rank, idx, iteration);
    if (keep) op.apply(src, dst, edge, rank, idx, iteration);
    OUTPUT
}"""


def advance_lbs(graph, frontier, op, *, iteration, output, idempotent):
    """Output in edge order; out_idx is the edge's position in that order."""
    source_and_edge = ("int src = (int)seg; long long edge = idx;" if frontier is None
                       else "int src = frontier[seg]; long long edge = row_offsets[src] + rank;")
    writes = "out[idx] = keep ? dst : -1;" if output else ""
    captures = dict(op=op, row_offsets=graph.row_offsets, col_indices=graph.col_indices,
                    iteration=numpy.int32(iteration))
    if frontier is None:
        offsets, total = graph.row_offsets, graph.num_edges
    else:
        ids = frontier.ids
        offsets, total = scan_transform(len(ids), Functor(_DEGREE, filename="<advance degrees>", frontier=ids,
                                                          row_offsets=graph.row_offsets))
        captures["frontier"] = ids
    if output:
        captures["out"] = graph.xp.empty(total, dtype=numpy.int32)
    lbs_transform(offsets, Functor(_EDGE.replace("SOURCE_AND_EDGE", source_and_edge).replace("OUTPUT", writes),
                                   filename="<advance push>", **captures), total)
    if not output:
        return None
    raw = Frontier(graph.num_vertices, ids=captures["out"])
    return filter_frontier(raw, uniquify=idempotent)
