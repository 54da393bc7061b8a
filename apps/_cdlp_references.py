"""CDLP without minigr: Graphalytics' label propagation in plain NumPy (the
check's reference and the bench's CPU system) and composed from CuPy calls
(the bench's GPU alternative). Not an app: its name starts with an underscore."""
import numpy

from minigr.enactor import Timer
from minigr.graph import to_host


def cdlp_reference(graph, iterations):
    """Graphalytics' label propagation in plain NumPy, by counting (vertex,
    neighbour label) pairs with numpy.unique: the check's reference and the
    bench's CPU system."""
    n = graph.num_vertices
    src, dst = to_host(graph.edge_sources()), to_host(graph.col_indices).astype(numpy.int64)
    rows, cols = (numpy.concatenate([src, dst]), numpy.concatenate([dst, src])) if graph.directed else (src, dst)
    label = numpy.arange(n, dtype=numpy.int64)
    for _ in range(iterations):
        pairs, counts = numpy.unique(rows * n + label[cols], return_counts=True)
        vertex, candidate = pairs // max(n, 1), pairs % max(n, 1)
        order = numpy.lexsort((candidate, -counts, vertex))  # per vertex: most frequent first, then smallest
        vertex, candidate = vertex[order], candidate[order]
        first = numpy.concatenate([[True], vertex[1:] != vertex[:-1]]) if len(vertex) else []
        label = label.copy()
        label[vertex[first]] = candidate[first]
    return label.astype(numpy.int32)


def cdlp_numpy(graph, iterations):
    """cdlp_reference timed on the CPU."""
    with Timer("cpu") as timer:
        label = cdlp_reference(graph, iterations)
    return label, timer.ms, iterations


def cdlp_cupy(graph, iterations):
    """Label propagation from CuPy calls: sort the (vertex, neighbour label)
    keys, count the runs, keep each vertex's best run with cupyx.scatter_max."""
    import cupy
    import cupyx
    n = graph.num_vertices
    src, dst = graph.edge_sources(), graph.col_indices.astype(numpy.int64)
    rows, cols = (cupy.concatenate([src, dst]), cupy.concatenate([dst, src])) if graph.directed else (src, dst)
    rows <<= 32
    label = cupy.arange(n, dtype=numpy.int64)
    best = cupy.empty(n, dtype=numpy.int64)
    with Timer("gpu") as timer:
        for _ in range(iterations if len(rows) else 0):  # no edges: every vertex keeps its id
            keys = cupy.sort(rows | label[cols])
            starts = cupy.flatnonzero(cupy.concatenate([cupy.ones(1, bool), keys[1:] != keys[:-1]]))
            counts = cupy.diff(cupy.append(starts, len(keys)))
            runs = keys[starts]
            best.fill(0)
            cupyx.scatter_max(best, runs >> 32, counts << 32 | (2**31 - 1 - (runs & 0xffffffff)))
            label = cupy.where(best > 0, 2**31 - 1 - (best & 0xffffffff), label)
    return label.astype(numpy.int32), timer.ms, iterations
