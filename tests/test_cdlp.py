"""cdlp against Graphalytics' definition: a plain-Python count per vertex checks the NumPy
reference, which checks the app on the nasty graphs and random ones of each family, on both
backends and both loops; directed graphs count in- and out-neighbours."""
import collections

import numpy
import pytest

import minigr
from minigr.apps.cdlp import cdlp, cdlp_numpy, cdlp_reference, check_cdlp
from minigr.transforms import MinigrError

from conftest import to_host
from graphs import nasty_graphs, random_graphs


def by_hand(graph, iterations):
    """Label propagation one vertex at a time with collections.Counter (every stored edge
    counts; a directed graph counts each edge at both ends)."""
    n = graph.num_vertices
    src, dst = to_host(graph.edge_sources()).tolist(), to_host(graph.col_indices).tolist()
    neighbours = [[] for _ in range(n)]
    for u, v in zip(src, dst):
        neighbours[u].append(v)
        if graph.directed:
            neighbours[v].append(u)
    label = list(range(n))
    for _ in range(iterations):
        counts = [collections.Counter(label[u] for u in around) for around in neighbours]
        label = [min(c, key=lambda x: (-c[x], x)) if c else label[v] for v, c in enumerate(counts)]
    return numpy.array(label, numpy.int32)


@pytest.mark.parametrize("name", list(nasty_graphs("cpu")))
def test_reference_against_a_count_by_hand(name):
    graph = nasty_graphs("cpu")[name]
    for iterations in (1, 2, 5):
        numpy.testing.assert_array_equal(cdlp_reference(graph, iterations), by_hand(graph, iterations))


def test_directed_counts_in_and_out_neighbours(device):
    """0's neighbours: in 1, 2, 3 and out 2, so label 2 counts twice; 2 has 0 both ways; 4 is alone."""
    graph = minigr.Graph.from_edges([1, 0, 2, 3], [0, 2, 0, 0], num_vertices=5, device=device)
    assert to_host(cdlp(graph, iterations=1).label).tolist() == [2, 0, 0, 0, 4]
    assert by_hand(graph, 1).tolist() == [2, 0, 0, 0, 4]


def test_ties_go_to_the_smallest_label(device):
    """A star: the centre sees leaves 3..9 once each and takes 3; every leaf takes the centre's 0."""
    graph = minigr.Graph.from_edges(numpy.zeros(7, int), numpy.arange(3, 10), num_vertices=10, symmetrize=True,
                                    device=device)
    assert to_host(cdlp(graph, iterations=1).label).tolist() == [3, 1, 2] + [0] * 7


@pytest.mark.parametrize("name", list(nasty_graphs("cpu")))
@pytest.mark.parametrize("loop", ["device", "host"])
def test_nasty_graphs(device, name, loop):
    graph = nasty_graphs(device)[name]
    for iterations in (1, 3, 10):
        result = cdlp(graph, iterations=iterations, loop=loop)
        label = to_host(result.label)
        assert label.dtype == numpy.int32 and result.iterations == (iterations if graph.num_vertices else 0)
        numpy.testing.assert_array_equal(label, cdlp_reference(graph, iterations))


@pytest.mark.parametrize("name", list(random_graphs("cpu")))
def test_random_graphs(device, name):
    graph = random_graphs(device)[name]
    numpy.testing.assert_array_equal(to_host(cdlp(graph).label), cdlp_reference(graph, 10))
    assert check_cdlp(graph, cdlp(graph, iterations=4).label, iterations=4) == "ok"


def test_check_catches_a_wrong_label():
    graph = random_graphs("cpu")["kron:scale=9,edge_factor=6,seed=1"]
    label = cdlp_reference(graph, 10)
    label[7] += 1
    assert check_cdlp(graph, label).startswith("FAILED: 1 vertex with a wrong label, first 1: 7 (got ")
    assert check_cdlp(graph, label[:5]).startswith("FAILED: label has shape (5,)")


def test_bad_iterations(device):
    graph = nasty_graphs(device)["grid"]
    for wrong in (0, 2**31):
        with pytest.raises(MinigrError, match=rf"iterations must be from 1 to 2\^31 - 1, got {wrong}"):
            cdlp(graph, iterations=wrong)
    with pytest.raises(MinigrError, match="iterations must be an integer, got 2.5"):
        minigr.cdlp(graph, iterations=2.5)


def test_numpy_alternative():
    graph = random_graphs("cpu")["sparse_directed_2"]
    label, ms, iterations = cdlp_numpy(graph, 10)
    numpy.testing.assert_array_equal(label, by_hand(graph, 10))
    assert ms >= 0 and iterations == 10


@pytest.mark.gpu
def test_cupy_alternative():
    from minigr.apps.cdlp import cdlp_cupy
    for name, graph in {**nasty_graphs("gpu"), **random_graphs("gpu")}.items():
        label, _, _ = cdlp_cupy(graph, 10)
        numpy.testing.assert_array_equal(to_host(label), cdlp_reference(graph, 10), err_msg=name)
