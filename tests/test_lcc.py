"""lcc against LDBC Graphalytics' definition computed vertex by vertex with Python sets, on
the nasty graphs (directed ones included) and random ones of each family, on both backends;
against networkx.clustering on undirected graphs; the SpGEMM references against the sets."""
import numpy
import pytest
import scipy.sparse

from minigr.apps import lcc as app
from minigr.apps import _sparse_products as triangles

from conftest import to_host
from graphs import nasty_graphs, random_graphs


def graphs(device):
    return {**nasty_graphs(device), **random_graphs(device)}


NAMES = list(graphs("cpu"))


def by_definition(graph):
    """Graphalytics' LCC: for each v, N(v) = in- and out-neighbours but v; the directed
    edges u -> w (u != w) with both ends in N(v), over |N(v)| (|N(v)| - 1); 0 below 2."""
    n = graph.num_vertices
    edges = {(u, w) for u, w in zip(to_host(graph.edge_sources()).tolist(), to_host(graph.col_indices).tolist())
             if u != w}
    around = [set() for _ in range(n)]
    for u, w in edges:
        around[u].add(w)
        around[w].add(u)
    coefficient = numpy.zeros(n)
    for v in range(n):
        d = len(around[v])
        if d > 1:
            coefficient[v] = sum((u, w) in edges for u in around[v] for w in around[v]) / (d * (d - 1))
    return coefficient


@pytest.mark.parametrize("name", NAMES)
def test_against_the_definition(device, name):
    graph = graphs(device)[name]
    expected = by_definition(graph)
    for _ in range(2):  # a second call reuses the oriented graph
        result = app.lcc(graph)
        coefficient = to_host(result.lcc)
        assert coefficient.dtype == numpy.float64
        numpy.testing.assert_allclose(coefficient, expected, rtol=1e-12, atol=0)


@pytest.mark.parametrize("name", [name for name, g in graphs("cpu").items() if not g.directed])
def test_undirected_is_networkx_clustering(name):
    graph = graphs("cpu")[name]
    expected, _, _ = app.networkx_lcc(graph)
    numpy.testing.assert_allclose(by_definition(graph), expected, rtol=1e-12, atol=0)
    numpy.testing.assert_allclose(to_host(app.lcc(graph).lcc), expected, rtol=1e-12, atol=0)


def test_directed_counts_each_direction(device):
    """Edges 0->1, 0->2, 3->0, 1->2, 2->1, 3->1. 0's neighbours 1, 2, 3 are joined by 1->2, 2->1
    and 3->1 (3 of 6 ordered pairs); 1's, 0, 2, 3, by 0->2 and 3->0 (2 of 6); 2's, 0 and 1, by
    0->1 (1 of 2); 3's, 0 and 1, by 0->1; 4 has none."""
    from minigr import Graph
    graph = Graph.from_edges([0, 0, 3, 1, 2, 3], [1, 2, 0, 2, 1, 1], num_vertices=5, device=device)
    assert by_definition(graph).tolist() == [1 / 2, 1 / 3, 1 / 2, 1 / 2, 0]
    numpy.testing.assert_allclose(to_host(app.lcc(graph).lcc), [1 / 2, 1 / 3, 1 / 2, 1 / 2, 0], rtol=1e-12)


def test_check_catches_a_wrong_coefficient():
    graph = nasty_graphs("cpu")["random_directed"]
    coefficient = by_definition(graph)
    assert app.check_lcc(graph, coefficient) == "ok"
    coefficient[5] += 1e-9
    assert app.check_lcc(graph, coefficient).startswith("FAILED: 1 vertex with a wrong coefficient, first 1: 5 (got ")


@pytest.mark.parametrize("name", NAMES)
def test_scipy_spgemm_in_chunks(monkeypatch, name):
    monkeypatch.setattr(triangles, "CHUNK_PRODUCTS", 40)
    graph = graphs("cpu")[name]
    numpy.testing.assert_allclose(app.scipy_lcc(graph.to_scipy()), by_definition(graph), rtol=1e-12, atol=0)
    values, ms, _ = triangles.spgemm_system(graph.to_scipy(), numpy, scipy.sparse, "cpu", app.spgemm_lcc)
    numpy.testing.assert_allclose(values, by_definition(graph), rtol=1e-12, atol=0)


@pytest.mark.gpu
def test_cupy_alternative():
    import cupy
    import cupyx.scipy.sparse
    for name, graph in graphs("gpu").items():
        values, _, _ = triangles.spgemm_system(cupyx.scipy.sparse.csr_matrix(graph.to_scipy()), cupy,
                                               cupyx.scipy.sparse, "gpu", app.spgemm_lcc)
        numpy.testing.assert_allclose(to_host(values), by_definition(graph), rtol=1e-12, atol=0, err_msg=name)
