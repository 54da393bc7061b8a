"""Eigenvector, Katz and HITS centralities (minigr.apps.eigenvector, katz, hits) against
networkx's own functions on the nasty graphs and random ones of each family, weighted and
not, on both backends: the same values where networkx converges, a MinigrError where it
raises PowerIterationFailedConvergence; and the SpMV references of their checks."""
import networkx
import numpy
import pytest
import scipy.sparse
from networkx.algorithms.link_analysis.hits_alg import _hits_python

from minigr import Graph, MinigrError
from minigr.apps import _centrality_references as refs
from minigr.apps.eigenvector import eigenvector
from minigr.apps.hits import hits
from minigr.apps.katz import katz

from conftest import to_host
from graphs import nasty_graphs, random_graphs

ATOL = 1e-9  # the same iteration, summed in another order


def graphs(device, weighted=False):
    return {**nasty_graphs(device, weighted), **random_graphs(device, seeds=(1,))}


NAMES = list(graphs("cpu"))


def as_networkx(graph, weighted):
    """A networkx DiGraph of the graph: each pair's "weight" the sum of its copies' weights
    (or their count), so that networkx counts a duplicate once per copy, as minigr does."""
    matrix = graph.to_scipy()
    if not weighted:
        matrix.data[:] = 1
    matrix = scipy.sparse.csr_matrix(matrix, dtype=numpy.float64)
    matrix.sum_duplicates()
    return networkx.from_scipy_sparse_array(matrix, create_using=networkx.DiGraph)


def by_vertex(found, n):
    return numpy.array([found[v] for v in range(n)])


def expected_or_failure(function, *args, **kwargs):
    """networkx's answer, or None where its power iteration does not converge."""
    try:
        return function(*args, **kwargs)
    except networkx.PowerIterationFailedConvergence:
        return None


def compare(run, expected):
    """run() matches networkx's answer (name -> dict by node, or None: it raised)."""
    if expected is None:
        with pytest.raises(MinigrError, match=r"did not converge in \d+ iterations"):
            run()
        return
    result = run()
    for name, found in expected.items():
        got = to_host(result.values[name])
        assert got.dtype == numpy.float64
        numpy.testing.assert_allclose(got, by_vertex(found, len(got)), atol=ATOL, rtol=0, err_msg=name)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("name", NAMES)
def test_eigenvector(device, name, weighted):
    graph = graphs(device, weighted)[name]
    if weighted and graph.weights is None:
        pytest.skip("generated without weights")
    if graph.num_vertices == 0:
        with pytest.raises(MinigrError, match="no vertices"):
            eigenvector(graph)
        return
    g = as_networkx(graph, weighted)
    expected = expected_or_failure(networkx.eigenvector_centrality, g, weight="weight")
    for _ in range(2):  # the second call reuses the problem
        compare(lambda: eigenvector(graph, weighted=weighted), expected and {"centrality": expected})


@pytest.mark.parametrize("alpha", [0.1, 0.01])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("name", NAMES)
def test_katz(device, name, weighted, alpha):
    graph = graphs(device, weighted)[name]
    if weighted and graph.weights is None:
        pytest.skip("generated without weights")
    alpha /= 64 if weighted else 1  # weights up to 64
    g = as_networkx(graph, weighted)
    expected = expected_or_failure(networkx.katz_centrality, g, alpha=alpha, weight="weight")
    for _ in range(2):
        compare(lambda: katz(graph, alpha=alpha, weighted=weighted), expected and {"centrality": expected})


def test_hits_on_weights_all_zero_is_refused_as_without_edges(device):
    """Weighted HITS where every weight is 0: every score is 0, as without edges; the error said the values
    overflowed and to raise max_iter or tol, which cannot help."""
    graph = Graph.from_edges([0, 1], [1, 2], [0.0, 0.0], device=device)
    with pytest.raises(MinigrError, match=r"HITS needs at least one edge of nonzero weight"):
        hits(graph, weighted=True)
    assert hits(graph).hub is not None  # unweighted, the edges count


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("name", NAMES)
def test_hits(device, name, weighted):
    """Against networkx's power iteration (which networkx.hits solves with ARPACK instead,
    see test_hits_is_networkx_hits); a graph without edges is refused, as networkx fails."""
    graph = graphs(device, weighted)[name]
    if weighted and graph.weights is None:
        pytest.skip("generated without weights")
    if graph.num_vertices and not graph.num_edges:
        with pytest.raises(MinigrError, match="at least one edge"):
            hits(graph)
        return
    g = as_networkx(graph, weighted)  # _hits_python always reads "weight"
    expected = expected_or_failure(_hits_python, g) if graph.num_vertices else ({}, {})
    for _ in range(2):
        compare(lambda: hits(graph, weighted=weighted), expected and dict(zip(("hub", "authority"), expected)))


@pytest.mark.parametrize("weighted", [False, True])
def test_pulled_in_blocks(device, monkeypatch, weighted):
    """Pulled in 3 blocks of neighbour ids each (minigr.operators.Pull, as where the
    vector overflows L2): networkx's values on every nasty graph with edges."""
    import minigr.operators.pull as module
    made = []
    monkeypatch.setattr(module, "pull_blocks", lambda graph, itemsize: made.append(itemsize) or 3)
    for name, graph in nasty_graphs(device, weighted).items():
        if not graph.num_edges:
            continue
        g = as_networkx(graph, weighted)
        expected = expected_or_failure(networkx.eigenvector_centrality, g, weight="weight")
        compare(lambda: eigenvector(graph, weighted=weighted), expected and {"centrality": expected})
        expected = expected_or_failure(networkx.katz_centrality, g, alpha=0.05, weight="weight")
        compare(lambda: katz(graph, alpha=0.05, weighted=weighted), expected and {"centrality": expected})
        expected = expected_or_failure(_hits_python, g)
        compare(lambda: hits(graph, weighted=weighted), expected and dict(zip(("hub", "authority"), expected)))
    assert made


@pytest.mark.parametrize("name", ["random_directed", "random_undirected", "kronecker"])
def test_hits_is_networkx_hits(name):
    """networkx.hits (ARPACK's singular vectors) where the largest singular value is simple."""
    graph = graphs("cpu")[name]
    expected = networkx.hits(as_networkx(graph, False))
    result = hits(graph)
    for got, found in zip((result.hub, result.authority), expected):
        numpy.testing.assert_allclose(got, by_vertex(found, graph.num_vertices), atol=1e-7, rtol=0)


def test_starts_and_unnormalized(device):
    """nstart, normalized=False and both loops, against networkx."""
    graph = nasty_graphs(device)["random_directed"]
    g, n = as_networkx(graph, False), graph.num_vertices
    start = numpy.random.default_rng(3).random(n)
    nstart = dict(enumerate(start))
    xp = graph.xp
    for loop in ("device", "host"):
        numpy.testing.assert_allclose(
            to_host(eigenvector(graph, nstart=xp.asarray(start), loop=loop).centrality),
            by_vertex(networkx.eigenvector_centrality(g, nstart=nstart, weight="weight"), n), atol=ATOL, rtol=0)
        numpy.testing.assert_allclose(
            to_host(katz(graph, alpha=0.05, beta=2.0, nstart=start, normalized=False, loop=loop).centrality),
            by_vertex(networkx.katz_centrality(g, alpha=0.05, beta=2.0, nstart=nstart, normalized=False,
                                               weight="weight"), n), atol=ATOL, rtol=1e-12)
        result = hits(graph, nstart=start, normalized=False, loop=loop)
        hub, authority = _hits_python(g, nstart=dict(nstart), normalized=False)  # it scales nstart in place
        numpy.testing.assert_allclose(to_host(result.hub), by_vertex(hub, n), atol=ATOL, rtol=0)
        numpy.testing.assert_allclose(to_host(result.authority), by_vertex(authority, n), atol=ATOL, rtol=0)


@pytest.mark.parametrize("primitive", [eigenvector, katz, hits])
def test_bad_arguments(device, primitive):
    graph = nasty_graphs(device)["random_directed"]
    with pytest.raises(MinigrError, match="tol must be positive"):
        primitive(graph, tol=0)
    for wrong in (0, 2**31):
        with pytest.raises(MinigrError, match=r"max_iter from 1 to 2\^31 - 1"):
            primitive(graph, max_iter=wrong)
    with pytest.raises(MinigrError, match=r"nstart must have one entry per vertex \(300\)"):
        primitive(graph, nstart=numpy.ones(3))
    with pytest.raises(MinigrError, match="needs edge weights"):
        primitive(graph, weighted=True)
    with pytest.raises(MinigrError, match=r"power iteration did not converge in 2 iterations \(L1 change "):
        primitive(graph, max_iter=2, tol=1e-15)


def test_katz_names_a_diverging_alpha(device):
    graph = nasty_graphs(device)["kronecker"]
    with pytest.raises(MinigrError, match="did not converge in 1000 iterations .*overflowed.*lower alpha"):
        katz(graph)
    with pytest.raises(MinigrError, match="alpha must be a finite number"):
        katz(graph, alpha=float("nan"))


@pytest.mark.parametrize("kind", ["eigenvector", "katz", "hits"])
@pytest.mark.parametrize("weighted", [False, True])
def test_references_are_networkx(kind, weighted):
    """The checks' SpMV iterations give networkx's answers."""
    graph = nasty_graphs("cpu", weighted)["disconnected_loops_duplicates"]
    g = as_networkx(graph, weighted)
    found = refs.references(graph, kind, weighted=weighted, **({"alpha": 0.005} if kind == "katz" else {}))
    expected = {"eigenvector": lambda: {"centrality": networkx.eigenvector_centrality(g, weight="weight")},
                "katz": lambda: {"centrality": networkx.katz_centrality(g, alpha=0.005, weight="weight")},
                "hits": lambda: dict(zip(("hub", "authority"), _hits_python(g)))}[kind]()
    for name, values in expected.items():
        numpy.testing.assert_allclose(found[name], by_vertex(values, graph.num_vertices), atol=1e-12, rtol=0)


def test_check_catches_a_wrong_value():
    graph = nasty_graphs("cpu")["random_undirected"]
    values = hits(graph).values
    assert refs.check(graph, values, "hits") == "ok"
    values["authority"][7] += 2e-6
    assert refs.check(graph, values, "hits").startswith("FAILED: 1 vertex whose authority is off by more than 1e-06")
    centrality = eigenvector(graph).centrality
    assert refs.check(graph, {"centrality": centrality}, "eigenvector", tol=1e-6) == "ok"
    assert refs.check(graph, {"centrality": centrality[:-1]}, "eigenvector").startswith("FAILED: centrality has shape")
