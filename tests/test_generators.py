"""The benchmark generators: sizes, symmetry, structure, determinism, weights (CPU)."""
import math

import numpy as np
import pytest

from minigr import MinigrError, generators
from minigr.generators import grid, kronecker, random_weights, rgg


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
    monkeypatch.setattr(generators, "_permutation", lambda n, rng: np.arange(n))


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


def test_kronecker_quadrant_probabilities():
    """With scale 1 every edge is one quadrant draw: check the frequencies of A, B, C, D."""
    codes = generators._kronecker_codes(1, 400_000, np.random.SeedSequence(7))
    freq = np.bincount((codes >> 32) * 2 + (codes & 1), minlength=4) / 400_000
    assert np.allclose(freq, [0.57, 0.19, 0.19, 0.05], atol=0.004)  # quadrants A, B, C, D


def test_kronecker_ids_use_every_level():
    codes = generators._kronecker_codes(20, 100_000, np.random.SeedSequence(8))
    u, v = codes >> 32, codes & 0xFFFFFFFF
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


def test_grid_permutes_ids(monkeypatch):
    permuted = grid(10, 3, device="cpu")
    identity_permutation(monkeypatch)
    plain = grid(10, 3, device="cpu")
    assert permuted.num_edges == plain.num_edges
    assert not np.array_equal(permuted.col_indices, plain.col_indices)
    assert np.array_equal(np.sort(permuted.out_degrees()), np.sort(plain.out_degrees()))


@pytest.mark.parametrize("scale, seed", [(9, 1), (10, 2), (11, 3)])
def test_rgg_is_exactly_the_pairs_within_the_radius(scale, seed):
    g = rgg(scale, seed, device="cpu")
    check_simple_undirected(g)
    n = 1 << scale
    points = np.random.default_rng(seed).random((n, 2))  # vertex i is the i-th point drawn
    radius = 0.55 * math.sqrt(math.log(n) / n)
    d2 = ((points[:, None, :] - points[None, :, :]) ** 2).sum(axis=2)
    near = (d2 < radius * radius) & ~np.eye(n, dtype=bool)
    assert np.array_equal(g.to_scipy().toarray() != 0, near)
    expected_degree = math.pi * radius * radius * (n - 1)  # less near the border
    assert 0.75 * expected_degree < g.out_degrees().mean() < expected_degree


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
