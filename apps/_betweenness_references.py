"""The references of apps/betweenness.py and apps/edge_betweenness.py, and what
a user would run instead: Brandes' algorithm by SciPy sparse products over a
batch of sources at once (a column each), networkx, and cuGraph where it is
installed. Not an app: its name starts with an underscore."""
import numpy

from minigr import alternatives as alt
from minigr import validate
from minigr.catalog import System
from minigr.enactor import Timer
from minigr.graph import to_host

from ._sources import pick_sources, rescaled, scales

REFERENCE = "SciPy sparse products (CPU)"
BATCH_ENTRIES = 2**24  # dense (vertex or edge) x source entries per batch of sources


def brandes_scipy(graph, sources, endpoints=False, edges=True):
    """Unscaled sums over `sources` (a list): (centrality of each vertex, flow of each
    stored edge, an undirected edge's two directions added; None unless edges), the
    graph's duplicate edges once. Levels by products with the transpose; dependencies
    by products with the adjacency, level by level back from the deepest."""
    import scipy.sparse
    matrix = scipy.sparse.csr_matrix(graph.to_scipy(), dtype=numpy.float64)
    matrix.sum_duplicates()
    matrix.data[:] = 1
    n, ahead = matrix.shape[0], matrix.T.tocsr()
    rows, cols = numpy.repeat(numpy.arange(n), numpy.diff(matrix.indptr)), matrix.indices
    centrality, flow = numpy.zeros(n), numpy.zeros(matrix.nnz)
    width = max(1, BATCH_ENTRIES // max(n, matrix.nnz if edges else 0, 1))
    for start in range(0, len(sources), width):
        batch = numpy.asarray(sources[start:start + width])
        columns = numpy.arange(len(batch))
        depth, sigma = numpy.full((n, len(batch)), -1), numpy.zeros((n, len(batch)))
        depth[batch, columns], sigma[batch, columns] = 0, 1
        level = 0
        while True:
            reach = ahead @ numpy.where(depth == level, sigma, 0)
            new = (depth < 0) & (reach > 0)
            if not new.any():
                break
            level += 1
            depth[new], sigma[new] = level, reach[new]
        delta, coefficient = numpy.zeros_like(sigma), numpy.zeros_like(sigma)
        for level in range(level, 0, -1):
            at = depth == level
            coefficient[at] = (1 + delta[at]) / sigma[at]
            delta = numpy.where(depth == level - 1, sigma * (matrix @ numpy.where(at, coefficient, 0)), delta)
        delta[batch, columns] = 0
        centrality += delta.sum(axis=1)
        if endpoints:
            ends = (depth >= 0).astype(numpy.float64)
            ends[batch, columns] = ends.sum(axis=0) - 1
            centrality += ends.sum(axis=1)
        if edges:
            flow += (sigma[rows] * coefficient[cols] * (depth[cols] == depth[rows] + 1)).sum(axis=1)
    if not edges:
        return centrality, None
    keys = rows.astype(numpy.int64) * n + cols
    src, dst = to_host(graph.edge_sources()), to_host(graph.col_indices).astype(numpy.int64)
    stored = flow[numpy.searchsorted(keys, src * n + dst)]
    if not graph.directed:
        stored = stored + flow[numpy.searchsorted(keys, dst * n + src)]
    return centrality, stored


def expected(graph, options, edges):
    """The reference's scaled betweenness (edges: per stored edge), for the app's options."""
    n = graph.num_vertices
    sources, sampled = pick_sources(graph, options.get("k"), options.get("seed", 0), options.get("sources"),
                                    not edges)
    endpoints = edges or options.get("endpoints", False)
    centrality, flow = brandes_scipy(graph, sources, endpoints and not edges, edges)
    normalized = options.get("normalized", True)
    if edges:
        return flow * scales(n, sampled and len(sources), graph.directed, normalized, endpoints)[1]
    return rescaled(centrality, sources, sampled, graph.directed, normalized, endpoints)


@validate.verdict_on_misshapen
def check(graph, values, options, edges):
    """The app's values against expected() (relative 1e-9)."""
    name = "edge_betweenness" if edges else "betweenness"
    got = to_host(values[name])
    want = expected(graph, options, edges)
    if got.shape != want.shape:
        return f"FAILED: {len(got)} values, expected {len(want)}"
    wrong = ~numpy.isclose(got, want, rtol=1e-9, atol=1e-300, equal_nan=True)
    items = ("edge", "edges") if edges else ("vertex", "vertices")
    return validate.verdict([validate.mismatch(got, want, "with a wrong betweenness", wrong, items, "{!r}")])


def close(values, reference):
    return bool(numpy.allclose(to_host(values), to_host(reference), rtol=1e-6, equal_nan=True))


def _sources(inputs, options):
    return pick_sources(inputs.graph, options["k"], options.get("seed", 0), None, True)[0]


def scipy_system(inputs, options, edges):
    graph = inputs.graph.to("cpu")
    with Timer("cpu") as timer:
        values = expected(graph, options, edges)
    return values, timer.ms, None


def networkx_system(inputs, options, edges):
    """networkx on the same sources (its sampler handed them), values as arrays."""
    import random

    import networkx
    sources = _sources(inputs, options)

    class Chosen(random.Random):
        def sample(self, population, k):
            return list(sources)
    graph = inputs.graph.to_networkx()
    with Timer("cpu") as timer:
        if edges:
            found = networkx.edge_betweenness_centrality(graph, k=len(sources), seed=Chosen())
        else:
            found = networkx.betweenness_centrality(graph, k=len(sources), seed=Chosen())
    if edges:
        src, dst = to_host(inputs.graph.edge_sources()), to_host(inputs.graph.col_indices)
        return numpy.array([found.get((u, v), found.get((v, u))) for u, v in zip(src, dst)]), timer.ms, None
    return numpy.array([found[v] for v in range(inputs.graph.num_vertices)]), timer.ms, None


def cugraph_system(inputs, options):
    """cuGraph's betweenness from the same sources."""
    import cudf
    import cugraph
    g = alt.cugraph_graph(inputs.graph)
    sources = cudf.Series(numpy.asarray(_sources(inputs, options), dtype=numpy.int32))
    with Timer("gpu") as timer:
        found = cugraph.betweenness_centrality(g, k=sources)
    return found.sort_values("vertex")["betweenness_centrality"].values, timer.ms, None


def alternatives(name, options):
    """The bench's Systems for app `name` under options (with k sampled sources)."""
    edges = name == "edge_betweenness"
    cugraph = () if edges else (
        System("cuGraph", "gpu", lambda i, trace=None: cugraph_system(i, options), skip=alt.no_cugraph),)
    return cugraph + (
            System(REFERENCE, "cpu", lambda i, trace=None: scipy_system(i, options, edges),
                   skip=alt.too_big(2_000_000)),
            System("networkx (CPU)", "cpu", lambda i, trace=None: networkx_system(i, options, edges),
                   skip=alt.too_big(200_000, "networkx")))
