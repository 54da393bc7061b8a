"""The benchmark generators: sizes, symmetry, structure, statistics, determinism, weights;
the same graph on the host and the GPU."""
import math

import numpy as np
import pytest

from minigr import MinigrError, generators
from minigr.generators import grid, kronecker, random_weights, rgg

from conftest import to_host


def check_simple_undirected(g):
    """Symmetric, no self-loops, no duplicate edges, columns sorted."""
    a = g.to_scipy()
    assert not g.directed
    assert (a != a.T).nnz == 0
    assert a.diagonal().sum() == 0
    canonical = a.copy()
    canonical.sum_duplicates()
    assert canonical.nnz == a.nnz and a.has_sorted_indices


def identity_permutation(monkeypatch):
    monkeypatch.setattr(generators, "_permutation", lambda xp, n, seed: xp.arange(n))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_kronecker_shape_and_skew(seed):
    g = kronecker(12, 16, seed, device="cpu")
    check_simple_undirected(g)
    assert g.num_vertices == 4096
    assert 0.5 * 2 * 16 * 4096 < g.num_edges <= 2 * 16 * 4096  # duplicates and loops removed
    degrees = g.out_degrees()
    assert degrees.max() > 20 * degrees.mean()  # a heavy tail
    assert (degrees == 0).sum() > 100  # and many isolated vertices, as Graph500 graphs have


def test_kronecker_permutes_ids(monkeypatch):
    permuted = kronecker(10, 8, 4, device="cpu")
    identity_permutation(monkeypatch)
    plain = kronecker(10, 8, 4, device="cpu")
    degrees = plain.out_degrees()
    assert degrees[0] == degrees.max()  # quadrant A (low ids) is the likeliest at every level
    assert not np.array_equal(permuted.out_degrees(), degrees)
    assert np.array_equal(np.sort(permuted.out_degrees()), np.sort(degrees))


def test_kronecker_quadrant_probabilities(monkeypatch):
    """With scale 1 every edge is one quadrant draw: check the frequencies of A, B, C, D."""
    identity_permutation(monkeypatch)
    _, make, count = generators._kronecker_pairs(np, 1, 200_000, 7)
    u, v = make(0, count)
    freq = np.bincount(u * 2 + v, minlength=4) / 400_000
    assert np.allclose(freq, [0.57, 0.19, 0.19, 0.05], atol=0.004)  # quadrants A, B, C, D


def test_kronecker_ids_use_every_level(monkeypatch):
    identity_permutation(monkeypatch)
    _, make, _ = generators._kronecker_pairs(np, 20, 1, 8)
    u, v = make(0, 100_000)
    assert u.max() < 2**20 and v.max() < 2**20
    assert (u >> 19).mean() == pytest.approx(0.24, abs=0.01)  # top bit: quadrant C or D
    assert (v & 1).mean() == pytest.approx(0.24, abs=0.01)  # lowest bit: quadrant B or D


def test_grid_edges_join_grid_neighbours(monkeypatch):
    identity_permutation(monkeypatch)
    side = 64
    g = grid(12, 5, device="cpu")
    check_simple_undirected(g)
    src, dst = g.edge_sources(), g.col_indices
    distance = abs(src // side - dst // side) + abs(src % side - dst % side)
    assert (distance == 1).all()
    candidates = 2 * side * (side - 1)
    kept = g.num_edges / 2
    assert abs(kept / candidates - 0.75) < 4 * math.sqrt(0.75 * 0.25 / candidates)
    assert g.out_degrees().max() <= 4


def test_grid_permutes_ids_unless_told_not_to(monkeypatch):
    permuted = grid(10, 3, device="cpu")
    ordered = grid(10, 3, permute=0, device="cpu")
    identity_permutation(monkeypatch)
    plain = grid(10, 3, device="cpu")
    assert np.array_equal(ordered.row_offsets, plain.row_offsets)
    assert np.array_equal(ordered.col_indices, plain.col_indices)
    assert permuted.num_edges == plain.num_edges
    assert not np.array_equal(permuted.col_indices, plain.col_indices)
    assert np.array_equal(np.sort(permuted.out_degrees()), np.sort(plain.out_degrees()))


@pytest.mark.parametrize("scale, seed", [(0, 1), (1, 1), (3, 2), (9, 1), (10, 2), (11, 3)])
def test_rgg_is_exactly_the_pairs_within_the_radius(scale, seed):
    """Against every pair's distance in the unit square (float64), not the cell grid."""
    g = rgg(scale, seed, device="cpu")
    check_simple_undirected(g)
    n = 1 << scale
    x, y = (c / 2.0**30 for c in generators.rgg_points(np, n, seed))  # vertex i is point i
    radius = 0.55 * math.sqrt(math.log(n) / n)
    d2 = (x[:, None] - x[None, :]) ** 2 + (y[:, None] - y[None, :]) ** 2
    near = (d2 < radius * radius) & ~np.eye(n, dtype=bool)
    assert np.array_equal(g.to_scipy().toarray() != 0, near)
    if scale >= 9:
        expected_degree = math.pi * radius * radius * (n - 1)  # less near the border
        assert 0.75 * expected_degree < g.out_degrees().mean() < expected_degree


def test_rgg_points_are_uniform():
    x, y = generators.rgg_points(np, 1 << 16, 4)
    assert x.min() >= 0 and max(x.max(), y.max()) < 2**30
    counts = np.histogram2d(x, y, bins=16, range=[[0, 2**30]] * 2)[0].ravel()
    expected = (1 << 16) / 256
    chi2 = ((counts - expected) ** 2 / expected).sum()
    assert chi2 < 255 + 5 * math.sqrt(2 * 255)  # 255 degrees of freedom, 5 sigma
    assert abs(np.corrcoef(x, y)[0, 1]) < 0.02


def test_random_words_are_uniform_and_independent_by_stream_and_seed():
    words = generators.random_words(np, 3, 0, 0, 1 << 16)
    bits = (words[:, None] >> np.arange(64, dtype=np.uint64)) & np.uint64(1)
    assert np.abs(bits.mean(axis=0) - 0.5).max() < 5 * 0.5 / math.sqrt(1 << 16)
    assert np.array_equal(generators.random_words(np, 3, 0, 100, 200), words[100:200])
    others = [generators.random_words(np, 3, 1, 0, 1 << 16),
              generators.random_words(np, 4, 0, 0, 1 << 16)]
    for other in others:
        a, b = (words >> np.uint64(11)) / 2.0**53, (other >> np.uint64(11)) / 2.0**53
        assert abs(np.corrcoef(a, b)[0, 1]) < 0.02 and not np.intersect1d(words, other).size


def test_permutation_is_a_random_permutation():
    perm = generators._permutation(np, 1000, 5)
    assert np.array_equal(np.sort(perm), np.arange(1000))
    assert (perm == np.arange(1000)).sum() < 10
    assert not np.array_equal(perm, generators._permutation(np, 1000, 6))


def test_kronecker_does_not_depend_on_the_chunking(monkeypatch):
    whole = kronecker(10, 8, 3, device="cpu")
    monkeypatch.setattr(generators, "HOST_CHUNK", 1000)  # 8 chunks, the last one short
    assert same_graph(kronecker(10, 8, 3, device="cpu"), whole)


def same_graph(a, b):
    return all(np.array_equal(to_host(x), to_host(y)) for x, y in
               [(a.row_offsets, b.row_offsets), (a.col_indices, b.col_indices)]) and (
        (a.weights is None) == (b.weights is None)) and (
        a.weights is None or np.array_equal(to_host(a.weights), to_host(b.weights)))


@pytest.mark.gpu
@pytest.mark.parametrize("make", [
    lambda device: kronecker(14, 16, 2, weights="random", weight_seed=3, device=device),
    lambda device: rgg(14, 5, device=device),
    lambda device: grid(14, 7, device=device),
])
def test_gpu_and_host_give_the_same_graph(make):
    on_gpu, on_host = make("gpu"), make("cpu")
    assert on_gpu.device == "gpu" and on_gpu.num_edges > 0
    assert same_graph(on_gpu, on_host)


@pytest.mark.parametrize("make", [
    lambda seed: kronecker(9, 4, seed, device="cpu"),
    lambda seed: rgg(9, seed, device="cpu"),
    lambda seed: grid(10, seed, device="cpu"),
])
def test_deterministic_by_seed(make):
    a, b, c = make(11), make(11), make(12)
    assert np.array_equal(a.row_offsets, b.row_offsets)
    assert np.array_equal(a.col_indices, b.col_indices)
    assert not (np.array_equal(a.row_offsets, c.row_offsets)
                and np.array_equal(a.col_indices, c.col_indices))


def test_random_weights():
    g = kronecker(11, 16, 1, weights="random", weight_seed=3, device="cpu")
    w = g.to_scipy()
    assert (w != w.T).nnz == 0  # one weight per undirected edge
    values = g.weights
    assert values.dtype == np.float32 and (values == np.round(values)).all()
    assert set(np.unique(values).tolist()) == set(range(1, 65))
    counts = np.bincount(values.astype(int))[1:]
    assert counts.min() > 0.8 * counts.mean() and abs(values.mean() - 32.5) < 0.5
    again = random_weights(kronecker(11, 16, 1, device="cpu"), 3)
    assert np.array_equal(again.weights, values)
    assert not np.array_equal(random_weights(g, 4).weights, values)


def test_small_scales():
    for make in (kronecker, rgg, grid):
        g = make(0, device="cpu")
        assert (g.num_vertices, g.num_edges) == (1, 0)
    assert kronecker(5, 0, device="cpu").num_edges == 0
    assert grid(2, 1, device="cpu").num_vertices == 4


@pytest.mark.parametrize("call, message", [
    (lambda: grid(21, device="cpu"), "grid needs an even scale"),
    (lambda: rgg(31, device="cpu"), "scale must be between 0 and 30"),
    (lambda: kronecker(-1, device="cpu"), "scale must be between 0 and 30"),
    (lambda: kronecker(4, -2, device="cpu"), "edge_factor must be >= 0"),
    (lambda: grid(4, weights="uniform", device="cpu"), "weights must be None or 'random'"),
])
def test_generator_errors(call, message):
    with pytest.raises(MinigrError, match=message):
        call()
