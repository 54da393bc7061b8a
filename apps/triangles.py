"""Triangle counting: the triangles through each vertex (networkx's
`triangles`: self-loops and duplicate edges ignored) and their total, on an
undirected graph.

Every edge is oriented from its lower-ranked end to its higher-ranked one
(rank: degree, then id), so that each triangle a < b < c is found exactly
once, at the edge a -> b, as an out-neighbour c common to a and b: one
segmented intersection (intersect_neighbors) of the two sorted out-lists per
oriented edge, lists that the orientation keeps short on power-law graphs.
An edge's common count is a triangle for a and for b; each common item also
marks the edge a -> c, which gives c its share. One pass over the oriented
edges then adds each edge's shares to its two ends."""
import numpy

from minigr import alternatives as alt
from minigr.catalog import App, BenchCase, System, needs
from minigr.enactor import Problem, Result, Timer, problem
from minigr.graph import Graph
from minigr.operators import AdvanceFunctor, advance, intersect_neighbors
from minigr.transforms import Functor, copied

from ._sparse_products import (check_triangles, cupy_matrix, cupy_system, lower_triangle_products, lower_triangle_total,
                               networkx_total, scipy_system, total_triangles)

# Triangle a < b < c found at the edge p = a -> b, with c at ia (the edge a -> c) and ib (b -> c).
CLOSE = "void operator()(long long p, long long ia, long long ib) const { atomicAdd(&closing[ia], 1ll); }"
# The same, each end's share weighted by the multiplicity (1 or 2 directed edges) of the edge opposite it.
CLOSE_WEIGHTED = """void operator()(long long p, long long ia, long long ib) const {
    atomicAdd(&lowest[p], (long long)multiplicity[ib]);
    atomicAdd(&middle[p], (long long)multiplicity[ia]);
    atomicAdd(&closing[ia], (long long)multiplicity[p]);
}"""
# Edge src -> dst: src's share as the lowest end, dst's as the middle end and as the top one.
SPREAD = dict(cond="""
    atomicAdd(&counts[src], lowest[edge]);
    atomicAdd(&counts[dst], middle[edge] + closing[edge]);
    return false;""")


@needs(undirected="triangles")
def triangles(graph):
    """Triangles through every vertex of an undirected graph, as networkx's ``triangles``
    counts them.

    Returns
    -------
    Result
        ``triangles`` (int64, per vertex) and ``total``, the number of triangles.

    Examples
    --------
    >>> import minigr
    >>> k4 = minigr.Graph.from_edges([0, 0, 0, 1, 1, 2], [1, 2, 3, 2, 3, 3], symmetrize=True)
    >>> result = minigr.triangles(k4)
    >>> result.triangles.tolist(), result.total
    ([3, 3, 3, 3], 4)
    """
    run = problem(graph, ("triangles", False), lambda: Triangles(graph, weighted=False))
    with Timer(graph.device) as timer:
        run.count()
        total = run.total_waiting()
    return Result({"triangles": copied(run.counts)}, 1, timer.ms, graph.num_edges, {"total": total})


def orient(graph):
    """The simple undirected view of `graph` (self-loops dropped, an edge
    stored either way or twice once) with each edge oriented from its
    lower-ranked end (degree, then id): (row_offsets, targets, sources,
    multiplicity), multiplicity being how many of the two directions the graph
    stores (undirected graphs: always 2)."""
    xp, n = graph.xp, graph.num_vertices
    src, dst = graph.edge_sources(), graph.col_indices.astype(numpy.int64)
    first = xp.ones(len(dst), dtype=bool)  # one copy of each stored edge: copies sit side by side in CSR order
    first[1:] = (src[1:] != src[:-1]) | (dst[1:] != dst[:-1])
    keep = first & (src != dst)
    src, dst = src[keep], dst[keep]
    degree = xp.bincount(src, minlength=n) + xp.bincount(dst, minlength=n)
    lower = (degree[src] < degree[dst]) | (degree[src] == degree[dst]) & (src < dst)
    keys, multiplicity = xp.unique(xp.where(lower, src, dst) * n + xp.where(lower, dst, src), return_counts=True)
    sources, targets = keys // max(n, 1), keys % max(n, 1)
    row_offsets = xp.searchsorted(sources, xp.arange(n + 1))
    return row_offsets, targets.astype(numpy.int32), sources.astype(numpy.int32), multiplicity.astype(numpy.int8)


class Triangles(Problem):
    """The oriented graph of `graph` and what counting its triangles needs.
    counts[v] becomes the triangles through v; weighted, each weighs the
    multiplicity of the edge opposite v (local clustering of directed graphs).
    degree[v]: v's neighbours in the simple undirected view."""
    name = "triangles"

    def __init__(self, graph, weighted):
        xp, n = graph.xp, graph.num_vertices
        row_offsets, targets, sources, multiplicity = orient(graph)
        self.oriented = Graph(row_offsets, targets, directed=True, device=graph.device)
        self.sources, m = sources, len(targets)
        self.pairs, self.closing = xp.empty(m, dtype=numpy.int64), xp.empty(m, dtype=numpy.int64)
        self.counts = xp.empty(n, dtype=numpy.int64)
        self.degree = xp.bincount(sources, minlength=n) + xp.bincount(targets, minlength=n)  # simple, undirected
        if weighted:
            self.weights = lowest, middle = xp.empty(m, dtype=numpy.int64), xp.empty(m, dtype=numpy.int64)
            self.close = Functor(CLOSE_WEIGHTED, filename="<triangles close>", lowest=lowest, middle=middle,
                                 closing=self.closing, multiplicity=multiplicity)
        else:
            self.weights = ()
            lowest = middle = self.pairs
            self.close = Functor(CLOSE, filename="<triangles close>", closing=self.closing)
        self.spread = AdvanceFunctor(**SPREAD, filename="<triangles spread>", counts=self.counts, lowest=lowest,
                              middle=middle, closing=self.closing)

    def count(self):
        """Queues the count into self.counts (and self.pairs: each oriented edge's triangles as its lowest pair)."""
        for array in (self.closing, self.counts) + self.weights:
            array.fill(0)
        intersect_neighbors(self.oriented, self.sources, self.oriented.col_indices, self.close, out=self.pairs)
        advance(self.oriented, None, self.spread)

    def total_waiting(self):
        """The number of triangles (each found once, at its lowest edge): waits for the count."""
        return int(self.pairs.sum())


BEST_SPGEMM = "CuPy SpGEMM U*(U@U), degree order, row chunks"
APP = App(
    "triangles", triangles, "triangle counting: the triangles through every vertex, and their total",
    ("triangles",), lambda graph, source, values, options: check_triangles(graph, values["triangles"]),
    bench=(BenchCase("triangles", "total", (
        System("CuPy SpGEMM sum(L*(L@L)), id order", "gpu",
               lambda i, trace=None: lower_triangle_total(cupy_matrix(i)), skip=lower_triangle_products),
        System(BEST_SPGEMM, "gpu", lambda i, trace=None: cupy_system(i, total_triangles), once=True),
        System("SciPy SpGEMM, degree order (CPU)", "cpu", lambda i, trace=None: scipy_system(i, total_triangles),
               skip=alt.too_big(10_000_000)),
        System("networkx (CPU)", "cpu", lambda i, trace=None: networkx_total(i),
               skip=alt.too_big(1_000_000, "networkx"))), BEST_SPGEMM, alt.same),))
