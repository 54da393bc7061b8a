"""mis (Luby's maximal independent set) on the undirected nasty graphs and random ones of
each family, on both backends and several seeds: independent and maximal by networkx's
own tests (no edge inside the set, and the set dominates the graph); with priorities fixed
by the seed, Luby's rounds pick what the sequential greedy pass in priority order picks;
and its check catches sets that are not independent or not maximal."""
import networkx
import numpy
import pytest

from minigr import Graph, MinigrError
from minigr.apps.mis import check_mis, mis

from conftest import to_host
from graphs import nasty_graphs, random_graphs


def graphs(device):
    found = {**nasty_graphs(device, undirected_only=True), **random_graphs(device)}
    return {name: g for name, g in found.items() if not g.directed}


NAMES = list(graphs("cpu"))


def simple_networkx(graph):
    """The graph as a simple undirected networkx graph, self-loops left out."""
    g = networkx.Graph()
    g.add_nodes_from(range(graph.num_vertices))
    g.add_edges_from((u, v) for u, v in zip(to_host(graph.edge_sources()).tolist(),
                                             to_host(graph.col_indices).tolist()) if u != v)
    return g


def greedy_by_priority(g, priority):
    """The sequential greedy independent set, vertices taken by decreasing priority."""
    chosen = set()
    for v in numpy.argsort(-priority, kind="stable").tolist():
        if not any(u in chosen for u in g[v]):
            chosen.add(v)
    return chosen


@pytest.mark.parametrize("name", NAMES)
def test_independent_and_maximal(device, name):
    graph = graphs(device)[name]
    g = simple_networkx(graph)
    for seed in (0, 1, 2**40 + 7, 2**64 - 3):
        for loop in ("device", "host"):
            result = mis(graph, seed=seed, loop=loop)
            in_set = to_host(result.in_set)
            assert in_set.dtype == numpy.int8 and set(numpy.unique(in_set)) <= {0, 1}
            members = set(numpy.flatnonzero(in_set).tolist())
            assert result.size == len(members)
            assert g.subgraph(members).number_of_edges() == 0  # independent
            assert networkx.is_dominating_set(g, members)  # so maximal: no vertex can join
            priority = to_host(graph.problems[("mis",)].priority)
            assert members == greedy_by_priority(g, priority)
            assert check_mis(graph, result.in_set) == "ok"


def test_seeds_draw_different_sets(device):
    graph = nasty_graphs(device)["kronecker"]
    sets = [tuple(to_host(mis(graph, seed=seed).in_set)) for seed in range(4)]
    assert len(set(sets)) == 4
    assert tuple(to_host(mis(graph, seed=2).in_set)) == sets[2]  # the same seed, the same set


def test_small_graphs(device):
    """No vertices; one vertex with a self-loop (ignored: it joins); a triangle with a
    pendant vertex (one of the triangle and maybe the pendant)."""
    empty = Graph.from_edges([], [], num_vertices=0, symmetrize=True, device=device)
    assert mis(empty).size == 0 and len(mis(empty).in_set) == 0
    loop = Graph.from_edges([0], [0], num_vertices=1, symmetrize=True, device=device)
    assert to_host(mis(loop).in_set).tolist() == [1]
    triangle = Graph.from_edges([0, 1, 2, 2], [1, 2, 0, 3], symmetrize=True, device=device)
    for seed in range(8):
        in_set = to_host(mis(triangle, seed=seed).in_set)
        assert in_set[:3].sum() == 1 and (in_set[3] == 1) == (in_set[2] == 0)


def test_refuses_directed(device):
    with pytest.raises(MinigrError, match="needs an undirected graph"):
        mis(nasty_graphs(device)["random_directed"])


def test_check_catches_wrong_sets():
    graph = nasty_graphs("cpu")["grid"]
    in_set = mis(graph).in_set.copy()
    assert check_mis(graph, in_set) == "ok"
    member = int(numpy.flatnonzero(in_set)[0])
    outside = in_set.copy()
    outside[member] = 0
    assert "outside the set with no neighbour in it" in check_mis(graph, outside)
    neighbour = int(graph.col_indices[graph.row_offsets[member]])
    joined = in_set.copy()
    joined[neighbour] = 1
    found = check_mis(graph, joined)
    assert "in the set with a neighbour in it" in found and f" {neighbour} (and " in found
    in_set[3] = 2
    assert check_mis(graph, in_set).startswith("FAILED: 1 vertex neither 0 nor 1")
    assert check_mis(graph, in_set[:-1]).startswith("FAILED: in_set has shape")
