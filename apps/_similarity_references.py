"""The references of apps/similarity.py and what a user would run instead:
both neighbour lists of every pair expanded into keys and matched (NumPy,
the check's reference), networkx's jaccard_coefficient, and cuGraph's Jaccard
where it is installed. Not an app: its name starts with an underscore."""
import numpy

from minigr import alternatives as alt
from minigr import validate
from minigr.enactor import Timer
from minigr.graph import to_host

from ._sparse_products import simple_networkx

SAMPLED = 2**25  # neighbour entries the check's reference expands at most (pairs sampled beyond)


def common_neighbours(matrix, first, second):
    """|N(u) & N(v)| of each pair by expanding both neighbour lists into
    (pair, neighbour) keys and matching them (NumPy); matrix: 0/1 CSR without
    self-loops or duplicates."""
    def keys(ends):
        degree = numpy.diff(matrix.indptr)[ends]
        pair = numpy.repeat(numpy.arange(len(ends)), degree)
        start = numpy.repeat(matrix.indptr[ends] - numpy.concatenate([[0], numpy.cumsum(degree)[:-1]]), degree)
        return pair * matrix.shape[0] + matrix.indices[start + numpy.arange(len(pair))]
    found = keys(first)
    return numpy.bincount(found[numpy.isin(found, keys(second))] // max(matrix.shape[0], 1), minlength=len(first))


@validate.verdict_on_misshapen
def check_similarity(graph, values):
    """Both coefficients against common_neighbours (relative 1e-12), on a seeded
    sample of the pairs where expanding them all would pass SAMPLED entries."""
    import scipy.sparse
    first, second, jaccard, overlap = (to_host(values[k]) for k in ("first", "second", "jaccard", "overlap"))
    matrix = scipy.sparse.csr_matrix(graph.to_scipy(), dtype=numpy.float64)
    matrix.sum_duplicates()
    matrix.data[:] = 1  # every stored edge, whatever its weight (0 too): only the loops go next
    matrix.setdiag(0)
    matrix.eliminate_zeros()
    degree = numpy.diff(matrix.indptr)
    pick = numpy.arange(len(first))
    entries = int(degree[first].sum() + degree[second].sum())
    if entries > SAMPLED:
        pick = numpy.sort(numpy.random.default_rng(0).choice(len(first), len(first) * SAMPLED // entries, False))
    u, v = first[pick], second[pick]
    common = common_neighbours(matrix, u, v)
    union, least = degree[u] + degree[v] - common, numpy.minimum(degree[u], degree[v])
    want_jaccard = numpy.where(union > 0, common / numpy.maximum(union, 1), 0)
    want_overlap = numpy.where(least > 0, common / numpy.maximum(least, 1), 0)
    findings = [validate.finding(~numpy.isclose(got[pick], want, rtol=1e-12, atol=0), f"with a wrong {name}",
                                 lambda i: f"{pick[i]} ({u[i]}, {v[i]}): got {got[pick[i]]!r}, expected {want[i]!r}",
                                 ("pair", "pairs"))
                for name, got, want in (("jaccard", jaccard, want_jaccard), ("overlap", overlap, want_overlap))]
    checked = "" if len(pick) == len(first) else f" ({len(pick)} of {len(first)} pairs, sampled)"
    found = validate.verdict(findings)
    return found + checked if found == "ok" else found


def networkx_jaccard(graph):
    """networkx.jaccard_coefficient of every stored edge (graph without self-loops), timed on the CPU."""
    import networkx
    reference = simple_networkx(graph)
    reference.remove_edges_from(networkx.selfloop_edges(reference))
    ends = list(zip(to_host(graph.edge_sources()).tolist(), to_host(graph.col_indices).tolist()))
    with Timer("cpu") as timer:
        found = [c for _, _, c in networkx.jaccard_coefficient(reference, ends)]
    return numpy.array(found), timer.ms, None


def cugraph_jaccard(inputs):
    """cuGraph's Jaccard over every edge, in the graph's edge order."""
    import cugraph
    g = alt.cugraph_graph(inputs.graph)
    with Timer("gpu") as timer:
        found = cugraph.jaccard(g)
    return found.sort_values(["first", "second"])["jaccard_coeff"].values, timer.ms, None
