"""triangles against networkx.triangles on the nasty undirected graphs and random ones of
each family, on both backends; the SpGEMM references (SciPy here, cupyx on the GPU), whole
and in row chunks, against networkx too."""
import itertools

import networkx
import numpy
import pytest
import scipy.sparse

import minigr
from minigr.apps import _sparse_products as products
from minigr.apps import triangles as app
from minigr.transforms import MinigrError

from conftest import to_host
from graphs import nasty_graphs, random_graphs

UNDIRECTED = [name for name, g in {**nasty_graphs("cpu"), **random_graphs("cpu")}.items() if not g.directed]


def graphs(device):
    return {**nasty_graphs(device), **random_graphs(device)}


def expected(graph):
    """networkx.triangles of the simple graph (duplicates once, self-loops ignored) and the total."""
    simple = networkx.Graph()
    simple.add_nodes_from(range(graph.num_vertices))
    simple.add_edges_from(zip(to_host(graph.edge_sources()).tolist(), to_host(graph.col_indices).tolist()))
    counts = networkx.triangles(simple)
    per_vertex = numpy.array([counts[v] for v in range(graph.num_vertices)], numpy.int64)
    return per_vertex, int(per_vertex.sum()) // 3


@pytest.mark.parametrize("name", UNDIRECTED)
def test_against_networkx(device, name):
    graph = graphs(device)[name]
    counts, total = expected(graph)
    for _ in range(2):  # a second call reuses the oriented graph
        result = app.triangles(graph)
        numpy.testing.assert_array_equal(to_host(result.triangles), counts)
        assert result.total == total and isinstance(result.total, int)


def test_cliques_and_stars(device):
    """K_7 (each vertex in C(6, 2) = 15 triangles) with a loop and duplicates, beside a star (none)."""
    pairs = numpy.array(list(itertools.combinations(range(7), 2)) + [(0, 1), (3, 3)])
    star = numpy.column_stack([numpy.full(20, 7), numpy.arange(8, 28)])
    edges = numpy.concatenate([pairs, star])
    graph = minigr.Graph.from_edges(edges[:, 0], edges[:, 1], num_vertices=28, symmetrize=True, device=device)
    result = app.triangles(graph)
    assert to_host(result.triangles).tolist() == [15] * 7 + [0] * 21 and result.total == 35


def test_refuses_a_directed_graph(device):
    with pytest.raises(MinigrError, match="triangles needs an undirected graph"):
        app.triangles(nasty_graphs(device)["random_directed"])


def test_check_catches_wrong_counts():
    graph = random_graphs("cpu")["kron:scale=9,edge_factor=6,seed=1"]
    counts, _ = expected(graph)
    assert app.check_triangles(graph, counts) == "ok"
    counts[[3, 9]] += 1
    assert app.check_triangles(graph, counts).startswith("FAILED: 2 vertices with a wrong count, first 2: 3 (got ")


@pytest.mark.parametrize("chunk", [products.CHUNK_PRODUCTS, 50])
@pytest.mark.parametrize("name", UNDIRECTED)
def test_scipy_spgemm(monkeypatch, chunk, name):
    """The references, whole and in many chunks of rows."""
    monkeypatch.setattr(products, "CHUNK_PRODUCTS", chunk)
    graph = graphs("cpu")[name]
    counts, total = expected(graph)
    setup = products.degree_ordered_upper(graph.to_scipy(), numpy, scipy.sparse)
    numpy.testing.assert_array_equal(products.spgemm_triangles(setup, numpy), counts)
    assert products.spgemm_triangles(setup, numpy, total=True) == total
    assert products.spgemm_system(graph.to_scipy(), numpy, scipy.sparse, "cpu", products.total_triangles)[0] == total


@pytest.mark.gpu
def test_cupy_alternatives():
    import cupy
    import cupyx.scipy.sparse
    for name in UNDIRECTED:
        graph = graphs("gpu")[name]
        counts, total = expected(graph)
        matrix = cupyx.scipy.sparse.csr_matrix(graph.to_scipy())
        assert products.spgemm_system(matrix, cupy, cupyx.scipy.sparse, "gpu", products.total_triangles)[0] == total, name
        per_vertex, _, _ = products.spgemm_system(matrix, cupy, cupyx.scipy.sparse, "gpu", products.spgemm_triangles)
        numpy.testing.assert_array_equal(to_host(per_vertex), counts, err_msg=name)
        assert products.lower_triangle_total(matrix)[0] == total, name
