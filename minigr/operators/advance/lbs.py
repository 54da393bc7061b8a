"""Push advance, load-balanced over edges: scan the frontier's out-degrees, then
one lbs item per edge. Over all vertices (frontier=None) the row offsets serve as
the scan."""
import numpy

from ...frontier import Frontier
from ...transforms import Functor, lbs_transform
from ..edges import frontier_edges
from ..filter import filter_frontier

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
    offsets, total, partition, captures, source_and_edge = frontier_edges(graph, frontier, "src")
    captures.update(op=op, iteration=numpy.int32(iteration))
    writes = "out[idx] = keep ? dst : -1;" if output else ""
    if output:
        captures["out"] = graph.xp.empty(total, dtype=numpy.int32)
    lbs_transform(offsets, Functor(_EDGE.replace("SOURCE_AND_EDGE", source_and_edge).replace("OUTPUT", writes),
                                   filename="<advance push>", **captures), total, partition)
    if not output:
        return None
    raw = Frontier(graph.num_vertices, ids=captures["out"])
    return filter_frontier(raw, uniquify=idempotent)
