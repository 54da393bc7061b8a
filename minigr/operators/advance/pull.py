"""Pull advance: every vertex that `wanted` names looks through its
in-neighbours and stops at the first where cond holds; a thread per vertex."""
from ...transforms import Functor, transform
from .glue import HEADERS, captures, output_kind

_VERTEX = """__device__ void operator()(long long dst) const {
    minigr::pull_vertex<%s>(*this, (int)dst);
}"""


def advance_pull(graph, op, wanted, *, out=None, iteration=0, count=None):
    """For each vertex dst where wanted(dst) holds (a Functor with `bool
    operator()(int v) const`, e.g. "not visited yet"), looks through its
    in-edges (graph.reverse(): `edge` indexes the reverse graph's arrays) and
    calls op.cond(src, dst, edge, rank, dst, iteration), then op.apply, on the
    first where cond holds; op.cond decides which sources are active (e.g. "at
    the current depth"). Appends each dst so reached to `out`'s next level.
    count: look at vertices [0, count) only (a DeviceCount; default all), so
    that a decision on the device can skip the operator (count 0)."""
    reverse = graph.reverse()
    vertex = Functor(_VERTEX % output_kind(out, False), filename="<advance pull>", headers=HEADERS,
                     wanted=wanted, in_offsets=reverse.row_offsets, in_sources=reverse.col_indices,
                     **captures(graph, op, out, iteration))
    transform(graph.num_vertices if count is None else count, vertex)
