"""networkx's triangle counts and clustering of undirected graphs by minigr.triangles and
minigr.lcc (self-loops and parallel edges aside, as networkx counts)."""
import collections.abc

import numpy

import minigr

from .registry import networkx_function


def _selected(G, nodes):
    """The vertex ids of `nodes` in networkx's order (None: every node; a node; or a
    collection, its nodes that are in G)."""
    if nodes is None:
        return numpy.arange(len(G))
    if nodes in G:
        return G.vertices([nodes])
    return G.vertices([node for node in nodes if node in G])


def _nodes_checks(a):
    nodes = a["nodes"]
    return [(nodes is not None and nodes not in a["G"] and not isinstance(nodes, collections.abc.Collection),
             "nodes is neither a node nor a collection; networkx reports the error")]


def _undirected_simple_checks(a):
    G = a["G"]
    return [(G.is_directed(), "networkx's directed clustering counts otherwise than minigr.lcc"),
            (G.is_multigraph(), "networkx raises the error for multigraphs"),
            (a.get("weight") is not None, "weighted clustering is networkx's only")]


def _triangles(G):
    """Triangles through each vertex (int64)."""
    if len(G) == 0:
        return numpy.zeros(0, numpy.int64)
    return minigr.triangles(G.minigr_graph(None)).to_host().triangles


def _clustering(G, nodes):
    """networkx.clustering's {node: coefficient} for `nodes` (an int 0 where no triangle)."""
    coefficient = minigr.lcc(G.minigr_graph(None)).to_host().lcc if len(G) else numpy.zeros(0)
    selected = _selected(G, nodes)
    return {node: x or 0 for node, x in zip(G.nodes_of(selected), coefficient[selected].tolist())}


@networkx_function(checks=lambda a: [*_nodes_checks(a), (a["nodes"] is not None and a["G"].is_multigraph(),
                                                         "networkx raises the error for multigraphs with nodes")])
def triangles(G, nodes=None):
    """Runs minigr.triangles."""
    count = _triangles(G)
    if nodes is not None and nodes in G:
        return int(count[G.index[nodes]])
    selected = _selected(G, nodes)
    return dict(zip(G.nodes_of(selected), count[selected].tolist()))


@networkx_function(checks=lambda a: [*_nodes_checks(a), *_undirected_simple_checks(a)])
def clustering(G, nodes=None, weight=None):
    """Runs minigr.lcc. Declines directed graphs (networkx's directed clustering differs from
    minigr.lcc's Graphalytics definition), multigraphs and weights."""
    coefficients = _clustering(G, nodes)
    return coefficients[nodes] if nodes is not None and nodes in G else coefficients


@networkx_function(checks=lambda a: [*_nodes_checks(a), *_undirected_simple_checks(a)])
def average_clustering(G, nodes=None, weight=None, count_zeros=True):
    """Runs minigr.lcc, then averages as networkx does. Declines as clustering does."""
    c = list(_clustering(G, nodes).values())
    if not count_zeros:
        c = [x for x in c if abs(x) > 0]
    return sum(c) / len(c)


@networkx_function(checks=_undirected_simple_checks)
def transitivity(G):
    """Runs minigr.triangles. Declines directed graphs and multigraphs."""
    loops = G.src == G.dst
    degree = numpy.bincount(G.src[~loops], minlength=len(G))
    triangles, triads = 2 * int(_triangles(G).sum()), int((degree * (degree - 1)).sum())
    return 0 if triangles == 0 else triangles / triads
