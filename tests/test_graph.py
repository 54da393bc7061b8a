"""Graph: construction, validation and round trips against SciPy and networkx (CPU)."""
import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

from minigr import Graph, MinigrError

SEEDS = [0, 1, 2, 3]


def random_edges(seed, n=40, m=300):
    """Edges with duplicates and self-loops (small n makes both likely)."""
    rng = np.random.default_rng(seed)
    return rng.integers(0, n, m), rng.integers(0, n, m), rng.integers(1, 100, m).astype(np.float32)


def triples(graph):
    """The stored edges as a sorted list of (src, dst, weight)."""
    src = graph.edge_sources().tolist()
    weights = graph.weights.tolist() if graph.weights is not None else [None] * graph.num_edges
    return sorted(zip(src, graph.col_indices.tolist(), weights))


def check_csr(graph):
    """The invariants every Graph keeps."""
    assert graph.row_offsets.dtype == np.int64 and graph.col_indices.dtype == np.int32
    assert graph.weights is None or graph.weights.dtype == np.float32
    assert graph.row_offsets[0] == 0 and graph.row_offsets[-1] == graph.num_edges
    assert (np.diff(graph.row_offsets) >= 0).all()
    src = graph.edge_sources()
    same_row = src[1:] == src[:-1]
    assert (graph.col_indices[1:][same_row] >= graph.col_indices[:-1][same_row]).all()


@pytest.mark.parametrize("seed", SEEDS)
def test_from_edges_keeps_every_edge(seed):
    src, dst, w = random_edges(seed)
    g = Graph.from_edges(src, dst, w, num_vertices=40, device="cpu")
    check_csr(g)
    assert g.directed and g.num_vertices == 40 and g.num_edges == len(src)
    assert triples(g) == sorted(zip(src.tolist(), dst.tolist(), w.tolist()))


@pytest.mark.parametrize("seed", SEEDS)
def test_remove_duplicates_keeps_smallest_weight(seed):
    src, dst, w = random_edges(seed)
    g = Graph.from_edges(src, dst, w, remove_duplicates=True, remove_self_loops=True, device="cpu")
    check_csr(g)
    smallest = {}
    for u, v, x in zip(src.tolist(), dst.tolist(), w.tolist()):
        if u != v:
            smallest[u, v] = min(x, smallest.get((u, v), np.inf))
    assert triples(g) == sorted((u, v, x) for (u, v), x in smallest.items())


@pytest.mark.parametrize("seed", SEEDS)
def test_symmetrize_adds_reverse_edges_once(seed):
    src, dst, _ = random_edges(seed)
    g = Graph.from_edges(src, dst, symmetrize=True, device="cpu")
    check_csr(g)
    assert not g.directed
    loops = src == dst
    expected = sorted(zip(np.r_[src, dst[~loops]].tolist(), np.r_[dst, src[~loops]].tolist(),
                          [None] * (len(src) + (~loops).sum())))
    assert triples(g) == expected
    a = g.to_scipy()
    assert (a != a.T).nnz == 0


def test_symmetrized_weights_stay_symmetric_after_deduplication():
    g = Graph.from_edges([0, 1, 0], [1, 0, 1], [5.0, 2.0, 7.0], symmetrize=True,
                         remove_duplicates=True, device="cpu")
    assert triples(g) == [(0, 1, 2.0), (1, 0, 2.0)]


def test_undirected_requires_symmetric_edges():
    with pytest.raises(MinigrError, match=r"not symmetric \(edge 0 -> 1 has no 1 -> 0\).*symmetrize=True"):
        Graph.from_edges([0, 1], [1, 2], directed=False, device="cpu")
    with pytest.raises(MinigrError, match=r"not symmetric \(edge 0 -> 1 weighs 1.0 one way and 2.0 the other\)"):
        Graph.from_edges([0, 1], [1, 0], [1.0, 2.0], directed=False, device="cpu")
    g = Graph.from_edges([0, 1, 2], [1, 0, 2], [3.0, 3.0, 1.0], directed=False, device="cpu")
    assert not g.directed and g.reverse() is g


@pytest.mark.parametrize("call, message", [
    (lambda: Graph.from_edges([0, 1], [1], device="cpu"), "src and dst lengths differ: 2 vs 1"),
    (lambda: Graph.from_edges([0, 1], [1, 7], num_vertices=5, device="cpu"),
     r"dst\[1\] = 7 is out of range for 5 vertices"),
    (lambda: Graph.from_edges([0, -2], [1, 1], device="cpu"), r"src\[1\] = -2 is out of range"),
    (lambda: Graph.from_edges([0], [1], num_vertices=-1, device="cpu"),
     "num_vertices must be >= 0, got -1"),
    (lambda: Graph.from_edges([0], [1], symmetrize="no", device="cpu"),  # 'no' is truthy: it symmetrized
     "symmetrize must be True or False, got 'no'"),
    (lambda: Graph.from_scipy(sp.eye(2, format="csr"), weighted="no", device="cpu"),
     "weighted must be True or False, got 'no'"),
    (lambda: Graph.from_edges([0], [1], num_vertices=2.5, device="cpu"),
     "num_vertices must be an integer, got 2.5"),
    (lambda: Graph.from_edges([0], [1], num_vertices="3", device="cpu"),
     "num_vertices must be an integer, got '3'"),
    (lambda: Graph.from_edges([0.5], [1.0], device="cpu"), "src must hold integers"),
    (lambda: Graph.from_edges([[0]], [[1]], device="cpu"), "src must be one-dimensional"),
    (lambda: Graph.from_edges([0, 1], [1, 0], [1.0], device="cpu"),
     r"weights must have one entry per edge \(2\)"),
    (lambda: Graph.from_edges([0, 1], [1, 0], [1.0, np.nan], device="cpu"),
     r"weights must be finite float32 values, but weights\[1\] is nan"),
    (lambda: Graph.from_edges([0, 1], [1, 0], [1e300, 1.0], device="cpu"),
     r"but weights\[0\] is 1e\+300"),
    (lambda: Graph.from_edges([0], [1], num_vertices=2**31, device="cpu"),
     "do not fit int32"),
    (lambda: Graph.from_csr([], [], device="cpu"), "got an empty array"),
    (lambda: Graph.from_csr([1, 2], [0, 0], device="cpu"), "must start at 0, got 1"),
    (lambda: Graph.from_csr([0, 2, 1, 2], [0, 1], device="cpu"),
     r"row 1 has a negative count \(-1\)"),
    (lambda: Graph.from_csr(np.array([0, 2**63, 1], np.uint64), [0], device="cpu"),  # crashed the process
     r"row 1 has a negative count \(-9223372036854775807\)"),
    (lambda: Graph.from_csr([0, 1, 3], [0, 1], device="cpu"),
     "ends at 3 but col_indices has 2 entries"),
    (lambda: Graph.from_csr([0, 1, 2], [0, 2], device="cpu"),
     r"col_indices\[1\] = 2 is out of range for 2 vertices"),
    (lambda: Graph.from_csr([0, 1, 1], [1], directed=False, device="cpu"), r"not symmetric \(edge 0 -> 1 has no 1 -> 0\)"),
    (lambda: Graph.from_scipy(sp.random(3, 4, density=0.5), device="cpu"),
     "must be square, got 3 x 4"),
    (lambda: Graph.from_scipy(np.eye(3), device="cpu"),  # an AttributeError ('tocsr')
     r"matrix must be a SciPy sparse matrix or array, got ndarray; for a dense adjacency matrix A, pass "
     r"scipy.sparse.csr_array\(A\)"),
    (lambda: Graph.from_scipy([[0, 1], [0, 0]], device="cpu"), "matrix must be a SciPy sparse matrix or array, got list"),
])
def test_validation_errors(call, message):
    with pytest.raises(MinigrError, match=message):
        call()


@pytest.mark.parametrize("seed", SEEDS)
def test_from_csr_sorts_columns_and_round_trips(seed):
    rng = np.random.default_rng(seed)
    m = sp.random(30, 30, density=0.2, random_state=seed, format="csr", dtype=np.float32)
    g = Graph.from_csr(m.indptr, m.indices, m.data, device="cpu")
    check_csr(g)
    assert abs(g.to_scipy() - m).max() == 0
    order = np.concatenate([rng.permutation(np.arange(a, b))
                            for a, b in zip(m.indptr[:-1], m.indptr[1:])])
    shuffled = Graph.from_csr(m.indptr, m.indices[order], m.data[order], device="cpu")
    check_csr(shuffled)
    assert triples(shuffled) == triples(g)


def test_from_csr_orders_an_edges_copies_by_weight():
    """Copies of an edge given heaviest first are stored lightest first, as every other way in
    builds them: simple() keeps an edge's first copy as its smallest weight (it kept 5.0 here)."""
    g = Graph.from_csr([0, 3, 3], [1, 1, 1], [5.0, 2.0, 3.0], device="cpu")
    assert g.weights.tolist() == [2.0, 3.0, 5.0]
    assert g.simple()[0].weights.tolist() == [2.0]


@pytest.mark.parametrize("seed", SEEDS)
def test_reverse_is_the_scipy_transpose(seed):
    src, dst, w = random_edges(seed)
    g = Graph.from_edges(src, dst, w, num_vertices=45, device="cpu")
    r = g.reverse()
    check_csr(r)
    assert r.directed and r.num_vertices == 45 and r.num_edges == g.num_edges
    assert triples(r) == sorted(zip(dst.tolist(), src.tolist(), w.tolist()))
    assert abs(r.to_scipy() - g.to_scipy().T.tocsr()).max() == 0
    assert g.reverse() is r and r.reverse() is g


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("parts", [2, 3, 7, 60])
@pytest.mark.parametrize("weighted", [False, True])
def test_in_blocks_cut_the_transpose_by_source(seed, parts, weighted):
    """Block b holds exactly the reverse's edges whose source lies in the b-th of `parts`
    equal id ranges, as valid CSR (more parts than vertices leave some empty); cached."""
    src, dst, w = random_edges(seed)
    g = Graph.from_edges(src, dst, w if weighted else None, num_vertices=45, device="cpu")
    blocks = g.in_blocks(parts)
    assert len(blocks) == parts and g.in_blocks(parts) is blocks and g.in_blocks(1) == [g.reverse()]
    for b, block in enumerate(blocks):
        check_csr(block)
        assert block.num_vertices == 45 and (block.weights is not None) == weighted
        low, high = 45 * b // parts, 45 * (b + 1) // parts
        assert all(low <= source < high for _, source, _ in triples(block))
    assert sorted(sum((triples(block) for block in blocks), [])) == triples(g.reverse())


@pytest.mark.parametrize("n", [0, 1])
def test_in_blocks_of_graphs_without_edges(n):
    g = Graph.from_edges([], [], num_vertices=n, device="cpu")
    assert [block.num_edges for block in g.in_blocks(3)] == [0, 0, 0]
    assert all(block.num_vertices == n for block in g.in_blocks(3))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("self_loops", [True, False])
@pytest.mark.parametrize("symmetrize", [True, False])
def test_simple_and_reverse_edges(seed, self_loops, symmetrize):
    """simple(): each edge once with its smallest weight (self-loops as asked), and where each
    stored edge went; reverse_edges() finds each simple edge's reverse."""
    src, dst, w = random_edges(seed)
    g = Graph.from_edges(src, dst, w, num_vertices=45, symmetrize=symmetrize, device="cpu")
    simple, edge_map = g.simple(self_loops=self_loops)
    check_csr(simple)
    assert simple.directed == g.directed and simple.num_vertices == 45
    smallest = {}
    for s, d, weight in triples(g):
        if self_loops or s != d:
            smallest[s, d] = min(weight, smallest.get((s, d), np.inf))
    assert triples(simple) == sorted((s, d, weight) for (s, d), weight in smallest.items())
    kept_src, kept_dst = simple.edge_sources(), simple.col_indices
    for e, (s, d) in enumerate(zip(g.edge_sources().tolist(), g.col_indices.tolist())):
        went = edge_map[e]
        assert went == -1 if s == d and not self_loops else (kept_src[went], kept_dst[went]) == (s, d)
    twins = simple.reverse_edges()
    for e, (s, d) in enumerate(zip(kept_src.tolist(), kept_dst.tolist())):
        assert (twins[e] == -1) if (d, s) not in smallest else (kept_src[twins[e]], kept_dst[twins[e]]) == (d, s)
    assert (twins >= 0).all() or not symmetrize


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("symmetrize", [True, False])
def test_reverse_edges_pair_duplicate_copies(seed, symmetrize):
    """reverse_edges() on a graph with duplicates: the k-th copy of u -> v and the k-th copy of
    v -> u are each other's reverse (of one weight in an undirected graph), -1 past the copies."""
    src, dst, w = random_edges(seed, n=12, m=200)
    g = Graph.from_edges(src, dst, w, symmetrize=symmetrize, device="cpu")
    sources, targets = g.edge_sources().tolist(), g.col_indices.tolist()
    copies = {}
    for e, pair in enumerate(zip(sources, targets)):
        copies.setdefault(pair, []).append(e)
    reverse = g.reverse_edges()
    assert reverse.dtype == np.int64 and len(reverse) == g.num_edges
    for (s, d), edges in copies.items():
        mirrors = copies.get((d, s), [])
        for k, e in enumerate(edges):
            assert reverse[e] == (mirrors[k] if k < len(mirrors) else -1)
            if symmetrize:
                assert reverse[e] >= 0 and g.weights[reverse[e]] == g.weights[e]
    assert len(Graph.from_edges([], [], num_vertices=3, device="cpu").reverse_edges()) == 0


@pytest.mark.parametrize("seed", SEEDS)
def test_out_degrees_and_edge_sources(seed):
    src, dst, _ = random_edges(seed)
    g = Graph.from_edges(src, dst, device="cpu")
    m = g.to_scipy()
    assert np.array_equal(g.out_degrees(), np.diff(m.indptr))
    assert np.array_equal(g.out_degrees(), np.bincount(src, minlength=g.num_vertices))
    assert np.array_equal(g.edge_sources(), np.repeat(np.arange(g.num_vertices), g.out_degrees()))


@pytest.mark.parametrize("n", [0, 1])
def test_empty_and_one_vertex_graphs(n):
    g = Graph.from_edges([], [], num_vertices=n, device="cpu")
    check_csr(g)
    assert (g.num_vertices, g.num_edges) == (n, 0)
    assert g.out_degrees().tolist() == [0] * n
    assert g.reverse().num_vertices == n and g.reverse().num_edges == 0
    assert g.to_scipy().shape == (n, n)
    assert Graph.from_edges(np.zeros(0, np.int64), np.zeros(0, np.int64),
                            device="cpu").num_vertices == 0


def test_one_vertex_with_self_loop():
    g = Graph.from_edges([0], [0], [2.5], device="cpu")
    assert (g.num_vertices, g.num_edges, g.weights.tolist()) == (1, 1, [2.5])
    assert Graph.from_edges([0], [0], symmetrize=True, device="cpu").num_edges == 1
    assert Graph.from_edges([0], [0], remove_self_loops=True, device="cpu").num_edges == 0


@pytest.mark.parametrize("seed", SEEDS)
def test_from_scipy_round_trip(seed):
    m = sp.random(25, 25, density=0.15, random_state=seed, format="coo", dtype=np.float32)
    for matrix in (m, m.tocsr(), sp.csc_array(m)):
        g = Graph.from_scipy(matrix, device="cpu")
        check_csr(g)
        assert g.num_edges == m.nnz and abs(g.to_scipy() - m.tocsr()).max() == 0
    unweighted = Graph.from_scipy(m, weighted=False, device="cpu")
    assert unweighted.weights is None and unweighted.num_edges == m.nnz


def test_from_scipy_sums_repeated_integer_entries_without_wrapping():
    """Repeated entries are one edge of their summed value: summed in an int8 matrix's own type, 100 + 100
    was -56 (a negative weight from two positive ones)."""
    m = sp.coo_array((np.array([100, 100, 7], np.int8), (np.array([0, 0, 1]), np.array([1, 1, 0]))), shape=(2, 2))
    g = Graph.from_scipy(m, device="cpu")
    assert g.weights.tolist() == [200.0, 7.0] and m.data.tolist() == [100, 100, 7]  # the caller's matrix as it was


def test_from_networkx_directed_and_undirected():
    d = nx.DiGraph()
    d.add_nodes_from(["a", "b", "c", "lonely"])
    d.add_weighted_edges_from([("a", "b", 3.0), ("b", "c", 1.5), ("c", "a", 2.0)])
    d.add_edge("a", "c")  # no weight attribute: weighs 1, as in networkx
    g = Graph.from_networkx(d, device="cpu")
    assert g.directed and g.num_vertices == 4
    expected = nx.to_scipy_sparse_array(d, nodelist=list(d), dtype=np.float32)
    assert abs(g.to_scipy() - expected).max() == 0
    u = nx.gnm_random_graph(30, 60, seed=5)
    u.add_edge(3, 3)
    h = Graph.from_networkx(u, weight=None, device="cpu")
    assert not h.directed and h.weights is None
    assert h.num_edges == 2 * 60 + 1
    assert abs(h.to_scipy() - nx.to_scipy_sparse_array(u, nodelist=list(u))).max() == 0


def test_to_and_repr():
    g = Graph.from_edges([0, 1], [1, 2], [1.0, 2.0], device="cpu")
    assert g.to("cpu") is g and g.xp is np
    assert repr(g) == ("Graph(num_vertices=3, num_edges=2, directed, weighted, device='cpu')")
    with pytest.raises(MinigrError, match="unknown device 'tpu'"):
        g.to("tpu")


def test_to_scipy_is_a_copy():
    g = Graph.from_edges([0, 1], [1, 2], [1.0, 2.0], device="cpu")
    m = g.to_scipy()
    m.data[:] = 9
    m.indices[:] = 0
    assert g.weights.tolist() == [1.0, 2.0] and g.col_indices.tolist() == [1, 2]


# ---- arrays from any library --------------------------------------------------------------


class HostDLPack:
    """A host array seen only through DLPack, as JAX or PyTorch CPU arrays are."""

    def __init__(self, array, device_type=1):
        self.array, self.device_type = np.asarray(array), device_type

    def __dlpack__(self, **kwargs):
        return self.array.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return (self.device_type, 0)


class ArrayProtocol:
    """An object NumPy reads through __array__ (as pandas and xarray objects are)."""

    def __init__(self, array):
        self.array = np.asarray(array)

    def __array__(self, dtype=None, copy=None):
        return self.array


@pytest.mark.parametrize("wrap", [np.asarray, list, tuple, HostDLPack, ArrayProtocol])
def test_from_edges_and_csr_take_any_host_array(wrap):
    src, dst, w = random_edges(7)
    g = Graph.from_edges(wrap(src), wrap(dst), wrap(w), num_vertices=40, device="cpu")
    assert triples(g) == triples(Graph.from_edges(src, dst, w, num_vertices=40, device="cpu"))
    c = Graph.from_csr(wrap(g.row_offsets), wrap(g.col_indices), wrap(g.weights), device="cpu")
    assert triples(c) == triples(g)


def test_torch_tensors():
    torch = pytest.importorskip("torch")
    src, dst, w = random_edges(8)
    g = Graph.from_edges(torch.from_numpy(src), torch.tensor(dst, dtype=torch.int32),
                         torch.from_numpy(w), num_vertices=40, device="cpu")
    assert triples(g) == triples(Graph.from_edges(src, dst, w, num_vertices=40, device="cpu"))
    with pytest.raises(MinigrError, match=r"^weights: cannot read it as an array \(.*detach"):
        Graph.from_edges(src, dst, torch.ones(len(src), requires_grad=True), device="cpu")


@pytest.mark.parametrize("value, message", [
    ({0: 1}, r"^src must be a NumPy or CuPy array, .* or a sequence of numbers; got dict$"),
    ("01", r"^src must be .*; got str$"),
    (None, r"^src must be .*; got NoneType$"),
    (HostDLPack([0, 1], device_type=10), r"^src lives on DLPack device type 10, which minigr "
                                         r"cannot read; move it to the host or a CUDA GPU first$"),
    ([[0, 1], [2]], r"^src: cannot read it as an array \(ValueError"),
    (np.array([True, False]), r"^src must hold integers, got dtype bool$"),
    # its masked entry became an edge 0 -> 0
    (np.ma.masked_array([5, 0], mask=[False, True]), r"^src is a masked array with masked entries, which minigr "
                                                      r"would read as values; pass src.compressed\(\)"),
])
def test_wrong_array_types(value, message):
    with pytest.raises(MinigrError, match=message):
        Graph.from_edges(value, [1, 0], device="cpu")


# ---- the CSR built on the GPU ---------------------------------------------------------------


def gpu_and_host_agree(build):
    import cupy
    on_gpu, on_host = build(cupy, "gpu"), build(np, "cpu")
    assert on_gpu.device == "gpu" and isinstance(on_gpu.col_indices, cupy.ndarray)
    assert on_gpu.directed == on_host.directed
    for a, b in [(on_gpu.row_offsets, on_host.row_offsets), (on_gpu.col_indices, on_host.col_indices),
                 (on_gpu.weights, on_host.weights)]:
        assert (a is None) == (b is None)
        assert a is None or np.array_equal(a.get(), b)


@pytest.mark.gpu
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("options", [{}, {"symmetrize": True}, {"remove_duplicates": True},
                                     {"remove_self_loops": True, "remove_duplicates": True,
                                      "symmetrize": True}])
@pytest.mark.parametrize("weighted", [False, True])
def test_gpu_builds_the_host_csr_from_cupy_arrays(seed, options, weighted):
    src, dst, w = random_edges(seed)
    gpu_and_host_agree(lambda xp, device: Graph.from_edges(
        xp.asarray(src), xp.asarray(dst), xp.asarray(w) if weighted else None, num_vertices=45,
        device=device, **options))


@pytest.mark.gpu
@pytest.mark.parametrize("seed", SEEDS)
def test_gpu_in_blocks_match_the_host(seed):
    src, dst, w = random_edges(seed)
    for parts in (1, 2, 5):
        gpu_and_host_agree(lambda xp, device: Graph.from_edges(
            xp.asarray(src), xp.asarray(dst), xp.asarray(w), num_vertices=45, device=device).in_blocks(parts)[-1])


@pytest.mark.gpu
def test_gpu_from_csr_and_symmetric_check():
    import cupy
    m = sp.random(30, 30, density=0.2, random_state=3, format="csr", dtype=np.float32)
    gpu_and_host_agree(lambda xp, device: Graph.from_csr(xp.asarray(m.indptr), xp.asarray(m.indices),
                                                         xp.asarray(m.data), device=device))
    s = (m + m.T).tocsr()
    gpu_and_host_agree(lambda xp, device: Graph.from_csr(xp.asarray(s.indptr), xp.asarray(s.indices),
                                                         directed=False, device=device))
    with pytest.raises(MinigrError, match="not symmetric"):
        Graph.from_csr(cupy.asarray(m.indptr), cupy.asarray(m.indices), directed=False, device="gpu")
    with pytest.raises(MinigrError, match=r"dst\[1\] = 7 is out of range for 5 vertices"):
        Graph.from_edges(cupy.asarray([0, 1]), cupy.asarray([1, 7]), num_vertices=5, device="gpu")


@pytest.mark.gpu
def test_gpu_arrays_of_other_libraries_stay_on_the_gpu():
    import cupy

    class CudaArray:  # only the interface, as Numba and PyTorch CUDA arrays offer it
        def __init__(self, array):
            self.__cuda_array_interface__ = array.__cuda_array_interface__

    src, dst = cupy.asarray([0, 1, 2]), cupy.asarray([1, 2, 0])
    g = Graph.from_edges(CudaArray(src), CudaArray(dst), device="gpu")
    assert g.col_indices.get().tolist() == [1, 2, 0]
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        t = torch.tensor([0, 1, 2], device="cuda")
        g = Graph.from_edges(t, torch.tensor([1, 2, 0], device="cuda"), device="gpu")
        assert g.col_indices.get().tolist() == [1, 2, 0]
