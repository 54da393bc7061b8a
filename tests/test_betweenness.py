"""betweenness and edge_betweenness against networkx (exact, 1e-9 relative) on the nasty
graphs and random ones of each family, directed and undirected, on both backends; sampled
and given sources, normalized and endpoints as networkx has them; the SciPy reference."""
import random

import networkx
import numpy
import pytest

import minigr
from minigr.apps import _betweenness_references as references
from minigr.apps.betweenness import betweenness
from minigr.apps.edge_betweenness import edge_betweenness
from minigr.transforms import MinigrError, launch

from conftest import to_host
from graphs import nasty_graphs, random_graphs

GRAPHS = {**nasty_graphs("cpu"), **random_graphs("cpu", seeds=(1,))}
SMALL = ["random_directed", "random_undirected", "disconnected_loops_duplicates", "star", "no_edges", "one_vertex",
         "sparse_directed_1", "sparse_undirected_1"]


def graphs(device):
    return {**nasty_graphs(device), **random_graphs(device, seeds=(1,))}


class Given(random.Random):
    """A sampler handing networkx the sources chosen here."""

    def __init__(self, sources):
        super().__init__(0)
        self.sources = list(sources)

    def sample(self, population, k):
        return list(self.sources)


def assert_vertices(result, expected, n):
    numpy.testing.assert_allclose(to_host(result.betweenness), [expected[v] for v in range(n)], rtol=1e-9,
                                  atol=1e-15)


def assert_edges(graph, result, expected):
    src, dst = to_host(result.source), to_host(result.target)
    numpy.testing.assert_array_equal(src, to_host(graph.edge_sources()))
    numpy.testing.assert_array_equal(dst, to_host(graph.col_indices))
    want = [expected[(u, v)] if (u, v) in expected else expected[(v, u)] for u, v in zip(src.tolist(), dst.tolist())]
    numpy.testing.assert_allclose(to_host(result.edge_betweenness), want, rtol=1e-9, atol=1e-15)


@pytest.mark.parametrize("name", list(GRAPHS))
def test_against_networkx(device, name):
    """Exact; from 100 sampled sources on the graphs of 1024 vertices (the CPU backend's loops are slow)."""
    graph = graphs(device)[name]
    reference = graph.to_networkx()
    options = {"k": 100, "seed": 1} if graph.num_vertices > 600 else {}
    assert_vertices(betweenness(graph, **options), networkx.betweenness_centrality(reference, **options),
                    graph.num_vertices)
    assert_edges(graph, edge_betweenness(graph, **options), networkx.edge_betweenness_centrality(reference, **options))


@pytest.mark.parametrize("name", SMALL)
@pytest.mark.parametrize("normalized", [True, False])
@pytest.mark.parametrize("endpoints", [True, False])
def test_options_against_networkx(device, name, normalized, endpoints):
    graph = graphs(device)[name]
    n, reference = graph.num_vertices, graph.to_networkx()
    result = betweenness(graph, normalized=normalized, endpoints=endpoints)
    assert_vertices(result, networkx.betweenness_centrality(reference, normalized=normalized, endpoints=endpoints), n)
    for k in sorted({1, min(n, 7), n}):  # networkx's own sampling with the same seed; k = n is exact
        result = betweenness(graph, k=k, seed=5, normalized=normalized, endpoints=endpoints)
        expected = networkx.betweenness_centrality(reference, k=k, seed=5, normalized=normalized,
                                                   endpoints=endpoints)
        numpy.testing.assert_allclose(to_host(result.betweenness), [expected[v] for v in range(n)], rtol=1e-9,
                                      atol=1e-15, equal_nan=True)  # one source, endpoints excluded: its own is nan
        assert_edges(graph, edge_betweenness(graph, k=k, seed=5, normalized=normalized),
                     networkx.edge_betweenness_centrality(reference, k=k, seed=5, normalized=normalized))


@pytest.mark.parametrize("name", ["random_directed", "sparse_undirected_1", "disconnected_loops_duplicates"])
def test_given_sources(device, name):
    graph = graphs(device)[name]
    sources = [3, 0, 7, 3]  # a source given twice counts twice
    for given in (sources, numpy.array(sources), graph.xp.asarray(sources)):
        result = betweenness(graph, sources=given)
        assert_vertices(result, networkx.betweenness_centrality(graph.to_networkx(), k=4, seed=Given(sources)),
                        graph.num_vertices)


@pytest.mark.parametrize("width", [1, 3])
def test_batch_widths(device, monkeypatch, width):
    """Sources walked one or three at a time (64 elsewhere) give the same answers."""
    from minigr.apps import _brandes
    monkeypatch.setattr(_brandes, "WIDTH", width)
    for name in ("random_directed", "disconnected_loops_duplicates"):
        graph = graphs(device)[name]
        reference = graph.to_networkx()
        assert_vertices(betweenness(graph, endpoints=True), networkx.betweenness_centrality(reference, endpoints=True),
                        graph.num_vertices)
        assert_edges(graph, edge_betweenness(graph), networkx.edge_betweenness_centrality(reference))


def test_skewed_degrees_many_paths(device):
    """Layers fully joined to the next: path counts multiply (4^6 per vertex of the last layer)."""
    layers = [numpy.arange(4 * i, 4 * i + 4) for i in range(7)]
    edges = numpy.array([(a, b) for x, y in zip(layers, layers[1:]) for a in x for b in y] + [(0, 28)] * 3)
    graph = minigr.Graph.from_edges(edges[:, 0], edges[:, 1], num_vertices=40, directed=True, device=device)
    reference = graph.to_networkx()
    assert_vertices(betweenness(graph, normalized=False), networkx.betweenness_centrality(reference,
                                                                                          normalized=False), 40)
    assert_edges(graph, edge_betweenness(graph), networkx.edge_betweenness_centrality(reference))


def test_bad_options(device):
    graph = graphs(device)["star"]
    with pytest.raises(MinigrError, match=r"k must be between 1 and the vertex count \(501\), got 600"):
        betweenness(graph, k=600)
    with pytest.raises(MinigrError, match="not both"):
        betweenness(graph, k=3, sources=[1])
    with pytest.raises(MinigrError, match=r"sources must be vertex ids of the graph \(0 to 500\)"):
        betweenness(graph, sources=[1, 501])
    with pytest.raises(MinigrError, match="sources must be a non-empty list of vertex ids"):
        minigr.betweenness(graph, sources=[])
    with pytest.raises(MinigrError, match="sources must be a non-empty list of vertex ids"):
        minigr.betweenness(graph, sources=[[1, 2]])


@pytest.mark.parametrize("name", SMALL + ["kronecker"])
def test_check_against_networkx_and_catches_wrong_values(name):
    """The SciPy reference (the --validate check) is networkx's answer, and says so when one is wrong."""
    graph = GRAPHS[name]
    options = {"k": min(graph.num_vertices, 9), "seed": 2, "endpoints": True} if name == "kronecker" else {}
    expected = networkx.betweenness_centrality(graph.to_networkx(), **options)
    values = {"betweenness": numpy.array([expected[v] for v in range(graph.num_vertices)])}
    assert references.check(graph, values, options, edges=False) == "ok"
    if graph.num_edges:
        values["betweenness"][numpy.argmax(values["betweenness"])] *= 1 + 1e-8
        assert references.check(graph, values, options, edges=False).startswith("FAILED: 1 vertex with a wrong")
        result = edge_betweenness(graph).values
        assert references.check(graph, result, {}, edges=True) == "ok"
        result["edge_betweenness"][-1] += 1e-6
        verdict = references.check(graph, result, {}, edges=True)
        assert verdict.startswith("FAILED: 1 edge with a wrong betweenness, first 1: ")


def test_persistent_loops_compile():
    """Both passes also compile as one persistent kernel each (NVRTC, no GPU needed)."""
    with launch.compile_check("90") as compiled:
        betweenness(GRAPHS["kronecker"], k=4, loop="persistent")
    assert compiled


@pytest.mark.gpu
@pytest.mark.parametrize("loop", ["persistent", "host", "auto"])
def test_loop_modes_agree(loop):
    """Every loop mode gives the device loop's answer (sums in another order: 1e-12)."""
    for name in ("grid", "kronecker", "random_directed"):
        graph = graphs("gpu")[name]
        for app in (betweenness, edge_betweenness):
            expected, got = (to_host(app(graph, k=70, seed=3, loop=mode).values[app.__name__])
                             for mode in ("device", loop))
            numpy.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-15, err_msg=f"{name} {app.__name__}")
