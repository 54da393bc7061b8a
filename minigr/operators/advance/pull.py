"""Pull advance: every vertex that `wanted` names looks through its
in-neighbours and stops at the first where cond holds; a thread per vertex."""
from ...transforms import Functor, transform
from .glue import HEADERS, captures, output_kind

_VERTEX = """__device__ void operator()(long long dst) const {
    minigr::pull_vertex<%s>(*this, (int)dst);
}"""


def advance_pull(graph, op, wanted, *, out=None, iteration=0, count=None):
    """Pull: each wanted vertex looks through its in-edges for the first one taken.

    A traversal's pull step (BFS picks push or pull each level): for each vertex dst where
    ``wanted(dst)`` holds (e.g. "not visited yet"), a thread calls ``op.cond(src, dst,
    edge, rank, dst, iteration)`` on its in-edges (graph.reverse(): `edge` indexes the
    reverse graph's arrays), and ``op.apply`` on the first where cond holds, and stops
    there; cond decides which sources are active (e.g. "at the current depth"). Queued on
    the current stream; nothing waits.

    Parameters
    ----------
    graph : Graph
        The graph; its reverse (CSC) is built on first use.
    op : AdvanceFunctor or Functor
        Defines ``cond`` and ``apply``, as for `advance`.
    wanted : Functor
        ``bool operator()(int v) const``: whether vertex v looks.
    out : Frontier, optional
        Receives each dst so reached in its next level. None: no output.
    iteration : int or array, default 0
        What cond and apply see as ``iteration``: an int, or a loop's counter on the
        device.
    count : DeviceCount, optional
        Look at vertices [0, count) only (default all), so that a decision on the device
        can skip the operator (count 0).

    Examples
    --------
    BFS's second level, pulled:

    >>> import minigr
    >>> from minigr.frontier import Frontier
    >>> from minigr.operators import AdvanceFunctor, advance_pull
    >>> from minigr.transforms import Functor
    >>> graph = minigr.Graph.from_edges([0, 0, 1, 2], [1, 2, 3, 3])
    >>> depth = graph.xp.asarray([0, 1, 1, -1], dtype="int32")
    >>> unvisited = Functor("bool operator()(int v) const { return depth[v] == -1; }", depth=depth)
    >>> step = AdvanceFunctor(cond="return depth[src] == iteration;", apply="depth[dst] = iteration + 1;",
    ...                       depth=depth)
    >>> reached = Frontier(graph.num_vertices, graph.device)
    >>> advance_pull(graph, step, unvisited, out=reached, iteration=1)
    >>> reached.next_level()
    >>> reached.wait_ids().tolist(), depth.tolist()
    ([3], [0, 1, 1, 2])
    """
    reverse = graph.reverse()
    vertex = Functor(_VERTEX % output_kind(out, False), filename="<advance pull>", headers=HEADERS,
                     wanted=wanted, in_offsets=reverse.row_offsets, in_sources=reverse.col_indices,
                     **captures(graph, op, out, iteration))
    transform(graph.num_vertices if count is None else count, vertex)
