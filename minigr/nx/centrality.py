"""networkx's centralities by minigr's primitives."""
from . import traversal
from .registry import networkx_function


def _closeness(G, u, wf_improved):
    """networkx's closeness of node u: from a BFS over reversed edges on a directed graph, as
    networkx counts distances to u."""
    depth = traversal.bfs(G, u, reverse=G.is_directed())[2]
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
