"""Each primitive on the nasty graphs against independent CPU references
(SciPy, networkx), on both backends; and GPU against CPU from the same source.
Coloring has its own tests (test_color.py)."""
import networkx
import numpy
import pytest
import scipy.sparse
import scipy.sparse.csgraph as csgraph

from minigr.apps.bfs import bfs
from minigr.apps.color import color
from minigr.apps.pagerank import pagerank
from minigr.apps.sssp import sssp
from minigr.transforms import MinigrError
from minigr.transforms.backend import gpu_available

from conftest import to_host
from graphs import nasty_graphs

NAMES = list(nasty_graphs("cpu"))


def sources(graph):
    """The highest-degree vertex and one more."""
    degrees = to_host(graph.out_degrees())
    return sorted({int(numpy.argmax(degrees)), graph.num_vertices // 2})


def hop_depths(graph, source):
    depth = csgraph.shortest_path(graph.to_scipy(), unweighted=True, indices=source)
    return numpy.where(numpy.isinf(depth), -1, depth).astype(int)


def check_tree(graph, source, parent, level, tolerance=0.0):
    """Each reached vertex's parent is an in-neighbour one step closer (Graph500)."""
    matrix = graph.to_scipy().tocsr()
    assert parent[source] == source
    reached = numpy.flatnonzero(parent >= 0)
    for v in reached[reached != source]:
        p = parent[v]
        row = matrix.indices[matrix.indptr[p]:matrix.indptr[p + 1]]
        assert v in row, f"parent {p} of {v} is not an in-neighbour"
        weights = matrix.data[matrix.indptr[p]:matrix.indptr[p + 1]][row == v]
        assert numpy.isclose(level(p, weights), level(v, None), rtol=tolerance), f"{p} -> {v} is not a tree edge"


# Each loop mode on the GPU (the CPU loops on the host whatever the mode, but for async).
LOOPS = ["auto", "async", pytest.param("persistent", marks=pytest.mark.gpu),
         pytest.param("device", marks=pytest.mark.gpu)]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("idempotent", [False, True])
@pytest.mark.parametrize("loop", LOOPS)
def test_bfs(device, name, idempotent, loop):
    graph = nasty_graphs(device)[name]
    for source in sources(graph):
        result = bfs(graph, source, idempotent=idempotent, loop=loop)
        depth, parent = to_host(result.values["depth"]), to_host(result.values["parent"])
        expected = hop_depths(graph, source)
        numpy.testing.assert_array_equal(depth, expected)
        assert ((parent >= 0) == (depth >= 0)).all()
        check_tree(graph, source, parent, lambda v, w: depth[v] + (1 if w is not None else 0))
        assert result.iterations == depth.max() + 1


@pytest.mark.parametrize("idempotent", [False, True])
def test_bfs_async_in_buckets(device, monkeypatch, idempotent):
    """loop="async" in buckets of hops (as on the GPU's graphs of 2^17 to 2^21
    vertices) gives the hop depths and a tree of them on every nasty graph."""
    import minigr.apps.bfs as module
    monkeypatch.setattr(module, "lone_in_buckets_only", lambda graph: True)
    for name, graph in nasty_graphs(device).items():
        for source in sources(graph):
            result = bfs(graph, source, idempotent=idempotent, loop="async")
            depth, parent = to_host(result.depth), to_host(result.parent)
            numpy.testing.assert_array_equal(depth, hop_depths(graph, source), err_msg=name)
            check_tree(graph, source, parent, lambda v, w: depth[v] + (1 if w is not None else 0))
            assert result.iterations == depth.max() + 1
        if graph.num_vertices:
            assert graph.problems[("bfs", idempotent)].hop_width == module.BUCKET_HOPS


def lightest_edges(graph):
    """The graph as a SciPy matrix keeping the lightest of duplicate edges
    (SciPy itself would add them up)."""
    matrix = graph.to_scipy().tocoo()
    order = numpy.lexsort((matrix.data, matrix.col, matrix.row))
    row, col, data = matrix.row[order], matrix.col[order], matrix.data[order]
    first = numpy.ones(len(row), bool)
    first[1:] = (row[1:] != row[:-1]) | (col[1:] != col[:-1])
    return scipy.sparse.csr_matrix((data[first], (row[first], col[first])), shape=matrix.shape)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("delta", [None, 8.0, 1000.0, "auto"])
@pytest.mark.parametrize("loop", LOOPS)
def test_sssp(device, name, delta, loop):
    graph = nasty_graphs(device, weighted=True)[name]
    for source in sources(graph):
        result = sssp(graph, source, delta=delta, loop=loop)
        distance, parent = to_host(result.values["distance"]), to_host(result.values["parent"])
        expected = csgraph.dijkstra(lightest_edges(graph), indices=source)
        numpy.testing.assert_allclose(distance, expected, rtol=1e-5)
        assert ((parent >= 0) == numpy.isfinite(distance)).all()
        check_tree(graph, source, parent,
                   lambda v, w: distance[v] + (w.min() if w is not None else 0), tolerance=1e-5)


def test_sssp_refuses_bad_weights(device):
    graph = nasty_graphs(device)["random_directed"]
    with pytest.raises(MinigrError, match="needs edge weights"):
        sssp(graph, 0)
    weighted = nasty_graphs(device, weighted=True)["random_directed"]
    weighted.weights[3] = -1
    with pytest.raises(MinigrError, match="non-negative"):
        sssp(weighted, 0)
    with pytest.raises(MinigrError, match="delta must be a positive number"):
        sssp(nasty_graphs(device, weighted=True)["grid"], 0, delta=0)


def networkx_of(graph):
    """graph as a networkx MultiDiGraph: duplicates count once per copy, as stored."""
    reference = networkx.MultiDiGraph()
    reference.add_nodes_from(range(graph.num_vertices))
    matrix = graph.to_scipy().tocoo()
    reference.add_edges_from(zip(matrix.row.tolist(), matrix.col.tolist()))
    return reference


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", NAMES)
def test_pagerank(device, name, dtype):
    graph = nasty_graphs(device)[name]
    result = pagerank(graph, tol=1e-8, dtype=dtype)
    rank = to_host(result.values["rank"])
    assert rank.dtype == dtype
    expected = networkx.pagerank(networkx_of(graph), tol=1e-8, weight=None) if graph.num_vertices else {}
    numpy.testing.assert_allclose(rank, [expected[v] for v in range(graph.num_vertices)], atol=1e-6, rtol=0)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_pagerank_calls_in_turn_on_one_graph(device, dtype):
    """The buffers a graph keeps for PageRank start afresh each call: uniform,
    personalized (the teleport and dangling vectors read whole), uniform again."""
    for name in ("kronecker", "random_directed", "disconnected_loops_duplicates"):
        graph = nasty_graphs(device)[name]
        reference = networkx_of(graph)
        personal = numpy.random.default_rng(5).random(graph.num_vertices)
        for given in (None, personal, None, personal[::-1].copy()):
            rank = to_host(pagerank(graph, tol=1e-8, dtype=dtype,
                                    personalization=None if given is None else graph.xp.asarray(given)).rank)
            expected = networkx.pagerank(reference, tol=1e-8, weight=None,
                                         personalization=None if given is None else dict(enumerate(given)))
            numpy.testing.assert_allclose(rank, [expected[v] for v in range(graph.num_vertices)], atol=1e-6,
                                          rtol=0, err_msg=name)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("loop", ["device", "host"])
def test_pagerank_pulled_in_blocks(device, monkeypatch, weighted, loop):
    """Shares pulled in 3 blocks of sources (as Pull does where they overflow L2)
    give networkx's ranks on every nasty graph, weighted too."""
    import minigr.operators.pull as module
    monkeypatch.setattr(module, "pull_blocks", lambda graph, itemsize: 3)
    for name, graph in nasty_graphs(device, weighted=weighted).items():
        rank = to_host(pagerank(graph, tol=1e-9, weighted=weighted, loop=loop).rank)
        if graph.num_vertices:
            assert len(graph.problems[("pagerank", weighted, "float64")].pull.blocks) == 3
        reference = networkx_of(graph)
        if weighted:
            matrix = graph.to_scipy().tocoo()
            reference = networkx.MultiDiGraph()
            reference.add_nodes_from(range(graph.num_vertices))
            reference.add_weighted_edges_from(zip(matrix.row.tolist(), matrix.col.tolist(), matrix.data.tolist()))
        expected = networkx.pagerank(reference, tol=1e-9, weight="weight" if weighted else None)
        numpy.testing.assert_allclose(rank, [expected[v] for v in range(graph.num_vertices)], atol=1e-7, rtol=0,
                                      err_msg=name)


def test_pagerank_bad_arguments(device):
    graph = nasty_graphs(device)["grid"]
    with pytest.raises(MinigrError, match="damping"):
        pagerank(graph, damping=1.0)
    with pytest.raises(MinigrError, match="did not converge"):
        pagerank(graph, tol=1e-15, max_iter=2)
    for dtype in ("int32", "float16", "ranks"):
        with pytest.raises(MinigrError, match=f"dtype must be float64 or float32, got '{dtype}'"):
            pagerank(graph, dtype=dtype)


@pytest.mark.parametrize("primitive", [bfs, sssp])
def test_source_out_of_range(device, primitive):
    graph = nasty_graphs(device, weighted=True)["grid"]
    with pytest.raises(MinigrError, match=r"source 5000 is out of range: the graph has 1024 vertices \(ids 0 to 1023\)"):
        primitive(graph, 5000)
    with pytest.raises(MinigrError, match="out of range"):
        primitive(graph, -1)


@pytest.mark.gpu
@pytest.mark.skipif(not gpu_available(), reason="GPU test: compares the GPU with the CPU")
def test_gpu_and_cpu_agree():
    """The same functor sources on both backends give the same unique answers."""
    for name in NAMES:
        gpu, cpu = nasty_graphs("gpu", weighted=True)[name], nasty_graphs("cpu", weighted=True)[name]
        source = sources(cpu)[0]
        numpy.testing.assert_array_equal(to_host(bfs(gpu, source).values["depth"]),
                                         bfs(cpu, source).values["depth"])
        numpy.testing.assert_array_equal(to_host(sssp(gpu, source).values["distance"]),
                                         sssp(cpu, source).values["distance"])
        numpy.testing.assert_allclose(to_host(pagerank(gpu).values["rank"]), pagerank(cpu).values["rank"],
                                      atol=1e-9)
        numpy.testing.assert_allclose(to_host(pagerank(gpu, dtype="float32").rank),
                                      pagerank(cpu, dtype="float32").rank, atol=1e-7)
        if not cpu.directed:  # the greedy coloring in one order: the same colors
            numpy.testing.assert_array_equal(to_host(color(gpu).values["color"]), color(cpu).values["color"])


@pytest.mark.gpu
@pytest.mark.skipif(not gpu_available(), reason="GPU test: the device loop against the host loop")
def test_device_and_host_loops_agree():
    """The same bodies decided on the device (a CUDA graph) and on the host give
    the same answers on every nasty graph, in the same number of iterations
    where that does not depend on the order atomics land in (BFS, CDLP, PageRank)."""
    from minigr.apps.cdlp import cdlp
    for name in NAMES:
        graph = nasty_graphs("gpu", weighted=True)[name]
        source = sources(graph)[0]
        runs = {"bfs": (lambda w: bfs(graph, source, loop=w), "depth"),
                "sssp": (lambda w: sssp(graph, source, loop=w), "distance"),
                "sssp frontier form": (lambda w: sssp(graph, source, delta=None, loop=w), "distance"),
                "cdlp": (lambda w: cdlp(graph, loop=w), "label")}
        if not graph.directed:
            runs["color"] = (lambda w: color(graph, loop=w), "color")
        for what, (run, key) in runs.items():
            on_device, on_host = run("device"), run("host")
            numpy.testing.assert_array_equal(to_host(on_device.values[key]), to_host(on_host.values[key]),
                                             err_msg=f"{what} on {name}")
            if what in ("bfs", "cdlp"):
                assert on_device.iterations == on_host.iterations, (what, name)
        ranks = [pagerank(graph, tol=1e-9, loop=w) for w in ("device", "host")]
        numpy.testing.assert_allclose(to_host(ranks[0].values["rank"]), to_host(ranks[1].values["rank"]), atol=1e-12)
        assert ranks[0].iterations == ranks[1].iterations


def reaches_source(parent, source):
    """Whether every vertex with a parent reaches the source by following parents (no cycle)."""
    for v in numpy.flatnonzero(parent >= 0):
        for _ in range(len(parent)):
            if v == source:
                break
            v = parent[v]
        else:
            return False
    return True


@pytest.mark.parametrize("loop", LOOPS)
def test_sssp_parents_form_a_tree_with_zero_weights(device, loop):
    """Ties of equal distance through zero-weight edges (3 -0-> 2 -0-> 1 -0-> 2)
    gave parents pointing at each other; random graphs with many zero weights too."""
    from minigr import Graph
    tie = Graph.from_edges([0, 3, 2, 1], [3, 2, 1, 2], numpy.array([5, 0, 0, 0], numpy.float32), num_vertices=4,
                           device=device)
    result = sssp(tie, 0, loop=loop)
    assert to_host(result.parent).tolist() == [0, 2, 3, 0]
    rng = numpy.random.default_rng(7)
    for _ in range(5):
        src, dst = rng.integers(0, 60, 400), rng.integers(0, 60, 400)
        weights = rng.choice(numpy.array([0, 0, 0, 1, 2], numpy.float32), 400)
        graph = Graph.from_edges(src, dst, weights, num_vertices=60, device=device)
        for delta in (None, 1.0, "auto"):
            result = sssp(graph, 0, delta=delta, loop=loop)
            distance, parent = to_host(result.distance), to_host(result.parent)
            numpy.testing.assert_allclose(distance, csgraph.dijkstra(lightest_edges(graph), indices=0))
            assert reaches_source(parent, 0)


def test_sssp_tiny_delta_skips_empty_buckets(device):
    """delta=1e-9 on a path of weights 1 walked a billion empty buckets; now
    the threshold jumps to the next bucket that holds a vertex."""
    from minigr import Graph
    path = Graph.from_edges([0, 1, 2], [1, 2, 3], numpy.ones(3, numpy.float32), num_vertices=4, device=device)
    result = sssp(path, 0, delta=1e-9)
    assert to_host(result.distance).tolist() == [0, 1, 2, 3]
    assert result.iterations < 20


@pytest.mark.parametrize("primitive", ["bfs", "sssp", "pagerank", "wcc"])
def test_results_on_the_host_pickle(device, primitive):
    """A Result on the host holds nothing of the device (its edges counted, no
    function of device arrays): a spawned GPU rank sends its Results through a queue."""
    import pickle

    import minigr
    graph = minigr.load("kron:scale=6,edge_factor=4,seed=1", weights="random", device=device)
    result = getattr(minigr, primitive)(graph, *((0,) if primitive in ("bfs", "sssp") else ()))
    sent = pickle.loads(pickle.dumps(result.to_host()))
    assert sent.edges_visited == result.edges_visited > 0
    for name, array in result.values.items():
        numpy.testing.assert_array_equal(sent.values[name], to_host(array))


@pytest.mark.parametrize("operator", ["advance", "advance_pull"])
def test_bfs_both_pushes_and_pulls(monkeypatch, operator):
    """On a skewed graph from its hub, direction-optimizing BFS pushes some
    levels and pulls others (Beamer's choice): fails if the choice were forced
    either way. CPU host loop: each level's operator counts are read as it runs."""
    from minigr import load
    from minigr.operators import push_pull  # BFS's levels (PushPull)
    real, used = getattr(push_pull, operator), []

    def counting(*args, count, **kwargs):
        used.append(count.wait_value())
        return real(*args, count=count, **kwargs)
    monkeypatch.setattr(push_pull, operator, counting)
    graph = load("kron:scale=12,edge_factor=16,seed=1", device="cpu")
    source = int(numpy.argmax(to_host(graph.out_degrees())))
    result = bfs(graph, source, loop="host")
    numpy.testing.assert_array_equal(to_host(result.depth), hop_depths(graph, source))
    assert any(used[1:]) and len(used) == result.iterations  # level 0 pushes from the source whatever the choice


def test_auto_loop_mode_by_the_graph(monkeypatch):
    """loop="auto": persistent on sparse graphs (mean out-degree under 8) and small ones;
    on dense ones the CUDA graph, or the mode the primitive names (BFS: persistent)."""
    from minigr import Graph, enactor
    from minigr.enactor import loop_mode
    path = Graph.from_edges(numpy.arange(9), numpy.arange(1, 10))
    src, dst = numpy.nonzero(~numpy.eye(20, dtype=bool))  # complete: 19 out-edges a vertex, 380 edges
    complete = Graph.from_edges(src, dst)
    assert loop_mode(complete, "auto") == "persistent"  # small
    monkeypatch.setattr(enactor, "SMALL_EDGES", 380)
    assert loop_mode(path, "auto") == loop_mode(path, "auto", dense="device") == "persistent"
    assert loop_mode(complete, "auto") == "device"
    assert loop_mode(complete, "auto", dense="persistent") == "persistent"
    assert loop_mode(complete, "host") == loop_mode(path, "host") == "host"
    # async where the primitive has it and no vertex has over 8 out-edges
    assert loop_mode(path, "auto", relaxes=True) == "async"
    assert loop_mode(complete, "auto", relaxes=True) == "device"
    # after a run, the persistent kernel where it settled under SMALL_ITERATION vertices an iteration
    monkeypatch.setattr(enactor, "SMALL_ITERATION", 4)
    assert loop_mode(complete, "auto", last=6) == "persistent"  # 20 vertices in 6 iterations
    assert loop_mode(complete, "auto", last=5) == "device"  # 4 an iteration
    assert loop_mode(complete, "auto", dense="persistent", last=1) == "persistent"
    assert loop_mode(path, "auto", last=2) == "device"  # sparse, but 5 an iteration
    assert loop_mode(path, "auto", relaxes=True, last=100) == "async"


def test_sssp_remembers_its_last_iterations(device):
    """loop="auto" decides by the last level-synchronous run's iterations (async's are buckets)."""
    graph = nasty_graphs(device, weighted=True)["random_directed"]
    first = sssp(graph, 0, loop="persistent")
    run = graph.problems[("sssp",)]
    assert run.last_iterations == first.iterations > 1
    sssp(graph, 0, loop="async")
    assert run.last_iterations == first.iterations
