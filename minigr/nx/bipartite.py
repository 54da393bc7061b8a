"""networkx's is_bipartite by minigr.wcc and minigr.bfs: one BFS, over the edges both ways (as
networkx's two-colouring walks them), from a vertex joined to one vertex of every component; the
graph is bipartite where every edge joins depths of different parity."""
import numpy

import minigr

from .registry import networkx_function


@networkx_function()
def is_bipartite(G):
    """Runs minigr.wcc, then minigr.bfs from a vertex joined to each component's smallest
    vertex: bipartite where no edge joins two depths of the same parity (a self-loop does)."""
    n = len(G)
    if n == 0:
        return True
    roots = numpy.unique(minigr.wcc(G.minigr_graph(None)).to_host().component.astype(numpy.int64))
    both = minigr.Graph.from_edges(numpy.concatenate([G.src, G.dst, numpy.full(len(roots), n)]),
                                   numpy.concatenate([G.dst, G.src, roots]), num_vertices=n + 1)
    depth = minigr.bfs(both, n).to_host().depth
    return bool((depth[G.src] % 2 != depth[G.dst] % 2).all())
