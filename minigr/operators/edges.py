"""The edges of a frontier as segments for the load-balanced transforms: one
segment per frontier vertex, from a scan of their degrees, or the graph's row
offsets themselves over all vertices; and when a thread (or a group of threads)
per vertex walks them better."""
from ..transforms import Functor, scan_transform

# advance and neighbor_reduce walk edges thread-mapped only when no vertex has
# more out-edges than this: beyond it, load balancing over edges pays.
THREAD_MAPPED_MAX_DEGREE = 64

_DEGREE = """long long operator()(long long i) const {
    int v = frontier[i];
    return row_offsets[v + 1] - row_offsets[v];
}"""


def frontier_edges(graph, frontier, vertex):
    """(offsets, total, partition, captures, C code) for lbs/segreduce over the
    out-edges of `frontier` (None: every vertex, with the graph's partition of
    its rows; else partition None). The code, run in an item functor with
    (idx, seg, rank), declares `int <vertex>` and `long long edge`; the captures
    are what it reads."""
    captures = dict(row_offsets=graph.row_offsets, col_indices=graph.col_indices)
    if frontier is None:
        return (graph.row_offsets, graph.num_edges, graph.row_partition, captures,
                f"int {vertex} = (int)seg; long long edge = idx;")
    ids = frontier.ids
    offsets, total = scan_transform(len(ids), Functor(_DEGREE, filename="<frontier degrees>", frontier=ids,
                                                      row_offsets=graph.row_offsets))
    captures["frontier"] = ids
    return (offsets, total, None, captures,
            f"int {vertex} = frontier[seg]; long long edge = row_offsets[{vertex}] + rank;")
