"""Jaccard and overlap similarity of vertex pairs of an undirected graph,
as cuGraph defines them: with N(v) the neighbours of v (self-loops and
duplicate edges aside), jaccard = |N(u) & N(v)| / |N(u) | N(v)| (networkx's
jaccard_coefficient on the graph without self-loops) and overlap =
|N(u) & N(v)| / min(|N(u)|, |N(v)|); each 0 where its denominator is.
Of the given pairs, or of every stored edge.

The common neighbours of every pair come from one segmented intersection
(intersect_neighbors, as triangles' do) of the two sorted neighbour
lists; one pass over the pairs turns the counts and degrees into both
coefficients."""
import numpy

from minigr import alternatives as alt
from minigr.catalog import PAIRS, App, BenchCase, Option, System, needs, vertex_pairs
from minigr.enactor import Problem, Result, Timer, problem
from minigr.operators import intersect_neighbors
from minigr.transforms import Functor, transform
from minigr.transforms.errors import MinigrError

from ._similarity_references import check_similarity, cugraph_jaccard, networkx_jaccard

COEFFICIENTS = """void operator()(long long p) const {
    const long long du = offsets[first[p] + 1] - offsets[first[p]], dv = offsets[second[p] + 1] - offsets[second[p]];
    const double common = (double)count[p], union_size = (double)(du + dv) - common, least = (double)min(du, dv);
    jaccard[p] = union_size > 0 ? common / union_size : 0.0;
    overlap[p] = least > 0 ? common / least : 0.0;
}"""


@needs(undirected="similarity")
def similarity(graph, *, pairs=None):
    """Jaccard and overlap similarity of pairs of vertices of an undirected graph.

    Parameters
    ----------
    pairs : list or array of (u, v), optional
        The pairs; default every stored edge.

    Returns
    -------
    Result
        ``first`` and ``second`` (the pairs), ``jaccard`` and ``overlap`` (float64).

    Examples
    --------
    >>> import minigr
    >>> square = minigr.Graph.from_edges([0, 1, 2, 3], [1, 2, 3, 0], symmetrize=True)
    >>> result = minigr.similarity(square, pairs=[(0, 2), (0, 1)])
    >>> result.jaccard.tolist(), result.overlap.tolist()
    ([1.0, 0.0], [1.0, 0.0])
    """
    first, second = pair_arrays(graph, pairs)
    run = problem(graph, ("similarity",), lambda: Similarity(graph))
    with Timer(graph.device) as timer:
        jaccard, overlap = run.coefficients(first, second)
    return Result({"first": first, "second": second, "jaccard": jaccard, "overlap": overlap}, 1, timer.ms,
                  graph.num_edges)


def pair_arrays(graph, pairs):
    """(first, second) as int32 arrays on the graph's device: every stored edge, or the pairs checked."""
    xp, n = graph.xp, graph.num_vertices
    if pairs is None:
        return graph.edge_sources().astype(numpy.int32), graph.col_indices.copy()
    ids = xp.asarray(pairs).reshape(-1, 2) if len(pairs) else xp.zeros((0, 2), dtype=numpy.int32)
    if ids.size and (int(ids.min()) < 0 or int(ids.max()) >= n):
        raise MinigrError(f"pairs must hold vertex ids of the graph (0 to {n - 1}), got {int(ids.min())}.."
                          f"{int(ids.max())}")
    return ids[:, 0].astype(numpy.int32), ids[:, 1].astype(numpy.int32)


class Similarity(Problem):
    """The graph's neighbour lists, each neighbour once (self-loops aside)."""
    name = "similarity"

    def __init__(self, graph):
        self.simple, _ = graph.simple(self_loops=False)

    def coefficients(self, first, second):
        """(jaccard, overlap) of the pairs, queued."""
        xp, p, offsets = self.simple.xp, len(first), self.simple.row_offsets
        count, jaccard, overlap = xp.empty(p, dtype=numpy.int64), xp.empty(p), xp.empty(p)
        intersect_neighbors(self.simple, first, second, out=count)
        transform(p, Functor(COEFFICIENTS, filename="<similarity coefficients>", first=first, second=second,
                             offsets=offsets, count=count, jaccard=jaccard, overlap=overlap))
        return jaccard, overlap


APP = App(
    "similarity", similarity, "Jaccard and overlap similarity of every edge, or of given vertex pairs",
    ("first", "second", "jaccard", "overlap"), lambda graph, source, values, options: check_similarity(graph, values),
    options=(Option("pairs", vertex_pairs, None, "the pairs, as 0-1,2-7 (default every edge)", PAIRS),),
    rows="edge",
    bench=(BenchCase("similarity of every edge", "jaccard", (
        System("cuGraph", "gpu", lambda i, trace=None: cugraph_jaccard(i), skip=alt.no_cugraph),
        System("networkx (CPU)", "cpu", lambda i, trace=None: networkx_jaccard(i.graph),
               skip=alt.too_big(2_000_000, "networkx"))), "networkx (CPU)", alt.close),))
