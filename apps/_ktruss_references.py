"""The references of apps/ktruss.py and what a user would run instead: the
k-truss by rounds over an explicit list of the triangles (NumPy, the check's
reference, fit for graphs of millions of edges), networkx's k_truss, and
cuGraph's where it is installed. Not an app: its name starts with an underscore."""
import numpy

from minigr import alternatives as alt
from minigr import validate
from minigr.enactor import Timer
from minigr.graph import to_host

CHUNK = 2**24  # candidate pairs the triangle listing holds at once


def triangle_edges(sources, targets):
    """The triangles of the simple undirected graph whose edges, each once, are
    sources[e] -> targets[e] (ranked by degree, then id, each from its lower end,
    keys sorted): an array of shape (t, 3) of edge indices. Each triangle a < b <
    c is listed once, at a, from the pair (b, c) of its higher neighbours."""
    n = int(max(sources.max(), targets.max())) + 1 if len(sources) else 0
    keys = sources * n + targets
    starts = numpy.concatenate([[0], numpy.cumsum(numpy.bincount(sources, minlength=n))])
    found = []
    for lo, hi in _chunks(starts, n):
        degree = numpy.diff(starts[lo:hi + 1])
        first = numpy.repeat(numpy.arange(starts[lo], starts[hi]), numpy.repeat(degree, degree))  # edge a -> b
        within = numpy.arange(len(first)) - numpy.repeat(numpy.cumsum(degree * degree) - degree * degree,
                                                         degree * degree)
        second = numpy.repeat(starts[lo:hi], degree * degree) + within % numpy.repeat(degree, degree * degree)
        later = second > first  # edge a -> c, c after b
        first, second = first[later], second[later]
        wanted = targets[first] * n + targets[second]  # the edge b -> c
        at = numpy.minimum(numpy.searchsorted(keys, wanted), max(len(keys) - 1, 0))
        hit = keys[at] == wanted
        found.append(numpy.column_stack([first[hit], second[hit], at[hit]]))
    return numpy.concatenate(found) if found else numpy.zeros((0, 3), dtype=numpy.int64)


def _chunks(starts, n):
    """Row ranges [lo, hi) of about CHUNK candidate pairs each."""
    work = numpy.cumsum(numpy.diff(starts) ** 2)
    bounds = numpy.searchsorted(work, numpy.arange(CHUNK, int(work[-1]) if n else 0, CHUNK))
    edges = sorted({0, n, *(int(b) + 1 for b in bounds)})
    return [(lo, min(hi, n)) for lo, hi in zip(edges[:-1], edges[1:]) if lo < n]


def truss_numpy(graph, k):
    """Membership (int8) of each stored edge in the k-truss: rounds, as networkx's,
    dropping every edge in fewer than k - 2 live triangles, until none is."""
    src, dst = to_host(graph.edge_sources()), to_host(graph.col_indices).astype(numpy.int64)
    n = graph.num_vertices
    degree = numpy.bincount(src[src != dst], minlength=n)
    rank = numpy.empty(n, dtype=numpy.int64)
    rank[numpy.lexsort((numpy.arange(n), degree))] = numpy.arange(n)
    lower = rank[src] < rank[dst]
    keys = numpy.unique(rank[src[lower]] * n + rank[dst[lower]])  # each edge once, ranks for ids
    sources, targets = keys // max(n, 1), keys % max(n, 1)
    triangles = triangle_edges(sources, targets)
    alive, live = numpy.ones(len(keys), dtype=bool), numpy.ones(len(triangles), dtype=bool)
    while True:
        support = numpy.bincount(triangles[live].ravel(), minlength=len(keys))
        weak = alive & (support < k - 2)
        if not weak.any():
            break
        alive &= ~weak
        live &= alive[triangles].all(axis=1)
    low, high = numpy.minimum(rank[src], rank[dst]), numpy.maximum(rank[src], rank[dst])
    at = numpy.minimum(numpy.searchsorted(keys, low * n + high), max(len(keys) - 1, 0))
    return (alive[at] & (src != dst)).astype(numpy.int8) if len(keys) else numpy.zeros(len(src), numpy.int8)


@validate.verdict_on_misshapen
def check_ktruss(graph, values, k=3):
    """Membership against truss_numpy, exactly."""
    got, expected = to_host(values["in_truss"]), truss_numpy(graph, k)
    return validate.verdict([validate.mismatch(got, expected, "wrongly in or out of the k-truss",
                                               items=("edge", "edges"))])


def numpy_truss(inputs, k):
    with Timer("cpu") as timer:
        found = truss_numpy(inputs.graph.to("cpu"), k)
    return found, timer.ms, None


def networkx_truss(graph, k):
    """Membership of each stored edge in networkx.k_truss, as int8, timed on the CPU."""
    import networkx
    reference = graph.to_networkx()
    with Timer("cpu") as timer:
        truss = networkx.k_truss(reference, k)
    src, dst = to_host(graph.edge_sources()).tolist(), to_host(graph.col_indices).tolist()
    return numpy.array([truss.has_edge(u, v) for u, v in zip(src, dst)], dtype=numpy.int8), timer.ms, None


def cugraph_truss(inputs, k):
    """cuGraph's k-truss: the membership of each stored edge."""
    import cugraph
    graph = inputs.graph
    g = alt.cugraph_graph(graph)
    with Timer("gpu") as timer:
        edges = cugraph.k_truss(g, k).view_edge_list()
    n, xp = graph.num_vertices, graph.xp
    src, dst = (edges[end].values.astype(numpy.int64) for end in ("src", "dst"))
    kept = xp.concatenate([src * n + dst, dst * n + src])  # each kept edge either way
    return xp.isin(graph.edge_sources() * n + graph.col_indices, kept).astype(numpy.int8), timer.ms, None
