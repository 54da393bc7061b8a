"""Push advance over a frontier's current level: a segment per vertex (its
out-edges), walked by a group of threads, a warp or a block by size, in one
kernel on a fixed grid whose size the level's count on the device does not change."""
from ...transforms import Functor, segment_transform
from ..groups import group_size
from .glue import HEADERS, captures, output_kind

_BOUNDS = """__device__ void operator()(long long s, long long& begin, long long& end) const {
    minigr::out_edges(*this, frontier.vertex(s), begin, end);
}"""
_EDGE = """__device__ void operator()(long long edge, long long s, long long rank) const {
    minigr::visit_edge<%s>(*this, frontier.vertex(s), edge, rank, -1);
}"""
# Appends to `out` gathered per block (see frontier.h): each block's pass opens and closes them.
_PASS = """
__device__ void block_open() const { out.open_staged(); }
__device__ void block_close() const { out.close_staged(); }"""


def advance_level(graph, frontier, op, out, iteration, unique, count):
    """out_idx is -1; the order of appends is unspecified."""
    bounds = Functor(_BOUNDS, filename="<advance bounds>", headers=HEADERS, frontier=frontier.view,
                     row_offsets=graph.row_offsets)
    staged = out is not None
    edge = Functor(_EDGE % output_kind(out, unique, staged) + (_PASS if staged else ""), filename="<advance push>",
                   headers=HEADERS, frontier=frontier.view, **captures(graph, op, out, iteration))
    segment_transform(frontier.size if count is None else count, bounds, edge, group_size(graph), graph.max_out_degree)
