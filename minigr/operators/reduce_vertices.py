"""reduce_vertices: one value reduced over every vertex of the graph, such as
a vector's norm or the change of an iteration, written to a device array so
that a loop's condition reads it without a host round trip."""
from ..transforms import Functor, segreduce_transform
from ..transforms.functor import c_type

_VALUE = "%s operator()(long long v, long long, long long) const { return op((int)v); }"
_ARRAY = "%s operator()(int v) const { return values[v]; }"


def reduce_vertices(graph, op, *, out, reduce="sum", identity=None):
    """out[0] becomes the reduction (`reduce`: "sum", "min", "max" or a C
    expression in a and b with its identity) of op(vertex) over every vertex
    of the graph; the identity when it has none. op: a Functor, or a device
    array of one value per vertex, whose values are reduced. out: a
    one-element device array (a slice of a larger one is fine), whose dtype
    the values take. Returns out."""
    if not isinstance(op, Functor):
        op = Functor(_ARRAY % c_type(op.dtype), filename="<reduce_vertices values>", values=op)
    partition = graph.vertex_partition()
    segreduce_transform(partition.offsets, Functor(_VALUE % c_type(out.dtype), filename="<reduce_vertices>", op=op),
                        op=reduce, identity=identity, total=graph.num_vertices, partition=partition, out=out)
    return out
