"""networkx's connected components (undirected) and weakly connected components (directed)
by minigr.wcc, whose label of a vertex is the smallest vertex id of its component: so the
components, ordered by label, come in networkx's order (that of their first node in G); and
strong connectivity by two minigr.bfs."""
import networkx as nx
import numpy

import minigr

from .registry import networkx_function


def _labels(G):
    """Each vertex's component label (int64)."""
    if len(G) == 0:
        return numpy.zeros(0, numpy.int64)
    return minigr.wcc(G.minigr_graph(None)).to_host().component.astype(numpy.int64)


def _components(G):
    """networkx's components: sets of nodes, in its order."""
    label = _labels(G)
    order = numpy.argsort(label, kind="stable")
    for members in numpy.split(order, numpy.flatnonzero(numpy.diff(label[order])) + 1):
        if len(members):
            yield set(G.nodes_of(members))


def _count(G):
    return len(numpy.unique(_labels(G)))


def _connected(G):
    if len(G) == 0:
        raise nx.NetworkXPointlessConcept("Connectivity is undefined for the null graph.")
    return _count(G) == 1


@networkx_function()
def connected_components(G):
    """Runs minigr.wcc; the components in networkx's order."""
    return _components(G)


@networkx_function()
def number_connected_components(G):
    """Runs minigr.wcc."""
    return _count(G)


@networkx_function()
def is_connected(G):
    """Runs minigr.wcc."""
    return _connected(G)


@networkx_function(checks=lambda a: [(a["n"] not in a["G"], "the node is not in the graph; networkx raises the error")])
def node_connected_component(G, n):
    """Runs minigr.wcc."""
    label = _labels(G)
    return set(G.nodes_of(numpy.flatnonzero(label == label[G.index[n]])))


@networkx_function()
def is_tree(G):
    """Runs minigr.wcc where the graph has one edge fewer than nodes."""
    if len(G) == 0:
        raise nx.NetworkXPointlessConcept("G has no nodes.")
    return len(G) - 1 == G.number_of_edges() and _count(G) == 1


@networkx_function()
def is_forest(G):
    """Runs minigr.wcc: a forest has one edge fewer than nodes in each component."""
    if len(G) == 0:
        raise nx.NetworkXPointlessConcept("G has no nodes.")
    return len(G) - _count(G) == G.number_of_edges()


@networkx_function()
def weakly_connected_components(G):
    """Runs minigr.wcc; the components in networkx's order."""
    return _components(G)


@networkx_function()
def number_weakly_connected_components(G):
    """Runs minigr.wcc."""
    return _count(G)


@networkx_function()
def is_weakly_connected(G):
    """Runs minigr.wcc."""
    return _connected(G)


@networkx_function()
def is_strongly_connected(G):
    """Runs minigr.bfs from the first node along the edges and against them: strongly connected
    where both reach every node."""
    if len(G) == 0:
        raise nx.NetworkXPointlessConcept("Connectivity is undefined for the null graph.")
    return all(bool((minigr.bfs(G.minigr_graph(None, reverse=reverse), 0).to_host().depth >= 0).all())
               for reverse in (False, True))
