"""mst (Borůvka's minimum spanning forest) on the undirected nasty graphs and random ones of
each family, unweighted, weighted, with many tied and with negative weights, on both
backends: the total weight of networkx's Kruskal forest (duplicates as a multigraph's
parallel edges), and edges that networkx finds a forest with one tree per component, each
the lightest copy of a graph edge; its check catches forests that are not."""
import networkx
import numpy
import pytest

from minigr import Graph, MinigrError
from minigr.apps.mst import check_mst, mst

from conftest import to_host
from graphs import nasty_graphs, random_graphs


def graphs(device):
    found = {f"{name}{' weighted' if weighted else ''}": g for weighted in (False, True)
             for name, g in {**nasty_graphs(device, weighted, undirected_only=True), **random_graphs(device)}.items()}
    rng = numpy.random.default_rng(11)
    for name, low, high in (("ties", 1, 4), ("negative", -5, 6)):
        src, dst = rng.integers(0, 300, 1200), rng.integers(0, 300, 1200)  # duplicates, self-loops, isolated ones
        weights = rng.integers(low, high, 1200).astype(numpy.float32)
        found[name] = Graph.from_edges(src, dst, weights, num_vertices=320, symmetrize=True, device=device)
    return {name: g for name, g in found.items() if not g.directed}


NAMES = list(graphs("cpu"))


def as_multigraph(graph):
    """Every stored edge u - v once (u < v: the other direction is its mirror), with its weight."""
    g = networkx.MultiGraph()
    g.add_nodes_from(range(graph.num_vertices))
    src, dst = to_host(graph.edge_sources()), to_host(graph.col_indices)
    weights = numpy.ones(len(dst)) if graph.weights is None else to_host(graph.weights)
    g.add_weighted_edges_from((u, v, w) for u, v, w in zip(src.tolist(), dst.tolist(), weights.tolist()) if u < v)
    return g


@pytest.mark.parametrize("name", NAMES)
def test_minimum_spanning_forest(device, name):
    graph = graphs(device)[name]
    g = as_multigraph(graph)
    expected = sum(d["weight"] for _, _, d in networkx.minimum_spanning_edges(g, keys=False, data=True))
    for _ in range(2):  # the second call reuses the problem
        result = mst(graph)
        src, dst, weight = (to_host(result.values[c]) for c in ("src", "dst", "weight"))
        has = src >= 0
        assert numpy.array_equal(has, dst >= 0) and numpy.array_equal(has, ~numpy.isnan(weight))
        assert result.total_weight == pytest.approx(expected, rel=1e-12, abs=1e-12)
        assert weight[has].sum() == pytest.approx(expected, rel=1e-12, abs=1e-12)
        forest = networkx.Graph()
        forest.add_nodes_from(range(graph.num_vertices))
        forest.add_edges_from(zip(src[has].tolist(), dst[has].tolist()))
        assert forest.number_of_edges() == has.sum() == result.num_edges  # no edge twice
        assert networkx.is_forest(forest) if graph.num_vertices else True
        assert networkx.number_connected_components(forest) == networkx.number_connected_components(g)
        for u, v, w in zip(src[has].tolist(), dst[has].tolist(), weight[has].tolist()):
            assert u != v and w == min(d["weight"] for d in g[u][v].values())
        assert check_mst(graph, src, dst, weight) == "ok"


def test_refusals(device):
    with pytest.raises(MinigrError, match="needs an undirected graph"):
        mst(nasty_graphs(device)["random_directed"])
    graph = nasty_graphs(device, weighted=True)["grid"]
    graph.weights[5] = numpy.nan
    with pytest.raises(MinigrError, match="NaN weights"):
        mst(graph)


def test_no_edges(device):
    for n in (0, 1, 4):
        result = mst(Graph.from_edges([], [], num_vertices=n, symmetrize=True, device=device))
        assert to_host(result.src).tolist() == [-1] * n and result.total_weight == 0 and result.num_edges == 0


def test_check_catches_wrong_forests():
    graph = graphs("cpu")["grid weighted"]
    values = mst(graph).values
    src, dst, weight = (values[c].copy() for c in ("src", "dst", "weight"))
    assert check_mst(graph, src, dst, weight) == "ok"
    v = int(numpy.flatnonzero(src >= 0)[0])
    dropped = src.copy(), dst.copy(), weight.copy()
    dropped[0][v], dropped[1][v], dropped[2][v] = -1, -1, numpy.nan
    assert "not a spanning forest" in check_mst(graph, *dropped)
    heavier = weight.copy()
    heavier[v] += 1
    assert "not the lightest copy of a graph edge" in check_mst(graph, src, dst, heavier)
    # another edge across the same cut: still a spanning forest, but heavier than the minimum
    g, n = as_multigraph(graph), graph.num_vertices
    forest = networkx.Graph(list(zip(src[src >= 0].tolist(), dst[src >= 0].tolist())))
    forest.remove_edge(int(src[v]), int(dst[v]))
    side = networkx.node_connected_component(forest, int(src[v]))
    lightest = {(a, b): min(d["weight"] for d in g[a][b].values()) for a, b in g.edges()}
    u, x, w = next((a, b, w) for (a, b), w in lightest.items() if (a in side) != (b in side) and w > weight[v])
    swapped = src.copy(), dst.copy(), weight.copy()
    swapped[0][v], swapped[1][v], swapped[2][v] = u, x, w
    assert check_mst(graph, *swapped).startswith("FAILED: total weight")
