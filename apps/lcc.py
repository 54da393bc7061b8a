"""Local clustering coefficient, as LDBC Graphalytics defines it: for a vertex
v whose neighbours N(v) (in- and out-neighbours on a directed graph; v itself
and duplicate edges aside) number d >= 2, the directed edges joining two of
them over d(d - 1); 0 when d < 2. On an undirected graph, where each edge
joins both ways, that is networkx's `clustering`, 2 T(v) / (d(d - 1)).

Counted with the triangles primitive's oriented intersection
(apps/triangles.py), each triangle through v weighed by how many directions
(1 or 2) the graph holds of the edge opposite v: an undirected graph holds
both, so it counts its triangles twice with no weights."""
import numpy

from minigr import alternatives as alt
from minigr import validate
from minigr.catalog import App, BenchCase, System
from minigr.enactor import Result, Timer, problem

from ._sparse_products import cupy_system, degree_ordered_upper, scipy_system, simple_networkx, spgemm_triangles
from .triangles import Triangles


def lcc(graph):
    """Local clustering coefficient of every vertex, as LDBC Graphalytics defines it
    (networkx's ``clustering`` on undirected graphs).

    Returns
    -------
    Result
        ``lcc`` (float64, per vertex).

    Examples
    --------
    >>> import minigr
    >>> graph = minigr.Graph.from_edges([0, 1, 2, 2], [1, 2, 0, 3], symmetrize=True)  # a triangle and a tail
    >>> minigr.lcc(graph).lcc.round(3).tolist()
    [1.0, 1.0, 0.333, 0.0]
    """
    weighted = graph.directed
    run = problem(graph, ("triangles", weighted), lambda: Triangles(graph, weighted))
    with Timer(graph.device) as timer:
        run.count()
        coefficient = coefficients(run.counts if weighted else 2 * run.counts, run.degree)
    return Result({"lcc": coefficient}, 1, timer.ms, graph.num_edges)


def coefficients(joining, degree):
    """joining / (d (d - 1)) per vertex, 0 where d < 2 (and so nothing joins)."""
    pairs = degree * (degree - 1.0)
    return joining / (pairs + (pairs == 0))


@validate.verdict_on_misshapen
def check_lcc(graph, coefficient):
    """Coefficients against scipy_lcc (relative 1e-12)."""
    (coefficient,) = validate.Edges(graph).per_vertex(lcc=coefficient)
    expected = scipy_lcc(graph.to_scipy())
    wrong = ~numpy.isclose(coefficient, expected, rtol=1e-12, atol=0)
    return validate.verdict([validate.mismatch(coefficient, expected, "with a wrong coefficient", wrong, form="{!r}")])


def scipy_lcc(matrix):
    """The coefficients by SciPy sparse products: the check's reference."""
    import scipy.sparse
    return spgemm_lcc(degree_ordered_upper(matrix, numpy, scipy.sparse), numpy)


def spgemm_lcc(setup, xp):
    """The coefficients from sparse products (apps._sparse_products.spgemm_triangles,
    each triangle weighed by the directions of the edge opposite the vertex),
    SciPy or cupyx: setup is degree_ordered_upper's."""
    upper, upper_t, _, order = setup
    degree = xp.empty(upper.shape[0])
    degree[order] = xp.diff(upper.indptr) + xp.diff(upper_t.indptr)
    return coefficients(spgemm_triangles(setup, xp, weighted=True), degree)


def networkx_lcc(graph):
    """networkx.clustering of the simple undirected graph, timed on the CPU (undirected graphs)."""
    import networkx
    simple = simple_networkx(graph)
    with Timer("cpu") as timer:
        found = networkx.clustering(simple)
    return numpy.array([found[v] for v in range(graph.num_vertices)]), timer.ms, None


def _networkx_skip(inputs):
    """networkx's clustering is Graphalytics' on undirected graphs only, and slow on big ones."""
    if inputs.graph.directed:
        return "skipped: networkx's directed clustering is not Graphalytics' definition"
    return alt.too_big(1_000_000, "networkx")(inputs)


BEST_SPGEMM = "CuPy SpGEMM, degree order, row chunks"
APP = App(
    "lcc", lcc, "local clustering coefficient (LDBC Graphalytics; networkx's clustering when undirected)", ("lcc",),
    lambda graph, source, values, options: check_lcc(graph, values["lcc"]),
    bench=(BenchCase("lcc", "lcc", (
        System(BEST_SPGEMM, "gpu", lambda i, trace=None: cupy_system(i, spgemm_lcc), once=True),
        System("SciPy SpGEMM, degree order (CPU)", "cpu", lambda i, trace=None: scipy_system(i, spgemm_lcc),
               skip=alt.too_big(10_000_000)),
        System("networkx (CPU)", "cpu", lambda i, trace=None: networkx_lcc(i.graph), skip=_networkx_skip)),
        BEST_SPGEMM, alt.close),))
