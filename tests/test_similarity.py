"""similarity (Jaccard and overlap) against networkx.jaccard_coefficient and sets of
neighbours, on the undirected nasty graphs and random ones of each family, of every edge
and of given pairs (equal ends, non-edges, isolated vertices), on both backends."""
import json

import networkx
import numpy
import pytest

from minigr import Graph
from minigr.apps import _similarity_references as references
from minigr.apps import similarity as app
from minigr.apps._sparse_products import simple_networkx
from minigr.cli import main
from minigr.transforms import MinigrError

from conftest import to_host
from graphs import nasty_graphs, random_graphs

UNDIRECTED = [name for name, g in {**nasty_graphs("cpu"), **random_graphs("cpu")}.items() if not g.directed]


def graphs(device):
    return {**nasty_graphs(device), **random_graphs(device)}


def expected(graph, pairs):
    """(jaccard, overlap) of the pairs: networkx's jaccard_coefficient and neighbour sets, self-loops aside."""
    reference = simple_networkx(graph)
    reference.remove_edges_from(list(networkx.selfloop_edges(reference)))
    jaccard = [c for _, _, c in networkx.jaccard_coefficient(reference, pairs)]
    least = [min(reference.degree(u), reference.degree(v)) for u, v in pairs]
    common = [len(set(reference[u]) & set(reference[v])) for u, v in pairs]
    return numpy.array(jaccard), numpy.array([c / m if m else 0.0 for c, m in zip(common, least)])


@pytest.mark.parametrize("name", UNDIRECTED)
def test_against_networkx(device, name):
    graph = graphs(device)[name]
    n = graph.num_vertices
    rng = numpy.random.default_rng(3)
    given = rng.integers(0, n, size=(60, 2)).tolist() + [[0, 0], [n - 1, 0]]
    for pairs in (None, given, numpy.array(given), graph.xp.asarray(given)):
        result = app.similarity(graph, pairs=pairs)
        first, second = to_host(result.first), to_host(result.second)
        if pairs is None:  # every stored edge, in order
            numpy.testing.assert_array_equal(first, to_host(graph.edge_sources()))
            numpy.testing.assert_array_equal(second, to_host(graph.col_indices))
        else:
            numpy.testing.assert_array_equal(numpy.column_stack([first, second]), given)
        jaccard, overlap = expected(graph, list(zip(first.tolist(), second.tolist())))
        numpy.testing.assert_allclose(to_host(result.jaccard), jaccard, rtol=1e-15, atol=0)
        numpy.testing.assert_allclose(to_host(result.overlap), overlap, rtol=1e-15, atol=0)


def test_refusals_and_no_pairs(device):
    with pytest.raises(MinigrError, match="similarity needs an undirected graph"):
        app.similarity(graphs(device)["random_directed"])
    star = graphs(device)["star"]
    with pytest.raises(MinigrError, match=r"pairs must hold vertex ids of the graph \(0 to 500\), got 0..501"):
        app.similarity(star, pairs=[(0, 501)])
    result = app.similarity(star, pairs=[])
    assert len(result.jaccard) == len(result.overlap) == len(result.first) == 0


def test_check_catches_wrong_values_and_samples_big_ones(monkeypatch):
    graph = random_graphs("cpu")["kron:scale=9,edge_factor=6,seed=1"]
    values = app.similarity(graph).values
    assert app.check_similarity(graph, values) == "ok"
    monkeypatch.setattr(references, "SAMPLED", 2000)
    assert app.check_similarity(graph, values).startswith("ok (")
    monkeypatch.undo()
    values["overlap"][[4, 7]] *= 1.000001
    assert app.check_similarity(graph, values).startswith("FAILED: 2 pairs with a wrong overlap, first 2: 4 (")


def test_check_counts_edges_of_weight_zero():
    """The check's reference takes every stored edge as a neighbour, whatever its weight: it
    dropped those of weight 0 (with the self-loops), failing right answers (0-1 below)."""
    graph = Graph.from_edges([0, 1, 2, 0], [1, 2, 0, 0], [0.0, 1.0, 2.0, 3.0], symmetrize=True, device="cpu")
    values = app.similarity(graph).values
    numpy.testing.assert_allclose(values["jaccard"], expected(graph, list(zip(values["first"], values["second"])))[0])
    assert app.check_similarity(graph, values) == "ok"


def test_cli_pairs(capsys):
    assert main(["similarity", "grid:scale=6", "--device", "cpu", "--pairs", "0-1,5-5,9-3", "--validate",
                 "--json"]) == 0
    row = json.loads(capsys.readouterr().out)
    assert row["validation"] == "ok"
    with pytest.raises(SystemExit) as exit:  # argparse's usage error
        main(["similarity", "grid:scale=6", "--device", "cpu", "--pairs", "0-1,5"])
    assert exit.value.code == 2
    assert "expected pairs of vertex ids like 0-1,2-7" in capsys.readouterr().err
