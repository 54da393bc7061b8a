"""Push advance over every edge, load-balanced over edges by merge path over
the graph's rows (its partition found once): out_idx is the edge's index."""
from ...transforms import Functor, lbs_transform
from .glue import HEADERS, captures, output_kind

_EDGE = """__device__ void operator()(long long edge, long long src, long long rank) const {
    minigr::visit_edge<%s>(*this, (int)src, edge, rank, edge);
}"""


def advance_all_edges(graph, op, out, iteration, unique):
    edge = Functor(_EDGE % output_kind(out, unique), filename="<advance push>", headers=HEADERS,
                   **captures(graph, op, out, iteration))
    lbs_transform(graph.row_offsets, edge, graph.num_edges, graph.row_partition)
