"""networkx's minimum and maximum spanning trees by minigr.mst. networkx's Kruskal takes the
edges in a stable sort by weight (ties in G.edges order; heaviest first for a maximum tree);
given each edge's place in that order as its weight, all distinct, minigr's Borůvka takes the
same forest, which comes out in that order, each edge as G.edges gives it, with G's own
attribute dicts."""
import numpy

import minigr

from .convert import real
from .registry import networkx_function

PLACES = 2**24  # edges whose places in the order float32, minigr's weight type, holds exactly


def _kruskal_only(a):
    return [(a["algorithm"] != "kruskal", "networkx's Prim and Borůvka give the edges in orders of their own"),
            (a["G"].is_multigraph(), "a multigraph's parallel edges and their keys are networkx's")]


def _kruskal_edges(G, weight, data, minimum):
    """The list of the spanning forest's edges as networkx's Kruskal yields them: (u, v, G's dict
    of the edge) with data, else (u, v). Raises NotImplementedError (networkx runs the call) for
    weights that are NaN (networkx's to raise on or skip) or not numbers, integers float64 does
    not hold exactly, and more than PLACES edges."""
    H = G.networkx
    once = numpy.flatnonzero(G.src <= G.dst)  # G.edges' edges, in its order (each from its first endpoint)
    values = numpy.array([real(H._adj[G.nodes[a]][G.nodes[b]].get(weight, 1)) for a, b in
                          zip(G.src[once], G.dst[once])], numpy.float64)
    if numpy.isnan(values).any() or (numpy.abs(values[numpy.isfinite(values)]) > 2**53).any():
        raise NotImplementedError(f"edge attribute {weight!r} has NaN, values that are not numbers, or integers "
                                  "beyond 2^53 (whose order float64 would lose)")
    loop = G.src[once] == G.dst[once]  # never in a forest
    u, v, values = G.src[once][~loop], G.dst[once][~loop], values[~loop]
    if len(values) > PLACES:
        raise NotImplementedError(f"more than {PLACES} edges: their places in the order are not all float32 integers")
    place = numpy.empty(len(values), numpy.float32)
    place[numpy.argsort(values if minimum else -values, kind="stable")] = numpy.arange(len(values))
    graph = minigr.Graph.from_edges(u, v, place, num_vertices=len(G.nodes), symmetrize=True)
    forest = minigr.mst(graph).to_host()
    taken = forest.src >= 0
    a, b = forest.src[taken], forest.dst[taken]
    order = numpy.argsort(forest.weight[taken])
    first, second = numpy.minimum(a, b)[order], numpy.maximum(a, b)[order]
    return [(x, y, H._adj[x][y]) if data else (x, y) for x, y in zip(G.nodes_of(first), G.nodes_of(second))]


def _tree(G, edges):
    """A graph of G's class with G's nodes and graph attributes, and `edges` added in order."""
    H = G.networkx
    T = H.__class__()
    T.graph.update(H.graph)
    T.add_nodes_from(H.nodes.items())
    T.add_edges_from(edges)
    return T


@networkx_function(checks=_kruskal_only)
def minimum_spanning_edges(G, algorithm="kruskal", weight="weight", keys=True, data=True, ignore_nan=False):
    """Runs minigr.mst: the forest's edges in networkx's Kruskal order. Declines Prim and
    Borůvka, multigraphs, NaN weights (networkx raises or skips them), weights that are not
    numbers, and more than 2^24 edges."""
    return iter(_kruskal_edges(G, weight, data, minimum=True))


@networkx_function(checks=_kruskal_only)
def maximum_spanning_edges(G, algorithm="kruskal", weight="weight", keys=True, data=True, ignore_nan=False):
    """Runs minigr.mst on the edges' places from the heaviest: the maximum forest's edges in
    networkx's Kruskal order. Declines as minimum_spanning_edges."""
    return iter(_kruskal_edges(G, weight, data, minimum=False))


@networkx_function(checks=_kruskal_only)
def minimum_spanning_tree(G, weight="weight", algorithm="kruskal", ignore_nan=False):
    """Runs minigr.mst: a graph of G's class with G's nodes and graph attributes and the
    forest's edges, with their attributes, added in networkx's Kruskal order. Declines as
    minimum_spanning_edges."""
    return _tree(G, _kruskal_edges(G, weight, True, minimum=True))


@networkx_function(checks=_kruskal_only)
def maximum_spanning_tree(G, weight="weight", algorithm="kruskal", ignore_nan=False):
    """Runs minigr.mst: as minimum_spanning_tree, with the maximum spanning forest. Declines as
    minimum_spanning_edges."""
    return _tree(G, _kruskal_edges(G, weight, True, minimum=False))
