"""ktruss against networkx.k_truss on the undirected nasty graphs and random ones of each
family (their self-loops dropped: networkx refuses them, and so does ktruss), and on dense
random graphs where many triangles lose several edges at one level, on both backends."""
import networkx
import numpy
import pytest

import minigr
from minigr.apps._ktruss_references import check_ktruss, networkx_truss, truss_numpy
from minigr.apps.ktruss import ktruss
from minigr.transforms import MinigrError

from conftest import to_host
from graphs import nasty_graphs, random_graphs
from test_kcore import loop_free

UNDIRECTED = [name for name, g in {**nasty_graphs("cpu"), **random_graphs("cpu")}.items() if not g.directed]


@pytest.mark.parametrize("name", UNDIRECTED)
def test_against_networkx(device, name):
    graph = {**nasty_graphs(device), **random_graphs(device)}[name]
    if bool((graph.edge_sources() == graph.col_indices).any()):
        with pytest.raises(MinigrError, match="the k-truss is not defined on a graph with self-loops"):
            ktruss(graph)
        graph = loop_free(graph)
    for k in (2, 3, 4, 5, 8):
        result = ktruss(graph, k=k)
        numpy.testing.assert_array_equal(to_host(result.source), to_host(graph.edge_sources()))
        numpy.testing.assert_array_equal(to_host(result.target), to_host(graph.col_indices))
        numpy.testing.assert_array_equal(to_host(result.in_truss), networkx_truss(graph.to("cpu"), k)[0],
                                         err_msg=f"k={k}")


@pytest.mark.parametrize("seed", range(6))
def test_dense_random_graphs(device, seed):
    """Cliques overlapping a dense random graph, with duplicate edges: levels remove many
    edges of one triangle at once."""
    rng = numpy.random.default_rng(seed)
    dense = networkx.gnp_random_graph(40, 0.35, seed=seed)
    clique = rng.choice(40, size=9, replace=False)
    edges = list(dense.edges) + [(a, b) for a in clique for b in clique if a < b] + list(dense.edges)[:20]
    edges = numpy.array(edges)
    graph = minigr.Graph.from_edges(edges[:, 0], edges[:, 1], num_vertices=45, symmetrize=True, device=device)
    for k in range(3, 11):
        expected = networkx_truss(graph.to("cpu"), k)[0]
        numpy.testing.assert_array_equal(to_host(ktruss(graph, k=k).in_truss), expected, err_msg=f"k={k}")


def test_refuses_a_directed_graph(device):
    with pytest.raises(MinigrError, match="ktruss needs an undirected graph"):
        ktruss(nasty_graphs(device)["random_directed"])


@pytest.mark.parametrize("chunk", [2**24, 7])
@pytest.mark.parametrize("name", UNDIRECTED)
def test_numpy_reference_against_networkx(monkeypatch, chunk, name):
    """The check's reference, whole and listing the triangles in many small chunks."""
    from minigr.apps import _ktruss_references as references
    monkeypatch.setattr(references, "CHUNK", chunk)
    graph = loop_free({**nasty_graphs("cpu"), **random_graphs("cpu")}[name])
    for k in (2, 3, 4, 6):
        numpy.testing.assert_array_equal(truss_numpy(graph, k), networkx_truss(graph, k)[0], err_msg=f"k={k}")


def test_check_catches_wrong_values():
    graph = random_graphs("cpu")["rgg:scale=9,seed=1"]
    values = ktruss(graph, k=5).values
    assert check_ktruss(graph, values, 5) == "ok"
    values["in_truss"][[3, 8]] ^= 1
    assert check_ktruss(graph, values, 5).startswith("FAILED: 2 edges wrongly in or out of the k-truss, first 2: 3 (")


@pytest.mark.gpu
def test_host_loop_agrees():
    for name in ("grid", "kronecker", "random_undirected"):
        graph = nasty_graphs("gpu")[name]
        numpy.testing.assert_array_equal(to_host(ktruss(graph, k=4, loop="host").in_truss),
                                         to_host(ktruss(graph, k=4).in_truss), err_msg=name)
