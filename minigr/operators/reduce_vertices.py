"""reduce_vertices: one value reduced over every vertex of the graph, such as
a vector's norm or the change of an iteration, written to a device array so
that a loop's condition reads it without a host round trip."""
from ..transforms import Functor, segreduce_transform
from ..transforms.functor import c_type

_VALUE = "%s operator()(long long v, long long, long long) const { return op((int)v); }"
_ARRAY = "%s operator()(int v) const { return values[v]; }"


def reduce_vertices(graph, op, *, out, reduce="sum", identity=None):
    """One value reduced over every vertex of the graph, left on the device.

    out[0] becomes the reduction of op(vertex) over every vertex, the identity when the
    graph has none: a vector's norm, an iteration's change, kept in a device array so
    that a loop's condition reads it without a host round trip. Queued on the current
    stream; nothing waits.

    Parameters
    ----------
    graph : Graph
        The graph, whose vertices are reduced over.
    op : Functor or array
        ``T operator()(int v) const``, or a device array of one value per vertex, whose
        values are reduced.
    out : array
        A one-element device array (a slice of a larger one is fine), whose dtype the
        values take.
    reduce : str, default 'sum'
        "sum", "min", "max", or a C expression in a and b with its `identity`.
    identity : scalar, optional
        The reduction's identity; required for a C expression.

    Returns
    -------
    array
        `out`.

    Examples
    --------
    >>> import minigr
    >>> from minigr.operators import reduce_vertices
    >>> from minigr.transforms import Functor
    >>> graph = minigr.Graph.from_edges([0, 0, 1, 2], [1, 2, 3, 3])
    >>> totals = graph.xp.zeros(2)
    >>> reduce_vertices(graph, graph.out_degrees(), out=totals[0:1], reduce="max").tolist()
    [2.0]
    >>> squares = Functor("double operator()(int v) const { return v * v; }")
    >>> reduce_vertices(graph, squares, out=totals[1:2]).tolist(), totals.tolist()
    ([14.0], [2.0, 14.0])
    """
    if not isinstance(op, Functor):
        op = Functor(_ARRAY % c_type(op.dtype), filename="<reduce_vertices values>", values=op)
    partition = graph.vertex_partition()
    segreduce_transform(partition.offsets, Functor(_VALUE % c_type(out.dtype), filename="<reduce_vertices>", op=op),
                        op=reduce, identity=identity, total=graph.num_vertices, partition=partition, out=out)
    return out
