"""The benchmark graphs of DESIGN.md ("Benchmarks"): Graph500 Kronecker, random geometric and
road-like grid, vectorized and reproducible from a seed. All are undirected (both directions
stored), without self-loops or duplicate edges."""
import math
import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from scipy.spatial import cKDTree

from .graph import Graph
from .transforms.errors import MinigrError

KRONECKER_ABC = (0.57, 0.19, 0.19)
GRID_KEEP = 0.75
WEIGHT_MAX = 64
_CHUNK = 1 << 18  # Kronecker edges per random stream; fixed, so results do not depend on threads


def kronecker(scale, edge_factor=16, seed=1, *, weights=None, weight_seed=0, device=None):
    """Graph500 Kronecker graph: 2^scale vertices, edge_factor * 2^scale generated edges.

    Each edge picks one quadrant per level with probabilities A, B, C, D = 0.57, 0.19, 0.19,
    0.05 (from a 16-bit draw, so they hold to 2^-16); vertex ids are then permuted. Chunks
    of edges come from independent streams spawned from `seed` and run on all cores.
    """
    n = _vertices(scale)
    if edge_factor < 0:
        raise MinigrError(f"edge_factor must be >= 0, got {edge_factor}")
    count = edge_factor << scale
    sizes = [min(_CHUNK, count - start) for start in range(0, count, _CHUNK)]
    streams = np.random.SeedSequence(seed).spawn(len(sizes) + 1)
    perm = _permutation(n, np.random.default_rng(streams[0]))

    def chunk(size, stream):
        code = _kronecker_codes(scale, size, stream)
        return perm[code >> 32], perm[code & 0xFFFFFFFF]

    with ThreadPoolExecutor(os.cpu_count()) as pool:  # NumPy releases the GIL in each chunk
        chunks = list(pool.map(chunk, sizes, streams[1:]))
    src = np.concatenate([np.zeros(0, np.int64)] + [u for u, _ in chunks])
    dst = np.concatenate([np.zeros(0, np.int64)] + [v for _, v in chunks])
    return _undirected(src, dst, n, weights, weight_seed, device)


def _quadrant_bits():
    """For each 16-bit draw, the Kronecker quadrant it picks as (row bit << 32 | column bit)."""
    a, b, c = KRONECKER_ABC
    draw = (np.arange(1 << 16) + 0.5) / (1 << 16)
    quadrant = (draw >= a).astype(np.uint64) + (draw >= a + b) + (draw >= a + b + c)
    return (quadrant >> 1) << 32 | (quadrant & 1)


_QUADRANT_BITS = _quadrant_bits()


def _kronecker_codes(scale, size, stream):
    """`size` Kronecker edges (unpermuted) from one random stream, each as row << 32 | column:
    one shift moves both ids down a level, one lookup adds both new bits."""
    draws = np.random.default_rng(stream).integers(0, 1 << 16, (scale, size), dtype=np.uint16)
    code = np.zeros(size, np.uint64)
    for level in draws:
        code <<= 1
        code |= _QUADRANT_BITS[level]
    return code


def rgg(scale, seed=1, *, weights=None, weight_seed=0, device=None):
    """Random geometric graph: 2^scale uniform points in the unit square, an edge between two
    points closer than 0.55 * sqrt(ln n / n). Vertex i is the i-th point drawn (the points are
    in random order, so the ids carry no locality)."""
    n = _vertices(scale)
    points = np.random.default_rng(seed).random((n, 2))
    radius = 0.55 * math.sqrt(math.log(n) / n)
    pairs = cKDTree(points).query_pairs(radius, output_type="ndarray")
    src, dst = pairs[:, 0], pairs[:, 1]
    near = ((points[src] - points[dst]) ** 2).sum(axis=1) < radius * radius  # strictly closer
    return _undirected(src[near], dst[near], n, weights, weight_seed, device)


def grid(scale, seed=1, *, weights=None, weight_seed=0, device=None):
    """Road-like grid: a 2^(scale/2) x 2^(scale/2) lattice with 4-neighbour edges, each kept
    with probability 0.75, vertex ids permuted."""
    if scale % 2:
        raise MinigrError(f"grid needs an even scale (a 2^(scale/2) square), got {scale}")
    n = _vertices(scale)
    side = 1 << (scale // 2)
    ids = np.arange(n, dtype=np.int64).reshape(side, side)
    src = np.concatenate([ids[:, :-1].ravel(), ids[:-1, :].ravel()])  # right, down
    dst = np.concatenate([ids[:, 1:].ravel(), ids[1:, :].ravel()])
    rng = np.random.default_rng(seed)
    keep = rng.random(len(src)) < GRID_KEEP
    perm = _permutation(n, rng)
    return _undirected(perm[src[keep]], perm[dst[keep]], n, weights, weight_seed, device)


def random_weights(graph, seed):
    """`graph` with weights drawn uniformly from the integers 1..64 (float32). Each weight is
    a hash of the unordered pair {u, v} and the seed, so both directions of an edge agree."""
    xp = graph.xp
    src = graph.edge_sources().astype(xp.uint64)
    dst = graph.col_indices.astype(xp.uint64)
    x = (xp.minimum(src, dst) << 32 | xp.maximum(src, dst)) + xp.uint64(
        (seed * 0x9E3779B97F4A7C15) % (1 << 64))
    x = (x ^ (x >> 30)) * xp.uint64(0xBF58476D1CE4E5B9)  # splitmix64 finalizer
    x = (x ^ (x >> 27)) * xp.uint64(0x94D049BB133111EB)
    x ^= x >> 31
    weights = (x % WEIGHT_MAX + 1).astype(xp.float32)
    return Graph(graph.row_offsets, graph.col_indices, weights, directed=graph.directed,
                 device=graph.device)


def _vertices(scale):
    if not 0 <= scale <= 30:
        raise MinigrError(f"scale must be between 0 and 30 (2^scale vertices), got {scale}")
    return 1 << scale


def _permutation(n, rng):
    """The relabelling of vertex ids (a function of its own so tests can see unpermuted ids)."""
    return rng.permutation(n)


def _undirected(src, dst, n, weights, weight_seed, device):
    """The generators' common end: symmetrize, drop loops and duplicates, add weights."""
    if weights not in (None, "random"):
        raise MinigrError(f"weights must be None or 'random', got {weights!r}")
    graph = Graph.from_edges(src, dst, num_vertices=n, symmetrize=True,
                             remove_self_loops=True, remove_duplicates=True, device="cpu")
    if weights == "random":
        graph = random_weights(graph, weight_seed)
    return graph.to(device)
