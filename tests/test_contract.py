"""minigr.contract against dense matrices: the contracted adjacency is P^T A P (A with each
self-loop doubled, P the group indicator), its diagonal halved back into self-loops; the
groups renumbered in label order; on the nasty graphs, both backends."""
import numpy
import pytest

from minigr.contract import contract

from conftest import to_host
from graphs import nasty_graphs

NAMES = list(nasty_graphs("cpu"))


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("name", NAMES)
def test_contract(device, name, weighted):
    graph = nasty_graphs(device, weighted)[name]
    n = graph.num_vertices
    labels = numpy.random.default_rng(4).integers(-3, 7, n) * 5
    coarse, group = contract(graph, graph.xp.asarray(labels), weighted)
    names = numpy.unique(labels)
    numpy.testing.assert_array_equal(to_host(group), numpy.searchsorted(names, labels))
    dense = numpy.zeros((n, n))
    weights = to_host(graph.weights) if weighted else numpy.ones(graph.num_edges)
    numpy.add.at(dense, (to_host(graph.edge_sources()), to_host(graph.col_indices)), weights)
    dense[numpy.diag_indices(n)] *= 2
    indicator = numpy.zeros((n, len(names)))
    indicator[numpy.arange(n), to_host(group)] = 1
    expected = indicator.T @ dense @ indicator
    expected[numpy.diag_indices(len(names))] /= 2
    assert coarse.num_vertices == len(names) and coarse.directed == graph.directed
    assert to_host(coarse.weights).dtype == numpy.float64
    got = coarse.to("cpu").to_scipy().toarray() if coarse.num_vertices else numpy.zeros((0, 0))
    numpy.testing.assert_allclose(got, expected, rtol=1e-12)
    cols = to_host(coarse.col_indices)
    offsets = to_host(coarse.row_offsets)
    assert all((numpy.diff(cols[a:b]) > 0).all() for a, b in zip(offsets[:-1], offsets[1:]))  # sorted, no repeats
