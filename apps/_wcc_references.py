"""WCC without minigr: SciPy's connected_components (the check's reference and
the bench's CPU system) and a Shiloach-Vishkin composition of CuPy calls (the
bench's GPU alternative). Not an app: its name starts with an underscore."""
import numpy

from minigr import validate
from minigr.enactor import Timer


def smallest_ids(labels):
    """Component labels (any ids, NumPy) renamed to the smallest vertex id holding each."""
    n = len(labels)
    smallest = numpy.full(int(labels.max()) + 1 if n else 0, n, dtype=numpy.int64)
    numpy.minimum.at(smallest, labels, numpy.arange(n))
    return smallest[labels].astype(numpy.int32)


def wcc_scipy(matrix):
    """scipy.sparse.csgraph.connected_components (weak) on the CPU, relabelled by smallest id after the timer."""
    from scipy.sparse.csgraph import connected_components
    with Timer("cpu") as timer:
        _, labels = connected_components(matrix, directed=True, connection="weak")
    return smallest_ids(labels), timer.ms, None


def wcc_cupy(row_offsets, col_indices):
    """Components from CuPy calls (Shiloach-Vishkin style): every edge hooks
    the label of one end under the smaller label of the other (cupyx.scatter_min,
    both ways), then pointer jumping until every label is a root; until no
    edge joins two labels. Labels end as the smallest id of each component."""
    import cupy
    import cupyx
    n, m = len(row_offsets) - 1, len(col_indices)
    src = (cupy.searchsorted(row_offsets, cupy.arange(m), side="right") - 1).astype(numpy.int32)
    dst = col_indices
    label = cupy.arange(n, dtype=numpy.int32)
    rounds = 0
    with Timer("gpu") as timer:
        while True:
            rounds += 1
            ends, other = label[src], label[dst]
            cupyx.scatter_min(label, ends, other)
            cupyx.scatter_min(label, other, ends)
            while True:
                jumped = label[label]
                if bool((jumped == label).all()):
                    break
                label = jumped
            if bool((label[src] == label[dst]).all()):
                break
    return label, timer.ms, rounds


@validate.verdict_on_misshapen
def check_wcc(graph, component):
    """Components against scipy.sparse.csgraph.connected_components (weak), each
    labelled with its smallest vertex id."""
    from scipy.sparse.csgraph import connected_components
    edges = validate.Edges(graph)
    (component,) = edges.per_vertex(component=component)
    expected = smallest_ids(connected_components(edges.matrix(), directed=True, connection="weak")[1])
    return validate.verdict([validate.mismatch(component, expected, "in a wrong component")])
