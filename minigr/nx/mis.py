"""networkx.maximal_independent_set by minigr.mis. networkx documents its set as random: with
no seed, any maximal independent set is its answer, and minigr gives one (Luby's, from a seed
drawn from Python's global random stream, the one networkx would draw from). With a seed,
networkx's set is a particular draw that minigr cannot replay, so it declines."""
import random

import numpy

import minigr

from .registry import networkx_function


@networkx_function(checks=lambda a: [
    (a["nodes"] is not None, "a set to extend is networkx's only"),
    (a["seed"] is not random._inst, "a seeded set is networkx's own draw, which minigr does not replay")])
def maximal_independent_set(G, nodes=None, seed=None):
    """Runs minigr.mis where no seed is given: a maximal independent set, random as networkx
    documents its own to be, but another than networkx's draw would give; its nodes in the
    graph's order. Declines a seed (networkx's seeded draw) and nodes."""
    if len(G) == 0:
        return []
    found = minigr.mis(G.minigr_graph(None), seed=seed.randrange(2 ** 63)).to_host().in_set
    return G.nodes_of(numpy.flatnonzero(found))
