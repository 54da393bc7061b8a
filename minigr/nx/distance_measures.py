"""networkx's eccentricity of given nodes by minigr.bfs or minigr.sssp."""
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
