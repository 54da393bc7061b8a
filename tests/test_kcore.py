"""kcore against networkx.core_number and k_core on the nasty graphs and random ones of each
family (their self-loops dropped: networkx refuses them, and so does kcore), directed and
undirected, on both backends."""
import networkx
import numpy
import pytest

import minigr
from minigr.apps._kcore_references import check_kcore, cores_numpy
from minigr.apps.kcore import kcore
from minigr.cli import main
from minigr.transforms import MinigrError, launch

from conftest import to_host
from graphs import nasty_graphs, random_graphs

NAMES = list({**nasty_graphs("cpu"), **random_graphs("cpu")})


def loop_free(graph):
    """The graph without its self-loops (duplicates kept)."""
    src, dst = to_host(graph.edge_sources()), to_host(graph.col_indices)
    keep = src != dst
    return minigr.Graph.from_edges(graph.xp.asarray(src[keep]), graph.xp.asarray(dst[keep]),
                                   num_vertices=graph.num_vertices, directed=graph.directed, device=graph.device)


@pytest.mark.parametrize("name", NAMES)
def test_against_networkx(device, name):
    graph = {**nasty_graphs(device), **random_graphs(device)}[name]
    if bool((graph.edge_sources() == graph.col_indices).any()):
        with pytest.raises(MinigrError, match="core numbers are not defined on a graph with self-loops"):
            kcore(graph)
        graph = loop_free(graph)
    reference = graph.to_networkx()
    expected = networkx.core_number(reference)
    n = graph.num_vertices
    for k in (None, 0, 2, 5):
        for _ in range(2):  # a second call reuses the problem
            result = kcore(graph, k=k)
            numpy.testing.assert_array_equal(to_host(result.core), [expected[v] for v in range(n)])
        if n:
            members = set(networkx.k_core(reference, k=k).nodes)
            assert set(numpy.flatnonzero(to_host(result.in_core)).tolist()) == members
            assert result.max_core == max(expected.values())


@pytest.mark.parametrize("name", NAMES)
def test_numpy_reference_against_networkx(name):
    """The check's reference."""
    graph = loop_free({**nasty_graphs("cpu"), **random_graphs("cpu")}[name])
    expected = networkx.core_number(graph.to_networkx())
    assert cores_numpy(graph).tolist() == [expected[v] for v in range(graph.num_vertices)]


def test_directed_counts_in_and_out_edges(device):
    """A directed 4-clique of edges both ways (degree 6 each) and a directed triangle beside it."""
    pairs = [(a, b) for a in range(4) for b in range(4) if a != b] + [(4, 5), (5, 6), (6, 4), (4, 5)]
    edges = numpy.array(pairs)
    graph = minigr.Graph.from_edges(edges[:, 0], edges[:, 1], num_vertices=8, directed=True, device=device)
    result = kcore(graph)
    assert to_host(result.core).tolist() == [6, 6, 6, 6, 2, 2, 2, 0]
    assert to_host(result.core).tolist() == [networkx.core_number(graph.to_networkx())[v] for v in range(8)]
    assert to_host(result.in_core).tolist() == [1, 1, 1, 1, 0, 0, 0, 0]


def test_check_catches_wrong_values():
    graph = random_graphs("cpu")["kron:scale=9,edge_factor=6,seed=1"]
    values = kcore(graph, k=3).values
    assert check_kcore(graph, values, 3) == "ok"
    values["core"][[5, 9]] += 1
    assert check_kcore(graph, values, 3).startswith("FAILED: 2 vertices with a wrong core number, first 2: 5 (got ")
    values = kcore(graph).values
    values["in_core"][numpy.argmax(values["core"])] = 0
    assert "wrongly in or out of the k-core" in check_kcore(graph, values)


def test_cli_drops_self_loops_when_asked(capsys, tmp_path):
    path = tmp_path / "loops.txt"
    path.write_text("0 1\n1 2\n2 0\n2 2\n3 0\n")
    assert main(["kcore", str(path), "--device", "cpu", "--symmetrize", "--validate"]) == 2
    assert "self-loops" in capsys.readouterr().err
    assert main(["kcore", str(path), "--device", "cpu", "--symmetrize", "--remove-self-loops", "--validate"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "validation: ok"


def test_persistent_loop_compiles():
    """The peeling also compiles as one persistent kernel (NVRTC, no GPU needed)."""
    with launch.compile_check("90") as compiled:
        kcore(random_graphs("cpu")["grid:scale=8,seed=1"], loop="persistent")
    assert compiled


@pytest.mark.gpu
@pytest.mark.parametrize("loop", ["persistent", "host", "device"])
def test_loop_modes_agree(loop):
    for name in ("grid", "kronecker", "random_undirected"):
        graph = nasty_graphs("gpu")[name]
        numpy.testing.assert_array_equal(to_host(kcore(graph, loop=loop).core), to_host(kcore(graph).core),
                                         err_msg=name)
