"""wcc against scipy.sparse.csgraph.connected_components on the nasty graphs and random
ones of each family, on both backends; its reference check catches wrong labels; the
alternatives the bench runs give the same answer."""
import numpy
import pytest
import scipy.sparse.csgraph as csgraph

import minigr
from minigr.apps._wcc_references import smallest_ids
from minigr.apps.wcc import SAMPLES, check_wcc, wcc, wcc_scipy

from conftest import to_host
from graphs import nasty_graphs, random_graphs


def expected_components(graph):
    """The smallest vertex id of each vertex's weak component, from SciPy."""
    n = graph.num_vertices
    labels = csgraph.connected_components(graph.to_scipy(), directed=True, connection="weak")[1]
    smallest = {}
    for v, label in enumerate(labels):
        smallest.setdefault(label, v)
    return numpy.array([smallest[label] for label in labels], numpy.int32).reshape(n)


@pytest.mark.parametrize("name", list(nasty_graphs("cpu")))
def test_nasty_graphs(device, name):
    graph = nasty_graphs(device)[name]
    result = wcc(graph)
    component = to_host(result.component)
    assert component.dtype == numpy.int32
    numpy.testing.assert_array_equal(component, expected_components(graph))
    assert check_wcc(graph, result.component) == "ok"


@pytest.mark.parametrize("name", list(random_graphs("cpu")))
def test_random_graphs(device, name):
    graph = random_graphs(device)[name]
    for _ in range(2):  # a second call reuses the graph's buffers
        numpy.testing.assert_array_equal(to_host(wcc(graph).component), expected_components(graph))


def test_directed_edges_count_both_ways(device):
    """Chains 0 -> 1 <- 2 and 5 <- 4 -> 3: weakly connected though nothing reaches everything."""
    graph = minigr.Graph.from_edges([0, 2, 4, 4], [1, 1, 5, 3], num_vertices=7, device=device)
    assert to_host(wcc(graph).component).tolist() == [0, 0, 0, 3, 3, 3, 6]


def test_one_giant_and_many_small_components(device):
    """A star of 3000 leaves (the giant, sampled) plus 500 pairs and a path
    reaching into the star from its far end, so every phase has work."""
    hub, leaves = 1000, numpy.arange(1001, 4001)
    src = numpy.concatenate([numpy.full(3000, hub), numpy.arange(0, 1000, 2), numpy.arange(4001, 4100)])
    dst = numpy.concatenate([leaves, numpy.arange(1, 1000, 2), numpy.arange(4002, 4101)])
    src, dst = numpy.append(src, 4100), numpy.append(dst, 4000)
    graph = minigr.Graph.from_edges(src, dst, num_vertices=4200, symmetrize=True, device=device)
    for _ in range(2):  # the second vote starts from the tallies the first left
        numpy.testing.assert_array_equal(to_host(wcc(graph).component), expected_components(graph))
        # The vote names the star (its root, the hub) with the samples in it: every sampled
        # leaf and the hub (each leaf hooked to the hub first), maybe some of the path too.
        best = int(to_host(graph.problems[("wcc",)].best)[0])
        sampled = numpy.arange(SAMPLES, dtype=numpy.uint64) * numpy.uint64(2654435761) % numpy.uint64(4200)
        assert 2**31 - 1 - (best & 0xffffffff) == hub
        in_star = numpy.sum((sampled >= hub) & (sampled <= 4000))
        assert in_star <= best >> 32 <= in_star + numpy.sum(sampled > 4000)


def test_check_catches_wrong_labels():
    graph = nasty_graphs("cpu")["disconnected_loops_duplicates"]
    good = expected_components(graph)
    assert check_wcc(graph, good) == "ok"
    merged = good.copy()
    merged[merged == 5] = 0                      # two components as one
    assert check_wcc(graph, merged).startswith("FAILED: 4 vertices in a wrong component, first 4: 5 (got 0, "
                                               "expected 5), 6 (got 0, expected 5)")
    relabelled = good.copy()
    relabelled[relabelled == 0] = 1              # right partition, not the smallest id
    assert check_wcc(graph, relabelled).startswith("FAILED: 3 vertices in a wrong component")
    assert check_wcc(graph, good[:-1]).startswith("FAILED: component has shape (11,)")


def test_top_level_and_scipy_alternative(device):
    graph = random_graphs("cpu")["sparse_directed_1"]
    expected = expected_components(graph)
    numpy.testing.assert_array_equal(to_host(minigr.wcc(graph.to_scipy(), device=device).component), expected)
    labels, ms, _ = wcc_scipy(graph.to_scipy())
    numpy.testing.assert_array_equal(labels, expected)
    assert ms >= 0 and smallest_ids(numpy.array([4, 2, 4, 7], numpy.int32)).tolist() == [0, 1, 0, 3]


@pytest.mark.gpu
def test_cupy_alternative():
    from minigr.apps.wcc import wcc_cupy
    for name, graph in {**nasty_graphs("gpu"), **random_graphs("gpu")}.items():
        labels, _, rounds = wcc_cupy(graph.row_offsets, graph.col_indices)
        numpy.testing.assert_array_equal(to_host(labels), expected_components(graph), err_msg=name)


@pytest.mark.gpu
def test_a_call_launches_its_captured_graph_not_each_transform():
    """After the first call on a graph (which captures its launches), a call launches the
    CUDA graph of its launches (a Replay), not its ten kernels one by one."""
    from minigr.transforms import launch as launching
    graph = random_graphs("gpu")["sparse_directed_1"]
    wcc(graph)
    before = launching.launches
    numpy.testing.assert_array_equal(to_host(wcc(graph).component), expected_components(graph))
    assert launching.launches == before
