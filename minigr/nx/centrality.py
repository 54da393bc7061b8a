"""networkx's centralities by minigr's primitives."""
import numbers

import networkx as nx
import numpy

import minigr

from . import traversal
from .link_analysis import converged, node_vector, power_checks
from .registry import networkx_function


def _closeness(G, u, wf_improved):
    """networkx's closeness of node u: from a BFS over reversed edges on a directed graph, as
    networkx counts distances to u."""
    depth = traversal.depths(G, u, reverse=G.is_directed())
    reached = depth[depth >= 0]
    total, n = int(reached.sum()), len(G)
    if not (total > 0 and n > 1):
        return 0.0
    closeness = (len(reached) - 1.0) / total
    return closeness * ((len(reached) - 1.0) / (n - 1)) if wf_improved else closeness


@networkx_function(checks=lambda a: [
    (a["u"] is not None and a["u"] not in a["G"], "u is not in the graph; networkx raises the error"),
    (a["distance"] is not None, "distance-weighted closeness is networkx's only")])
def closeness_centrality(G, u=None, distance=None, wf_improved=True):
    """Runs minigr.bfs from u, or from every node (over reversed edges on a directed graph).
    Declines distance."""
    if u is not None:
        return _closeness(G, u, wf_improved)
    return {node: _closeness(G, node, wf_improved) for node in G.nodes}


@networkx_function(checks=lambda a: [
    (a["weight"] is not None, "weighted betweenness is networkx's only"),
    (a["k"] is not None and not (isinstance(a["k"], numbers.Integral) and 1 <= a["k"] <= len(a["G"])),
     "k is not a count of nodes from 1; networkx raises the error or sums nothing")])
def betweenness_centrality(G, k=None, normalized=True, weight=None, endpoints=False, seed=None):
    """Runs minigr.betweenness (Brandes): from every node, or from the k networkx samples (the
    same draw from the same random stream, which networkx makes of seed). Declines weights."""
    if len(G) == 0:
        return {}
    sources = None if k is None else seed.sample(range(len(G)), k)
    found = minigr.betweenness(G.minigr_graph(None), sources=sources, normalized=bool(normalized),
                               endpoints=bool(endpoints))  # networkx reads their truth: normalized=0 is False
    return dict(zip(G.nodes, found.to_host().betweenness.tolist()))


@networkx_function(checks=lambda a: [
    (a["weight"] is not None, "weighted betweenness is networkx's only"),
    (a["k"] is not None, "minigr samples by an int seed, networkx from its random stream"),
    (a["G"].is_multigraph(), "networkx keys a multigraph's edges by their keys")])
def edge_betweenness_centrality(G, k=None, normalized=True, weight=None, seed=None):
    """Runs minigr.edge_betweenness: every edge's, keyed as networkx's G.edges() gives them.
    Declines weights, k and multigraphs."""
    kept = numpy.flatnonzero(G.directed | (G.src <= G.dst))  # networkx's edges: an undirected one once
    edges = list(zip(G.nodes_of(G.src[kept]), G.nodes_of(G.dst[kept])))
    if not edges:
        return {}
    found = minigr.edge_betweenness(G.minigr_graph(None), normalized=bool(normalized)).to_host()
    flow = dict(zip(zip(found.source.tolist(), found.target.tolist()), found.edge_betweenness.tolist()))
    return dict(zip(edges, (flow[pair] for pair in zip(G.src[kept].tolist(), G.dst[kept].tolist()))))


@networkx_function(checks=power_checks)
def eigenvector_centrality(G, max_iter=100, tol=1.0e-6, nstart=None, weight=None):
    """Runs minigr.eigenvector. Declines weights float32 does not hold, and nstart values that
    are negative or sum to 0."""
    if len(G) == 0:
        raise nx.NetworkXPointlessConcept("cannot compute centrality for the null graph")
    vectors = {} if nstart is None else {"nstart": node_vector(G, nstart, "nstart")}
    with converged(max_iter):
        found = minigr.eigenvector(G.minigr_graph(weight), max_iter=max_iter, tol=tol,
                                   weighted=weight is not None, **vectors)
    return dict(zip(G.nodes, found.to_host().centrality.tolist()))


@networkx_function(checks=lambda a: [*power_checks(a), (not isinstance(a["beta"], numbers.Real),
                                                        "a beta per node is networkx's only"),
                                     (not isinstance(a["alpha"], numbers.Real), "alpha is not a number")])
def katz_centrality(G, alpha=0.1, beta=1.0, max_iter=1000, tol=1.0e-6, nstart=None, normalized=True, weight=None):
    """Runs minigr.katz. Declines a beta per node, weights float32 does not hold."""
    if len(G) == 0:
        return {}
    vectors = {} if nstart is None else {"nstart": numpy.array([nstart.get(v, 0) for v in G.nodes], float)}
    with converged(max_iter):
        found = minigr.katz(G.minigr_graph(weight), alpha=alpha, beta=beta, max_iter=max_iter, tol=tol,
                            normalized=bool(normalized), weighted=weight is not None, **vectors)
    return dict(zip(G.nodes, found.to_host().centrality.tolist()))
