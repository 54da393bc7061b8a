"""The reference check of apps/mst.py: a spanning forest of lightest edge
copies, of the total weight of SciPy's minimum spanning tree (the bench's
alternatives are minigr.alternatives' mst_scipy and mst_networkx). Not an
app: its name starts with an underscore."""
import numpy

from minigr import validate


def check_mst(graph, src, dst, weight):
    """Against the definition: every edge is the lightest copy of a graph edge
    u - v (u != v), there are vertices minus components of them, and they join
    the graph's components (so they form a spanning forest); their total weight
    is SciPy's minimum spanning tree's (on weights shifted to be positive, which
    keeps the forest). "ok" or "FAILED: ..."."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components, minimum_spanning_tree
    edges, n = validate.Edges(graph), graph.num_vertices
    src, dst, weight = edges.per_vertex(src=src, dst=dst, weight=weight)
    has = src >= 0
    u, v, w = src[has].astype(numpy.int64), dst[has].astype(numpy.int64), weight[has]
    kept = edges.src != edges.dst
    shift = 1 - float(edges.weights.min()) if edges.weights.size else 0.0
    shifted = csr_matrix((edges.weights[kept] + shift, (edges.src[kept], edges.dst[kept])), shape=(n, n))
    components = connected_components(shifted, directed=False)[0]
    joined = connected_components(csr_matrix((numpy.ones(len(u)), (u, v)), shape=(n, n)), directed=False)[0]
    tree = minimum_spanning_tree(shifted)
    expected = float(tree.sum()) - shift * tree.nnz
    return validate.verdict([
        validate.finding(has & ~numpy.isin(numpy.arange(n), numpy.flatnonzero(has)[
            (u != v) & (edges.weight(u, v) == w)]), "whose edge is not the lightest copy of a graph edge",
            lambda x: f"{x} ({src[x]} - {dst[x]}, weight {weight[x]:g})"),
        "" if len(u) == n - components and joined == components else
        f"{len(u)} edges joining {n - joined} pairs of components, expected {n - components}: not a spanning forest",
        "" if numpy.isclose(w.sum(), expected, rtol=1e-9, atol=1e-9) else
        f"total weight {w.sum():.17g}, expected {expected:.17g}"])
