"""Graph contraction: the vertices of each group become one vertex, the edges
between two groups one edge of their summed weight, the edges inside a group
one self-loop. Multilevel algorithms (Louvain's coarsening) work on the
contracted graph and map its answers back through the groups."""
import numpy

from .graph import Graph


def contract(graph, labels, weighted=True):
    """(the contracted Graph, group of every vertex): labels (one int per vertex,
    any values) name the groups, renumbered 0..k-1 in label order. Weights are
    float64: the graph's (with weighted and where it has them), else 1 per
    edge; a self-loop counts twice in its vertex's degree, as in networkx, so
    the contracted graph's self-loop on a group weighs half the weights inside
    it (each edge inside once, a loop in full) and every group's degree is the
    sum of its vertices'. Undirected graphs stay undirected."""
    xp, sources = graph.xp, graph.edge_sources()
    names, group = xp.unique(labels, return_inverse=True)
    group, k = group.astype(numpy.int64).ravel(), len(names)
    src, dst = group[sources], group[graph.col_indices]
    weights = xp.ones(graph.num_edges) if not weighted or graph.weights is None else graph.weights.astype(numpy.float64)
    loop = sources == graph.col_indices
    weights = weights * xp.where(loop, 2.0, 1.0) / xp.where(src == dst, 2.0, 1.0)  # inside a group: half of all
    keys, slot = xp.unique(src * k + dst, return_inverse=True)
    summed = xp.bincount(slot.ravel(), weights=weights, minlength=len(keys)).astype(numpy.float64)  # int64 when empty
    row_offsets = xp.zeros(k + 1, dtype=numpy.int64)
    row_offsets[1:] = xp.cumsum(xp.bincount(keys // k, minlength=k))
    coarse = Graph(row_offsets, (keys % k).astype(numpy.int32), summed, directed=graph.directed, device=graph.device)
    return coarse, group.astype(numpy.int32)
