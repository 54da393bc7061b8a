"""networkx's eccentricity of given nodes by minigr.bfs or minigr.sssp, and the diameter, radius
and periphery that follow from every node's."""
import networkx as nx

from . import shortest_paths
from .registry import networkx_function, nodes_checks


@networkx_function(checks=lambda a: [(a["sp"] is not None, "given path lengths are networkx's to read"),
                                     *nodes_checks(a, "v")])
def eccentricity(G, v=None, sp=None, weight=None):
    """Runs minigr.bfs (weight None) or minigr.sssp from each node of v (a node, a collection,
    or None: every node). Declines sp; with weights, as single_source_dijkstra does."""
    found = {}
    for node in G.nodes_of(G.selected(v)):
        length = shortest_paths.shortest_path_length(G, node, weight=weight)
        if len(length) != len(G):
            raise nx.NetworkXError("Found infinite path length because the "
                                   + ("digraph is not strongly connected" if G.is_directed() else
                                      "graph is not connected"))
        found[node] = max(length.values())
    return found[v] if v in G else found


def _given_eccentricities(a):
    return [(a["e"] is not None, "given eccentricities are networkx's to read")]


@networkx_function(checks=_given_eccentricities)
def diameter(G, e=None, usebounds=False, weight=None):
    """Runs eccentricity: the largest (networkx's bounding search, usebounds, finds the same
    value). Declines given eccentricities."""
    return max(eccentricity(G, weight=weight).values())


@networkx_function(checks=_given_eccentricities)
def radius(G, e=None, usebounds=False, weight=None):
    """Runs eccentricity: the smallest (networkx's bounding search, usebounds, finds the same
    value). Declines given eccentricities."""
    return min(eccentricity(G, weight=weight).values())


@networkx_function(checks=lambda a: [*_given_eccentricities(a), (
        a["usebounds"] is True and not a["G"].is_directed(), "networkx's bounding search lists them in its order")])
def periphery(G, e=None, usebounds=False, weight=None):
    """Runs eccentricity: the nodes of the largest, in G's order. Declines given eccentricities
    and usebounds on undirected graphs."""
    found = eccentricity(G, weight=weight)
    largest = max(found.values())
    return [v for v, x in found.items() if x == largest]
