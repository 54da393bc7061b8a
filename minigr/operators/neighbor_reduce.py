"""neighbor_reduce: per vertex, reduce op(vertex, neighbor, edge) over its out-
or in-neighbours. Over every vertex: load-balanced (a segmented reduction over
the rows, their partition found once), or on low-degree graphs a group of
threads per vertex looping over its edges. Over a frontier's level: a thread,
warp or block per vertex by degree, combining atomically."""
import numbers
from pathlib import Path

import numpy

from ..frontier import HEADER as FRONTIER_HEADER
from ..transforms import Functor, segment_transform, segreduce_transform, transform
from ..transforms.api import reduction
from ..transforms.errors import MinigrError
from ..transforms.functor import c_type
from .groups import group_size

HEADERS = (FRONTIER_HEADER, Path(__file__).parent / "kernels" / "neighbor_reduce.h")
# Over every vertex, a group of threads per vertex when no vertex has more
# edges than this: beyond it, load balancing over edges pays (PageRank's pull
# on an H100: grid_22, at most 4 in-edges, 205 us against 209; rgg_n22, at
# most 37, 809 against 746; with a lane's loads batched, 2026-11-27, rgg_n22
# float32 533 against 518 when raised to 64).
GROUP_MAX_DEGREE = 32

_GROUP = "void operator()(long long i) const { minigr::reduce_group<%d, %s>(*this, i); }"
_VALUE = """%s operator()(long long edge, long long seg, long long rank) const {
    return minigr::edge_value<%s>(*this, edge, seg);
}"""
_IDENTITY = "void operator()(long long i) const { out[frontier.vertex(i)] = identity; }"
_BOUNDS = """void operator()(long long s, long long& begin, long long& end) const {
    const int v = frontier.vertex(s);
    begin = row_offsets[v];
    end = row_offsets[v + 1];
}"""
_COMBINE = """void operator()(long long edge, long long seg, long long rank) const {
    minigr::combine_edge<%s>(*this, edge, seg);
}"""

SMALLEST_FOUND = "a < 0 ? b : b < 0 ? a : a < b ? a : b"  # the smaller of two found (not -1)
_OWN = "void operator()(long long) const { if (own[0] >= 0) out[own[0]] = own[0]; }"


def neighbor_reduce(graph, op, *, frontier=None, out=None, direction="out", reduce="sum", identity=None,
                    dtype=numpy.float64, strategy=None):
    """Per vertex, reduce the user's op(vertex, neighbor, edge) over its out- or in-neighbours.

    out[v], for each vertex v of `frontier`'s current level (None: every vertex), becomes
    the reduction of op(v, neighbor, edge) over v's neighbours, the identity where there
    are none: a pull of ranks, a count, a minimum. Over every vertex it is a segmented
    reduction over the rows, load-balanced by merge path ("lbs"), or on low-degree graphs
    a group of threads per vertex looping over its edges ("thread_mapped"); over a level,
    a thread, warp or block per vertex by degree, combining atomically. Queued on the
    current stream; nothing waits.

    Parameters
    ----------
    graph : Graph
        The graph.
    op : Functor
        ``T operator()(int v, int neighbor, long long edge) const``: the value of one edge.
    frontier : Frontier, optional
        Its current level's vertices are reduced (the others' values in out are left as
        they were). None: every vertex.
    out : array, optional
        One value per vertex, of its own dtype; allocated (of `dtype`) when None.
    direction : {'out', 'in'}, default 'out'
        Out-neighbours, or in-neighbours ("in": `edge` then indexes graph.reverse()).
    reduce : str, default 'sum'
        "sum", "min", "max", or a C expression in a and b (associative and commutative)
        with its `identity`.
    identity : scalar, optional
        The reduction's identity; required for a C expression.
    dtype : dtype, default numpy.float64
        The values' type when out is None: a 4- or 8-byte int or float.
    strategy : {None, 'lbs', 'thread_mapped'}, default None
        Every vertex only: "lbs", "thread_mapped" (a group of threads per vertex: one on
        the CPU, on the GPU a power of two near half the mean degree, at most a warp), or
        None for thread_mapped when no vertex has over GROUP_MAX_DEGREE (32) edges, else lbs.

    Returns
    -------
    array
        `out`: one value per vertex.

    Examples
    --------
    >>> import minigr
    >>> from minigr.operators import neighbor_reduce
    >>> from minigr.transforms import Functor
    >>> graph = minigr.Graph.from_edges([0, 0, 1, 2], [1, 2, 3, 3])
    >>> ids = Functor("double operator()(int v, int u, long long edge) const { return u; }")
    >>> neighbor_reduce(graph, ids).tolist()  # the sum of each vertex's out-neighbours' ids
    [3.0, 3.0, 3.0, 0.0]
    >>> neighbor_reduce(graph, ids, direction="in", reduce="max", identity=-1).tolist()
    [-1.0, 0.0, 0.0, 2.0]
    """
    if direction not in ("out", "in"):
        raise MinigrError(f"direction must be 'out' or 'in', got {direction!r}")
    g = graph if direction == "out" else graph.reverse()
    if out is None:
        out = g.xp.empty(g.num_vertices, dtype=dtype)
    elif out.shape != (g.num_vertices,):
        raise MinigrError(f"out must hold one value per vertex ({g.num_vertices}), got shape {out.shape}")
    ctype = c_type(out.dtype)
    combine, identity = reduction(reduce, identity, out.dtype)
    captures = dict(op=op, row_offsets=g.row_offsets, col_indices=g.col_indices)
    if frontier is not None:
        transform(frontier.size, Functor(_IDENTITY, filename="<neighbor_reduce identity>", out=out,
                                         identity=identity, frontier=frontier.view))
        segment_transform(frontier.size, Functor(_BOUNDS, filename="<neighbor_reduce bounds>", headers=HEADERS,
                                                 frontier=frontier.view, row_offsets=g.row_offsets),
                          Functor(_COMBINE % ctype, filename="<neighbor_reduce>", headers=HEADERS, out=out,
                                  combine=combine, frontier=frontier.view, **captures), group_size(g), g.max_out_degree)
        return out
    if strategy is None:
        strategy = "thread_mapped" if g.max_out_degree <= GROUP_MAX_DEGREE else "lbs"
    if strategy == "lbs":
        return segreduce_transform(g.row_offsets, Functor(_VALUE % (ctype, ctype), filename="<neighbor_reduce>",
                                                          headers=HEADERS, **captures),
                                   op=reduce, identity=identity, total=g.num_edges, partition=g.row_partition, out=out)
    if strategy != "thread_mapped":
        raise MinigrError(f"strategy must be 'lbs' or 'thread_mapped', got {strategy!r}")
    n = g.num_vertices
    group = group_size(g)
    items = n if group == 1 else -(-n * group // 32) * 32  # whole warps: every lane reaches the shuffle
    transform(items, Functor(_GROUP % (group, ctype), filename="<neighbor_reduce thread-mapped>", headers=HEADERS,
                             combine=combine, identity=identity, out=out, n=numpy.int64(n), **captures))
    return out


def smallest_in_neighbour(graph, op, out=None, own=None):
    """Per vertex, the smallest in-neighbour that the user's op picks: a parent, found from labels.

    out[v] becomes the smallest in-neighbour u for which op(v, u, edge) returns u (it
    returns -1 for the others), or -1 where none does: a parent on shortest paths, found
    from the distances (SSSP's parents). Queued on the current stream; nothing waits.

    Parameters
    ----------
    graph : Graph
        The graph; its reverse (CSC) is built on first use.
    op : Functor
        ``int operator()(int v, int u, long long edge) const``: u, or -1 (edge indexes
        graph.reverse()).
    out : array, optional
        One int32 per vertex; allocated when None.
    own : int or array, optional
        The vertex that is its own parent (the source): an int, or where the call is
        replayed (a CUDA graph keeps the values it was recorded with) a one-cell int32
        device array read as it runs (-1: none).

    Returns
    -------
    array
        `out` (int32).

    Examples
    --------
    >>> import minigr
    >>> from minigr.operators import smallest_in_neighbour
    >>> from minigr.transforms import Functor
    >>> graph = minigr.Graph.from_edges([0, 0, 1, 2], [1, 2, 3, 3])
    >>> depth = graph.xp.asarray([0, 1, 1, 2], dtype="int32")
    >>> before = Functor(
    ...     "int operator()(int v, int u, long long edge) const { return depth[u] + 1 == depth[v] ? u : -1; }",
    ...     depth=depth)
    >>> smallest_in_neighbour(graph, before, own=0).tolist()
    [0, 0, 0, 1]
    """
    out = neighbor_reduce(graph, op, out=out, direction="in", reduce=SMALLEST_FOUND, identity=-1, dtype=numpy.int32)
    if isinstance(own, numbers.Integral):
        out[own] = own
    elif own is not None:
        transform(1, Functor(_OWN, filename="<smallest_in_neighbour own>", own=own, out=out))
    return out
