"""networkx.greedy_color by minigr.color."""
import numpy

import minigr

from .registry import networkx_function


def _is_largest_first(strategy):
    """Whether `strategy` names networkx's largest_first strategy (by name or as the function)."""
    from networkx.algorithms.coloring.greedy_coloring import STRATEGIES
    largest_first = STRATEGIES["largest_first"]
    return strategy is largest_first or isinstance(strategy, str) and STRATEGIES.get(strategy) is largest_first


@networkx_function(checks=lambda a: [
    (not _is_largest_first(a["strategy"]), "minigr colors in the largest_first strategy's order only"),
    (a["interchange"], "interchange is networkx's only"),
    (a["G"].is_directed(), "minigr colors undirected graphs")])
def greedy_color(G, strategy="largest_first", interchange=False):
    """Runs minigr.color, whose coloring is networkx's for strategy='largest_first' (the same
    colors, in the order networkx colors the nodes). Declines other strategies,
    interchange=True and directed graphs."""
    if len(G) == 0:
        return {}
    n, loops = len(G), G.src == G.dst
    graph = G.minigr_graph(None)
    if loops.any():  # networkx counts a self-loop twice in a degree: store it twice
        graph = minigr.Graph.from_edges(numpy.concatenate([G.src, G.src[loops]]),
                                        numpy.concatenate([G.dst, G.dst[loops]]), num_vertices=n, directed=False)
    colors = minigr.color(graph).to_host().color
    degree = numpy.bincount(G.src, minlength=n) + numpy.bincount(G.src[loops], minlength=n)
    order = numpy.lexsort((numpy.arange(n), -degree))
    return dict(zip(G.nodes_of(order), colors[order].tolist()))
