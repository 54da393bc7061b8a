"""Betweenness's sources and scaling, as networkx's betweenness_centrality
and edge_betweenness_centrality have them: shared by apps/betweenness.py,
apps/edge_betweenness.py and their references. Not an app: its name starts
with an underscore."""
import math
import random

import numpy

from minigr.catalog import AT_LEAST_1, SEED_WORD, Option
from minigr.generators import seed_word
from minigr.transforms import array_module, device_of
from minigr.transforms.errors import MinigrError

# The options of the sampling, as both apps take them.
SAMPLING = (Option("k", int, None, "sample k sources (networkx's sampling); default every vertex", AT_LEAST_1),
            Option("seed", int, 0, "seed of the sampling (default 0)", SEED_WORD))


def pick_sources(graph, k, seed, sources, exact_when_all):
    """(sources, sampled): every vertex, k sampled with seed (networkx's
    random.Random(seed).sample), or the given ones, checked; sampled tells
    how networkx would scale (exact_when_all: k = n is no sample)."""
    n = graph.num_vertices
    if sources is not None:
        if k is not None:
            raise MinigrError("give k (sources to sample) or sources, not both")
        chosen = numpy.asarray(sources.get() if hasattr(sources, "get") else sources, dtype=numpy.int64).ravel()
        if not len(chosen) or int(chosen.min()) < 0 or int(chosen.max()) >= n:
            raise MinigrError(f"sources must be vertex ids of the graph (0 to {n - 1}), got {chosen.tolist()[:8]}")
        return chosen.tolist(), True
    if k is None or k == n and exact_when_all:
        return list(range(n)), False
    if not 1 <= k <= n:
        raise MinigrError(f"k must be between 1 and the vertex count ({n}), got {k}")
    return random.Random(int(seed_word(seed))).sample(range(n), k), True


def scales(n, sampled, directed, normalized, endpoints):
    """networkx's rescaling (its _rescale): (factor of the sources, of the
    other vertices); sampled: the count of sampled sources, or False."""
    ends = n if endpoints else n - 1
    if ends < 2:
        return 1.0, 1.0
    count, halves = sampled or ends, 1 if directed else 2
    if not sampled or endpoints:
        scale = 1 / (count * (ends - 1)) if normalized else ends / (count * halves)
        return scale, scale
    if normalized:
        return (1 / ((count - 1) * (ends - 1)) if count > 1 else math.nan), 1 / (count * (ends - 1))
    return (ends / ((count - 1) * halves) if count > 1 else math.nan), ends / (count * halves)


def rescaled(centrality, sources, sampled, directed, normalized, endpoints):
    """Vertex centralities (NumPy or CuPy) summed over `sources` (a list), scaled
    as networkx scales them (scales: the sources by one factor, the other
    vertices by another); sampled as pick_sources tells it."""
    source_scale, scale = scales(len(centrality), sampled and len(sources), directed, normalized, endpoints)
    xp = array_module(device_of(centrality))
    factor = xp.full(len(centrality), scale)
    factor[xp.asarray(numpy.asarray(sources, dtype=numpy.int64))] = source_scale
    return centrality * factor
