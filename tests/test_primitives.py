"""The top-level functions (minigr.bfs, sssp, pagerank, color) on every kind of graph input,
their results and errors, and weighted and personalized PageRank against networkx."""
import pathlib

import networkx
import numpy
import pytest
import scipy.sparse
import scipy.sparse.csgraph as csgraph

import minigr
from minigr import Graph, MinigrError

from conftest import to_host
from graphs import nasty_graphs

EDGES = numpy.array([[0, 1], [1, 2], [2, 0], [2, 3], [3, 3], [5, 6], [0, 1]])  # a loop, a duplicate, 4 isolated
WEIGHTS = numpy.array([3, 1, 2, 7, 1, 4, 5], numpy.float32)
N = 7


def stored():
    """The edges as a COO matrix, duplicates kept (as the inputs below give them; minigr, as SciPy,
    reads a matrix's repeated entries as one, of their summed value)."""
    return scipy.sparse.coo_matrix((WEIGHTS, (EDGES[:, 0], EDGES[:, 1])), shape=(N, N))


def csr_with_duplicates():
    order = numpy.argsort(EDGES[:, 0], kind="stable")
    row_offsets = numpy.concatenate([[0], numpy.cumsum(numpy.bincount(EDGES[:, 0], minlength=N))])
    return scipy.sparse.csr_matrix((WEIGHTS[order], EDGES[order, 1], row_offsets), shape=(N, N))


def edge_list(tmp_path):
    path = tmp_path / "g.txt"
    numpy.savetxt(path, numpy.column_stack([EDGES, WEIGHTS]), fmt="%d %d %g")
    return path


SUMMED = {"scipy csr_matrix", "scipy coo_array"}  # kinds whose repeated edge is one edge, weights summed
INPUTS = {  # kind -> the graph of EDGES and WEIGHTS given that way
    "Graph": lambda tmp_path, device: Graph.from_edges(EDGES[:, 0], EDGES[:, 1], WEIGHTS, num_vertices=N,
                                                       device=device),
    "scipy csr_matrix": lambda tmp_path, device: csr_with_duplicates(),
    "scipy coo_array": lambda tmp_path, device: scipy.sparse.coo_array(stored()),
    "path string": lambda tmp_path, device: str(edge_list(tmp_path)),
    "pathlib.Path": lambda tmp_path, device: edge_list(tmp_path),
}


@pytest.mark.parametrize("kind", INPUTS)
def test_every_input_kind(device, xp, tmp_path, kind):
    graph = INPUTS[kind](tmp_path, device)
    result = minigr.bfs(graph, 0, device=device)
    assert isinstance(result.depth, xp.ndarray) and isinstance(result.parent, xp.ndarray)
    expected = csgraph.shortest_path(stored().tocsr(), unweighted=True, indices=0)
    numpy.testing.assert_array_equal(to_host(result.depth), numpy.where(numpy.isinf(expected), -1, expected))
    assert result.iterations == 4 and result.ms >= 0
    host = result.to_host()
    assert isinstance(host.depth, numpy.ndarray) and isinstance(host.parent, numpy.ndarray)
    numpy.testing.assert_array_equal(host.depth, to_host(result.depth))
    summed = kind in SUMMED
    distance = minigr.sssp(graph, 0, device=device).to_host().distance
    reference = stored().tocsr() if summed else _lightest(stored())
    numpy.testing.assert_allclose(distance, csgraph.dijkstra(reference, indices=0), rtol=1e-6)
    assert summed == (distance[1] == WEIGHTS[0] + WEIGHTS[6])  # the repeated edge 0 -> 1: summed, or the lighter
    rank = minigr.pagerank(graph, tol=1e-10, device=device).to_host().rank
    src, dst = (numpy.unique(EDGES, axis=0) if summed else EDGES).T
    numpy.testing.assert_allclose(rank, networkx_pagerank(src, dst, N), atol=1e-8)


def _lightest(coo):
    """A CSR matrix keeping the lightest of duplicate entries (SciPy would add them)."""
    order = numpy.lexsort((coo.data, coo.col, coo.row))
    row, col, data = coo.row[order], coo.col[order], coo.data[order]
    first = numpy.ones(len(row), bool)
    first[1:] = (row[1:] != row[:-1]) | (col[1:] != col[:-1])
    return scipy.sparse.csr_matrix((data[first], (row[first], col[first])), shape=coo.shape)


def networkx_pagerank(src, dst, n, weights=None, **vectors):
    """networkx.pagerank over these stored edges (a duplicate is a parallel edge), as an array;
    vectors (personalization, nstart, dangling) are per-vertex arrays."""
    reference = networkx.MultiDiGraph()
    reference.add_nodes_from(range(n))
    if weights is None:
        reference.add_edges_from(zip(to_host(src).tolist(), to_host(dst).tolist()))
    else:
        reference.add_weighted_edges_from(zip(to_host(src).tolist(), to_host(dst).tolist(), to_host(weights).tolist()))
    dicts = {key: dict(enumerate(to_host(v).tolist())) for key, v in vectors.items()}
    ranks = networkx.pagerank(reference, weight=None if weights is None else "weight", tol=1e-10, max_iter=1000,
                              **dicts) if n else {}
    return numpy.array([ranks[v] for v in range(n)])


def test_networkx_and_spec_inputs(device):
    G = networkx.karate_club_graph()
    result = minigr.pagerank(G, device=device, tol=1e-10)
    expected = networkx.pagerank(G, weight=None, tol=1e-10)
    numpy.testing.assert_allclose(to_host(result.rank), [expected[v] for v in G], atol=1e-8)
    depth = to_host(minigr.bfs(G, 0, device=device).depth)
    assert depth.tolist() == [networkx.shortest_path_length(G, 0, v) for v in G]
    colors = to_host(minigr.color("grid:scale=6,seed=1", seed=2, device=device).color)
    grid = minigr.load("grid:scale=6,seed=1", device="cpu").to_scipy().tocoo()
    assert (colors[grid.row] != colors[grid.col]).all()
    assert to_host(minigr.bfs("grid:scale=10", 0, device=device).depth).max() == 51  # SciPy agrees


def test_build_options_reach_the_builder(device, tmp_path):
    path = edge_list(tmp_path)
    assert minigr.bfs(path, 3, symmetrize=True, device=device).to_host().depth[:4].tolist() == [2, 2, 1, 0]
    assert minigr.bfs(path, 3, device=device).to_host().depth[:4].tolist() == [-1, -1, -1, 0]  # 3 only has a loop
    with pytest.raises(MinigrError, match="needs edge weights"):
        minigr.sssp("grid:scale=6", 0, device=device)
    assert numpy.isfinite(minigr.sssp("grid:scale=6", 0, weights="random", device=device).to_host().distance).any()
    assert minigr.bfs(stored(), 3, symmetrize=True, device=device).to_host().depth[:4].tolist() == [2, 2, 1, 0]
    G = networkx.DiGraph([(0, 1, {"w": 5.0}), (1, 2, {"w": 1.0})])
    assert minigr.sssp(G, 0, weight="w", device=device).to_host().distance.tolist() == [0, 5, 6]


@pytest.mark.gpu
def test_cupy_inputs_and_results():
    import cupy
    src, dst = cupy.asarray(EDGES[:, 0]), cupy.asarray(EDGES[:, 1])
    result = minigr.bfs(Graph.from_edges(src, dst, num_vertices=N, device="gpu"), 0)
    assert isinstance(result.depth, cupy.ndarray) and isinstance(result.to_host().depth, numpy.ndarray)
    assert result.to_host().depth.tolist() == [0, 1, 2, 3, -1, -1, -1]
    assert isinstance(minigr.bfs("grid:scale=6", 0).depth, cupy.ndarray)  # the GPU by default


@pytest.mark.parametrize("call, message", [
    (lambda: minigr.bfs([[0, 1]], 0), "graph must be a minigr.Graph, a SciPy sparse matrix or array, a networkx "
                                      "graph, or a file path or generator spec; got list"),
    (lambda: minigr.pagerank("grid:scale=4", damping=1.5), "damping must be between 0 and 1, exclusive, got 1.5"),
    (lambda: minigr.pagerank("grid:scale=4", damping="0.9"), "damping must be a number, got '0.9'"),
    (lambda: minigr.pagerank("grid:scale=4", max_iter=2.5), "max_iter must be an integer, got 2.5"),
    (lambda: minigr.pagerank("grid:scale=4", tol=float("nan")), "tol must be a positive number, got nan"),
    (lambda: minigr.bfs("grid:scale=4", 0, idempotent="yes"), "idempotent must be True or False, got 'yes'"),
    (lambda: minigr.sssp("grid:scale=4", 0, delta=-2.0, weights="random"), "delta must be a positive number"),
    (lambda: minigr.sssp("grid:scale=4", 0, delta="none", weights="random"),
     "delta must be a positive number, 'auto' or None (--delta none), got 'none'"),
    (lambda: minigr.color("grid:scale=4", seed=1.5), "seed must be an integer, got 1.5"),
    (lambda: minigr.bfs("grid:scale=4", "a"), "source must be a vertex id, got 'a'"),
    (lambda: minigr.bfs("grid:scale=4", 99999), "source 99999 is out of range"),
    (lambda: minigr.bfs(minigr.load("grid:scale=4"), 0, symmetrize=True), "symmetrize: options for building a graph"),
    (lambda: minigr.bfs(networkx.Graph([(1, 0)]), 0), "a networkx graph needs nodes 0..n-1 in order"),
    (lambda: minigr.color("kron:scale=4", device="tpu"), "unknown device 'tpu'"),
    (lambda: minigr.color(pathlib.Path("/no/such/graph.mtx")), "no/such/graph.mtx"),
    (lambda: minigr.sssp(networkx.Graph([(0, 1, {"weight": "a"})]), 0), "edge (0, 1) has weight='a', not a real"),
    (lambda: minigr.pagerank(networkx.Graph([(0, 1, {"w": 1j})]), weight="w"), "edge (0, 1) has w=1j, not a real"),
    (lambda: minigr.pagerank("grid:scale=4", personalization={99: 1}), "personalization: 99 is not a vertex id"),
    (lambda: minigr.pagerank("grid:scale=4", nstart={0: "1"}), "nstart: the value of vertex 0 is not a real number"),
])
def test_errors_name_the_parameter(call, message):
    with pytest.raises(MinigrError) as caught:
        call()
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_unknown_keywords_are_type_errors():
    with pytest.raises(TypeError, match="pagerank\\(\\) got an unexpected keyword argument 'dampng'"):
        minigr.pagerank("grid:scale=4", dampng=0.9)
    with pytest.raises(TypeError, match="source"):
        minigr.bfs("grid:scale=4")


def test_networkx_names_of_options(device):
    """alpha is damping; weight (an attribute, or None) weighs PageRank as networkx's does, and
    builds a networkx graph with that attribute; personalization and the like may be networkx's
    dicts {vertex: value}, 0 where missing."""
    G = networkx.DiGraph([(0, 1, {"w": 3.0}), (0, 2, {"w": 1.0}), (2, 0, {}), (1, 3, {"w": 2.0})])
    ranks = lambda **options: minigr.pagerank(G, device=device, tol=1e-10, **options).to_host().rank.tolist()
    assert ranks(alpha=0.7) == ranks(damping=0.7) != ranks()
    assert ranks(weight="w") != ranks(weight=None) == ranks()
    expected = networkx.pagerank(G, alpha=0.7, weight="w", tol=1e-12, personalization={1: 2, 3: 1})
    numpy.testing.assert_allclose(ranks(alpha=0.7, weight="w", personalization={1: 2, 3: 1}),
                                  [expected[v] for v in range(4)], atol=1e-8)
    graph = minigr.Graph.from_networkx(G, "w", device=device)
    assert minigr.pagerank(graph, weight="w").to_host().rank.tolist() == \
        minigr.pagerank(graph, weighted=True).to_host().rank.tolist()
    with pytest.raises(TypeError, match="'alpha' and 'damping'"):
        minigr.pagerank(G, alpha=0.5, damping=0.5)
    with pytest.raises(TypeError, match="'weight' and 'weighted'"):
        minigr.pagerank(G, weight="w", weighted=True)


def test_result_names_and_signatures():
    result = minigr.color("grid:scale=4", device="cpu")
    assert result.num_colors == result.extra["num_colors"]
    with pytest.raises(AttributeError, match="this result has no 'rank'; it has color, num_colors"):
        result.rank
    import inspect
    parameters = list(inspect.signature(minigr.sssp).parameters)
    assert parameters[:2] == ["graph", "source"] and "delta" in parameters
    assert parameters[-2:] == ["device", "build_options"]
    assert "delta-stepping" in minigr.sssp.__doc__.lower()
    assert set(minigr.__all__) >= {"bfs", "sssp", "pagerank", "color", "Graph", "load", "MinigrError"}


# ---- weighted and personalized PageRank against networkx ------------------------------------


def vectors(rng, n, xp, keys):
    """Per-vertex arrays (in xp) with some zeros, for the options named in keys."""
    values = {key: rng.random(n) * (rng.random(n) < 0.7) for key in keys}
    for v in values.values():
        if n and not v.sum():
            v[0] = 1.0
    return {key: xp.asarray(v) for key, v in values.items()}


OPTION_SETS = [(), ("personalization",), ("nstart",), ("dangling",), ("personalization", "nstart", "dangling")]


@pytest.mark.parametrize("name", list(nasty_graphs("cpu")))
@pytest.mark.parametrize("keys", OPTION_SETS)
def test_weighted_personalized_pagerank_against_networkx(device, xp, name, keys):
    graph = nasty_graphs(device, weighted=True)[name]
    rng = numpy.random.default_rng(3)
    options = vectors(rng, graph.num_vertices, xp, keys)
    host = graph.to_scipy().tocoo()
    for weighted in (False, True):
        result = minigr.pagerank(graph, weighted=weighted, tol=1e-10, max_iter=1000, **options)
        expected = networkx_pagerank(host.row, host.col, graph.num_vertices, host.data if weighted else None,
                                     **options)
        numpy.testing.assert_allclose(to_host(result.rank), expected, atol=1e-8, err_msg=f"weighted={weighted}")


def test_weighted_pagerank_real_weights_and_numpy_vectors_on_any_device(device):
    """Real-valued weights, and NumPy vectors for a graph on either device."""
    rng = numpy.random.default_rng(5)
    src, dst = rng.integers(0, 200, 1000), rng.integers(0, 200, 1000)
    weights = rng.uniform(0.01, 100, 1000).astype(numpy.float32)
    graph = Graph.from_edges(src, dst, weights, num_vertices=210, device=device)
    personalization = rng.random(210)
    result = minigr.pagerank(graph, weighted=True, personalization=personalization, tol=1e-10, max_iter=1000)
    expected = networkx_pagerank(src, dst, 210, weights, personalization=personalization)
    numpy.testing.assert_allclose(to_host(result.rank), expected, atol=1e-8)
