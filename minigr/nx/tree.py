"""networkx's minimum spanning trees by minigr.mst, where the tree is unique: every edge weight
distinct (in float32, minigr's weight type), so minigr's Borůvka and networkx's Kruskal take the
same edges. They come out in Kruskal's order (by weight, each as G.edges gives it), with G's own
attribute dicts."""
import numpy

import minigr

from .convert import FLOAT32_MAX, FLOAT32_SMALLEST, real
from .registry import networkx_function


def _kruskal_only(a):
    return [(a["algorithm"] != "kruskal", "networkx's Prim and Borůvka give the edges in orders of their own"),
            (a["G"].is_multigraph(), "a multigraph's parallel edges and their keys are networkx's")]


def _kruskal_edges(G, weight, data):
    """The list of the minimum spanning forest's edges as networkx's Kruskal yields them: (u, v,
    G's dict of the edge) with data, else (u, v). Raises NotImplementedError (networkx runs the call) where
    two edges' weights tie, or a weight is not a number float32 holds (NaN: networkx's to raise
    on or skip)."""
    H = G.networkx
    once = numpy.flatnonzero(G.src <= G.dst)  # each edge from its endpoint first in G's order, as G.edges
    values = numpy.array([real(H._adj[G.nodes[a]][G.nodes[b]].get(weight, 1)) for a, b in
                          zip(G.src[once], G.dst[once])], numpy.float64)
    magnitude = numpy.abs(values)
    if not (numpy.isfinite(values) & ((magnitude == 0) | (magnitude >= FLOAT32_SMALLEST))
            & (magnitude <= FLOAT32_MAX)).all():
        raise NotImplementedError(f"edge attribute {weight!r} has values float32 does not hold, or not numbers")
    loop = G.src[once] == G.dst[once]  # never in a forest, whatever it weighs
    u, v, weights = G.src[once][~loop], G.dst[once][~loop], values[~loop].astype(numpy.float32)
    if len(numpy.unique(weights)) < len(weights):
        raise NotImplementedError("two edges weigh the same (in float32): networkx's Kruskal breaks the tie")
    graph = minigr.Graph.from_edges(u, v, weights, num_vertices=len(G.nodes), symmetrize=True)
    forest = minigr.mst(graph).to_host()
    taken = forest.src >= 0
    a, b = forest.src[taken], forest.dst[taken]
    order = numpy.argsort(forest.weight[taken], kind="stable")
    first, second = numpy.minimum(a, b)[order], numpy.maximum(a, b)[order]
    return [(x, y, H._adj[x][y]) if data else (x, y) for x, y in zip(G.nodes_of(first), G.nodes_of(second))]


@networkx_function(checks=_kruskal_only)
def minimum_spanning_edges(G, algorithm="kruskal", weight="weight", keys=True, data=True, ignore_nan=False):
    """Runs minigr.mst: the forest's edges in networkx's Kruskal order. Declines Prim and
    Borůvka, multigraphs, weights that tie (then networkx's choice among trees is its own) and
    weights float32 does not hold or that are not numbers (NaN: networkx raises or skips)."""
    return iter(_kruskal_edges(G, weight, data))  # found, or declined, before networkx has the iterator


@networkx_function(checks=_kruskal_only)
def minimum_spanning_tree(G, weight="weight", algorithm="kruskal", ignore_nan=False):
    """Runs minigr.mst: a graph of G's class with G's nodes and graph attributes and the
    forest's edges, with their attributes, added in networkx's Kruskal order. Declines as
    minimum_spanning_edges."""
    H = G.networkx
    edges = _kruskal_edges(G, weight, True)
    T = H.__class__()
    T.graph.update(H.graph)
    T.add_nodes_from(H.nodes.items())
    T.add_edges_from(edges)
    return T
