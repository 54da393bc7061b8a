"""The references of apps/kcore.py and what a user would run instead: peeling
by rounds with NumPy (the check's reference), networkx's core_number, and
cuGraph's where it is installed. Not an app: its name starts with an underscore."""
import numpy

from minigr import alternatives as alt
from minigr import validate
from minigr.enactor import Timer
from minigr.graph import to_host


def cores_numpy(graph):
    """Core numbers (int32) by peeling: the threshold k rises to the least
    remaining degree, then every remaining vertex of degree k or less goes, its
    neighbours losing a degree each, until none is left at k or below.
    Neighbours as networkx counts them: duplicates once, a directed graph's in-
    and out-neighbours both (one on both counts twice)."""
    n = graph.num_vertices
    src, dst = to_host(graph.edge_sources()), to_host(graph.col_indices).astype(numpy.int64)
    keys = numpy.unique(src * n + dst)
    src, dst = keys // max(n, 1), keys % max(n, 1)
    if graph.directed:
        src, dst = numpy.concatenate([src, dst]), numpy.concatenate([dst, src])
    order = numpy.argsort(src, kind="stable")
    neighbours, starts = dst[order], numpy.concatenate([[0], numpy.cumsum(numpy.bincount(src, minlength=n))])
    sizes = numpy.diff(starts)
    degree, core = sizes.copy(), numpy.full(n, -1, dtype=numpy.int32)
    k = 0
    while (core < 0).any():
        k = max(k, int(degree[core < 0].min()))
        going = numpy.flatnonzero((core < 0) & (degree <= k))
        while len(going):
            core[going] = k
            counts = sizes[going]
            at = numpy.repeat(starts[going] - numpy.concatenate([[0], numpy.cumsum(counts)[:-1]]), counts)
            lost = neighbours[at + numpy.arange(counts.sum())]
            degree -= numpy.bincount(lost, minlength=n)
            lost = numpy.unique(lost)
            going = lost[(core[lost] < 0) & (degree[lost] <= k)]
    return core


def numpy_cores(inputs):
    with Timer("cpu") as timer:
        found = cores_numpy(inputs.graph.to("cpu"))
    return found, timer.ms, None


def networkx_cores(graph):
    """networkx.core_number as an int32 array, timed on the CPU."""
    import networkx
    reference = graph.to_networkx()
    with Timer("cpu") as timer:
        found = networkx.core_number(reference)
    return numpy.array([found[v] for v in range(graph.num_vertices)], dtype=numpy.int32), timer.ms, None


def check_kcore(graph, values, k=None):
    """Core numbers against cores_numpy, exactly; in_core against them."""
    core, in_core = (to_host(values[name]) for name in ("core", "in_core"))
    expected = cores_numpy(graph)
    cut = k if k is not None else int(expected.max()) if len(expected) else 0
    member = expected >= cut
    return validate.verdict([
        validate.mismatch(core, expected, "with a wrong core number"),
        validate.finding((in_core != 0) != member, "wrongly in or out of the k-core",
                         lambda v: f"{v} (got {in_core[v]}, core {expected[v]})")])


def cugraph_cores(inputs):
    """cuGraph's core_number (undirected graphs)."""
    import cugraph
    g = alt.cugraph_graph(inputs.graph)
    with Timer("gpu") as timer:
        found = cugraph.core_number(g)
    return found.sort_values("vertex")["core_number"].values, timer.ms, None


def cugraph_skip(inputs):
    if inputs.graph.directed:
        return "skipped: cuGraph's core numbers are for undirected graphs"
    return alt.no_cugraph(inputs)
