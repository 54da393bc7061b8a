"""networkx.jaccard_coefficient by minigr.similarity."""
import collections.abc

import networkx as nx

import minigr

from .registry import networkx_function


def _pairs_checks(a):
    G, ebunch = a["G"], a["ebunch"]
    given = isinstance(ebunch, collections.abc.Collection)
    return [(not given, "every non-edge (ebunch None) or an iterator: networkx's own order"),
            (given and not all(len(pair) == 2 and pair[0] in G and pair[1] in G for pair in ebunch),
             "a pair names a node not in the graph; networkx raises the error"),
            (nx.number_of_selfloops(G) > 0, "networkx counts a node with a self-loop among its own neighbours")]


@networkx_function(checks=_pairs_checks)
def jaccard_coefficient(G, ebunch=None):
    """Runs minigr.similarity on the pairs of ebunch. Declines ebunch None (every non-edge)
    and graphs with self-loops."""
    pairs = [(G.index[u], G.index[v]) for u, v in ebunch]
    found = minigr.similarity(G.minigr_graph(None), pairs=pairs).to_host().jaccard if pairs else []
    for (u, v), value in zip(ebunch, list(found)):
        yield u, v, float(value) or 0
