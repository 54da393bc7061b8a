"""networkx's core numbers, k-core, k-shell, k-crust, k-corona and k-truss by minigr.kcore and
minigr.ktruss; the subgraphs are cut from the networkx graph itself, with all its attributes, as
networkx returns them."""
import networkx as nx
import numpy

import minigr

from .registry import networkx_function


def _no_self_loops(a):
    return [(nx.number_of_selfloops(a["G"]) > 0, "networkx raises the error for self-loops")]


def _cores(G):
    """Each vertex's core number (int64)."""
    if len(G) == 0:
        return numpy.zeros(0, numpy.int64)
    return minigr.kcore(G.minigr_graph(None)).to_host().core.astype(numpy.int64)


@networkx_function(checks=_no_self_loops)
def core_number(G):
    """Runs minigr.kcore. Declines graphs with self-loops (networkx raises)."""
    return dict(zip(G.nodes, _cores(G).tolist()))


def _core_checks(a):
    return [*_no_self_loops(a), (a["core_number"] is not None, "given core numbers are networkx's to read")]


def _subgraph(G, keep):
    """A copy, with all attributes, of the subgraph of the nodes where the array `keep` holds."""
    return G.networkx.subgraph(G.nodes_of(numpy.flatnonzero(keep))).copy()


@networkx_function(checks=_core_checks)
def k_core(G, k=None, core_number=None):
    """Runs minigr.kcore: the subgraph of the nodes whose core number is at least k (default
    the largest), a copy with all attributes. Declines self-loops and given core numbers."""
    cores = _cores(G)
    if k is None:
        k = cores.max()  # networkx raises (max of nothing) on an empty graph: so does NumPy
    return _subgraph(G, cores >= k)


@networkx_function(checks=_core_checks)
def k_shell(G, k=None, core_number=None):
    """Runs minigr.kcore: the subgraph of the nodes whose core number is k (default the
    largest), a copy with all attributes. Declines self-loops and given core numbers."""
    cores = _cores(G)
    return _subgraph(G, cores == (cores.max() if k is None else k))


@networkx_function(checks=_core_checks)
def k_crust(G, k=None, core_number=None):
    """Runs minigr.kcore: the subgraph of the nodes whose core number is at most k (default
    one less than the largest), a copy with all attributes. Declines self-loops and given
    core numbers."""
    cores = _cores(G)
    return _subgraph(G, cores <= (cores.max() - 1 if k is None else k))


@networkx_function(checks=_core_checks)
def k_corona(G, k, core_number=None):
    """Runs minigr.kcore: the subgraph of the nodes of core number k with exactly k
    neighbours (successors, in a directed graph, as networkx counts them) of core number at
    least k, a copy with all attributes. Declines self-loops and given core numbers."""
    cores = _cores(G)
    inside = numpy.bincount(G.src[cores[G.dst] >= k], minlength=len(cores))
    return _subgraph(G, (cores == k) & (inside == k))


@networkx_function(checks=_no_self_loops)
def k_truss(G, k):
    """Runs minigr.ktruss: a copy of the graph with the edges outside the k-truss, then the
    nodes left without edges, removed. Declines self-loops (networkx raises)."""
    H = G.networkx.copy()
    if len(G.src):
        found = minigr.ktruss(G.minigr_graph(None), k=k).to_host()
        out = found.in_truss == 0
        H.remove_edges_from(zip(G.nodes_of(found.source[out]), G.nodes_of(found.target[out])))
    H.remove_nodes_from(list(nx.isolates(H)))
    return H
