"""The async mode: worklist_transform works through a queue that its calls add
to, in one launch, and says when the queue overflowed; Relax corrects labels
over a graph's edges with it; BFS and SSSP with loop="async" give the answers
of the other modes (tests/test_apps.py), fall back when the queue overflows,
and launch the same kernels whatever their levels."""
import subprocess
import sys

import numpy
import pytest
import scipy.sparse.csgraph

from minigr.operators import Relax
from minigr.operators import relax as relax_module
from minigr.transforms import Functor, MinigrError, Worklist, worklist_transform
from minigr.transforms import launch as launching

from conftest import to_host
from graphs import nasty_graphs

# A binary tree walked from its root: item i pushes its children 2i + 1 and 2i + 2 below n, key = depth.
TREE = """void operator()(int item, unsigned key, const minigr::Worklist& queue) const {
    depth[item] = key;
    for (int child = 2 * item + 1; child <= 2 * item + 2 && child < n; ++child) queue.push(child, key + 1);
}"""


def tree_walk(xp, n, capacity):
    depth = xp.full(n, -1, numpy.int32)
    queue = Worklist(capacity, "cpu" if xp is numpy else "gpu")
    walk = Functor(TREE, filename="<tree>", depth=depth, n=numpy.int32(n))
    return queue, walk, depth


@pytest.mark.parametrize("n", [1, 2, 7, 1000, 100000])
@pytest.mark.parametrize("lone", [False, True])
@pytest.mark.parametrize("ordered", [True, False])
def test_worklist_runs_until_no_pair_is_left(xp, n, lone, ordered):
    queue, walk, depth = tree_walk(xp, n, n)
    for _ in range(2):  # the queue is left empty for the next run
        depth.fill(-1)
        queue.reset([0], [0])
        worklist_transform(queue, walk, lone, ordered)
        assert queue.wait_pushes() == n
        numpy.testing.assert_array_equal(to_host(depth), numpy.floor(numpy.log2(numpy.arange(n) + 1)))


def test_worklist_starts_from_many_pairs(xp):
    queue, walk, depth = tree_walk(xp, 63, 100)
    queue.reset([1, 2], [5, 9])  # two subtrees, from their own depths
    worklist_transform(queue, walk)
    assert queue.wait_pushes() == 62
    expected = numpy.floor(numpy.log2(numpy.arange(63) + 1)).astype(numpy.int32)
    expected[0] = -1
    for root, key in ((1, 5), (2, 9)):
        level, members = 0, [root]
        while members:
            expected[members] = key + level
            members = [c for m in members for c in (2 * m + 1, 2 * m + 2) if c < 63]
            level += 1
    numpy.testing.assert_array_equal(to_host(depth), expected)
    queue.reset([], [])  # nothing to do: the run ends at once
    worklist_transform(queue, walk)
    assert queue.wait_pushes() == 0


def test_worklist_overflow_says_so_and_the_next_run_is_whole(xp):
    queue, walk, depth = tree_walk(xp, 5000, 100)
    queue.reset([0], [0])
    worklist_transform(queue, walk)
    assert queue.wait_pushes() is None
    for n in (100, 37):  # pairs left by the overflowed run are gone
        small = walk.with_values(n=numpy.int32(n))
        depth.fill(-1)
        queue.reset([0], [0])
        worklist_transform(queue, small)
        assert queue.wait_pushes() == n
        numpy.testing.assert_array_equal(to_host(depth[:n]), numpy.floor(numpy.log2(numpy.arange(n) + 1)))
        assert (to_host(depth[n:]) == -1).all()


def test_worklist_refuses_bad_capacity_and_starts(xp):
    device = "cpu" if xp is numpy else "gpu"
    for capacity in (0, -3, 2**31, 2.5, True):
        with pytest.raises(MinigrError, match=r"capacity must be an int in \[1, 2\^31\)"):
            Worklist(capacity, device)
    queue = Worklist(2, device)
    with pytest.raises(MinigrError, match="a bound defers pairs: make the Worklist with buckets=True"):
        queue.reset([0], [0], bound=5)
    with pytest.raises(MinigrError, match="as many keys as items, at most its capacity"):
        queue.reset([0, 1, 2], [0, 0, 0])
    with pytest.raises(MinigrError, match="as many keys as items"):
        queue.reset([0, 1], [0])


@pytest.mark.parametrize("name", ["random_undirected", "disconnected_loops_duplicates", "star", "one_vertex",
                                  "kronecker", "grid"])
@pytest.mark.parametrize("lone_below", [0, 2**31])
def test_relax_min_labels_find_components(device, name, lone_below, monkeypatch):
    """WCC by label correcting: every vertex starts with its own id, and the
    smallest id of each component spreads over it, by whole warps or lone workers."""
    monkeypatch.setattr(relax_module, "LONE_BELOW", lone_below)
    graph = nasty_graphs(device, undirected_only=True)[name]
    xp, n = graph.xp, graph.num_vertices
    labels = xp.arange(n, dtype=numpy.uint32)
    spread = Relax(graph, labels, "return label;", filename="<smallest id>")
    assert spread.lone == (n < lone_below)
    spread.run(numpy.arange(n), numpy.arange(n))
    assert spread.wait_pushes() >= n
    _, component = scipy.sparse.csgraph.connected_components(graph.to_scipy(), directed=False)
    smallest = numpy.full(component.max() + 1, n)
    numpy.minimum.at(smallest, component, numpy.arange(n))
    numpy.testing.assert_array_equal(to_host(labels), smallest[component])


PATH = "return minigr::bit_cast<unsigned>(minigr::bit_cast<float>(label) + weights[edge]);"
ABOVE = "asked[0] += 1; return minigr::bit_cast<unsigned>((float)(minigr::bit_cast<float>(label) + width));"


@pytest.mark.parametrize("width", [1, 100, 10**6])
@pytest.mark.parametrize("adapt", [False, True])
@pytest.mark.parametrize("lone_below", [0, 2**31])
def test_relax_in_buckets_finds_shortest_paths(device, width, adapt, lone_below, monkeypatch):
    """Buckets `width` apart in distance (above), each worked without levels
    (by whole warps or lone workers): Dijkstra's distances, with more buckets
    the narrower they are, above() asked once a bucket; with adapt the width
    follows the pairs each queued, from half to twice the last."""
    monkeypatch.setattr(relax_module, "LONE_BELOW_IN_BUCKETS", lone_below)
    graph = nasty_graphs(device, weighted=True)["grid"]
    xp = graph.xp
    dist = xp.full(graph.num_vertices, numpy.inf, numpy.float32)
    dist[7] = 0
    asked = xp.zeros(1, numpy.int64)
    lengths = Relax(graph, dist.view(numpy.uint32), PATH, above=ABOVE, name="paths", weights=graph.weights,
                    asked=asked)
    assert lengths.lone == (graph.num_vertices < lone_below)
    lengths.run([7], [0], width, adapt)
    assert lengths.wait_pushes() > 1
    buckets, _ = lengths.loop.wait_iterations()
    expected = scipy.sparse.csgraph.dijkstra(graph.to_scipy(), indices=7)
    numpy.testing.assert_allclose(to_host(dist), expected, rtol=1e-6)
    longest = expected[numpy.isfinite(expected)].max()
    assert int(asked[0]) == buckets
    if adapt:
        assert width / 2.0 ** buckets <= float(lengths.widths[0]) <= width * 2.0 ** buckets
    else:
        assert float(lengths.widths[0]) == width
        assert buckets >= min(longest / width, 50) and (width < longest or buckets <= 3)
    with pytest.raises(MinigrError, match="paths: relax takes a bucket width exactly where it runs in buckets"):
        lengths.run([7], [0])


def test_relax_refuses_bad_labels_and_names_a_bad_candidate(device):
    graph = nasty_graphs(device)["grid"]
    with pytest.raises(MinigrError, match=r"relax: labels must be uint32, one per vertex \(1024\); got int32"):
        Relax(graph, graph.xp.zeros(graph.num_vertices, numpy.int32), "return label;")
    bad = Relax(graph, graph.xp.zeros(graph.num_vertices, numpy.uint32), "return no_such_thing;",
                filename="<my candidate>", name="my primitive")
    with pytest.raises(MinigrError, match=r"(?s)^my primitive: functor .*<my candidate>(:1|\(1\))"):
        bad.run([0], [0])


@pytest.mark.gpu
@pytest.mark.parametrize("buckets", [False, True])
def test_a_fault_inside_the_queue_names_the_primitive(buckets):
    """A candidate that faults inside the worklist kernel: a clear error naming
    the primitive (in its own process: the fault ruins the context)."""
    above = "'return label + 1;'" if buckets else "None"
    script = ("import numpy, minigr\n"
              "from minigr.operators import Relax\n"
              "graph = minigr.load('grid:scale=6,seed=1', device='gpu')\n"
              "labels = graph.xp.full(graph.num_vertices, 7, numpy.uint32)\n"
              "bad = Relax(graph, labels, '((volatile int*)8)[dst] = 1; return 0;', name='faulty', "
              f"above={above})\n"
              f"bad.run([0], [0], {1.0 if buckets else None})\n"
              "bad.wait_pushes()\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert done.returncode != 0 and "faulty: the GPU failed while relaxing" in done.stderr, done.stderr


@pytest.mark.parametrize("primitive", ["bfs", "sssp"])
def test_async_falls_back_to_levels_when_its_queue_overflows(device, primitive, monkeypatch):
    from minigr.apps.bfs import bfs
    from minigr.apps.sssp import sssp
    monkeypatch.setattr(relax_module, "PUSHES_PER_VERTEX", 0)
    monkeypatch.setattr(relax_module, "QUEUE_SPARE", 3)
    found = []
    real = Worklist.wait_pushes
    monkeypatch.setattr(Worklist, "wait_pushes", lambda self: (lambda k: (found.append(k), k)[1])(real(self)))
    graph = nasty_graphs(device, weighted=True)["grid"]  # made here: no Relax of a bigger queue cached with it
    result = {"bfs": bfs, "sssp": sssp}[primitive](graph, 5, loop="async")
    assert found == [None]  # it overflowed, then looped
    if primitive == "bfs":
        expected = scipy.sparse.csgraph.shortest_path(graph.to_scipy(), unweighted=True, indices=5)
        numpy.testing.assert_array_equal(to_host(result.depth), numpy.where(numpy.isinf(expected), -1, expected))
    else:
        expected = scipy.sparse.csgraph.dijkstra(graph.to_scipy(), indices=5)
        numpy.testing.assert_allclose(to_host(result.distance), expected, rtol=1e-5)


def test_async_bfs_launches_the_same_kernels_whatever_its_levels(device):
    """Its levels are relaxed inside one kernel, not a launch each."""
    from minigr import Graph
    from minigr.apps.bfs import bfs
    launched = {}
    for n in (10, 2000):
        path = Graph.from_edges(numpy.arange(n - 1), numpy.arange(1, n), num_vertices=n, symmetrize=True,
                                device=device)
        bfs(path, 0, loop="async")  # builds its kernels
        before = launching.launches
        result = bfs(path, 0, loop="async")
        launched[n] = launching.launches - before
        assert result.iterations == n and int(result.depth[-1]) == n - 1
        assert int(result.parent[-1]) == n - 2 and int(result.parent[0]) == 0
    assert launched[10] == launched[2000] < 10


def test_sssp_async_buckets_widen_where_they_queue_little(device):
    """delta='auto': each bucket's width follows the pairs the last one queued
    (on a path one or two, far under the aim: it doubles); a delta given stays."""
    from minigr import Graph
    from minigr.apps.sssp import ASYNC_DELTA, sssp
    n = 3000
    path = Graph.from_edges(numpy.arange(n - 1), numpy.arange(1, n), weights=numpy.ones(n - 1), num_vertices=n,
                            symmetrize=True, device=device)
    for delta, widened in (("auto", True), (7.0, False)):
        result = sssp(path, 0, loop="async", delta=delta)
        numpy.testing.assert_array_equal(to_host(result.distance), numpy.arange(n))
        width = float(path.problems[("sssp",)].lengths.widths[0])
        assert width > 4 * ASYNC_DELTA if widened else width == 7.0


@pytest.mark.parametrize("primitive", ["bfs", "sssp"])
def test_async_refuses_a_partitioned_graph(primitive):
    """On parts exchanging every level, and on parts running levels apart (BFS's rounds, a path of its own)."""
    from minigr import load
    from minigr.multi import run_threads
    for spec, apart in (("grid:scale=6,seed=1", False), ("grid:scale=12,seed=4,permute=0", True)):
        graph = load(spec, weights="random", device="cpu")
        if primitive == "bfs":
            assert ("rounds" in run_threads(graph, 2, primitive, 0, reorder="none").extra) == apart
        with pytest.raises(MinigrError, match="loop='async' runs on one device"):
            run_threads(graph, 2, primitive, 0, loop="async", reorder="none")


def test_relax_example_runs():
    import doctest
    results = doctest.testmod(relax_module)
    assert results.attempted and not results.failed


def test_worklist_without_buckets_queues_the_largest_key(xp):
    """A queue without buckets defers nothing, not even key 2^32 - 1."""
    queue = Worklist(10, "cpu" if xp is numpy else "gpu")
    seen = xp.zeros(4, numpy.int64)
    top = Functor("""void operator()(int item, unsigned key, const minigr::Worklist& queue) const {
        seen[item] = key;
        if (item < 3) queue.push(item + 1, 4294967295u);
    }""", filename="<top key>", seen=seen)
    queue.reset([0], [7])
    worklist_transform(queue, top)
    assert queue.wait_pushes() == 4
    assert to_host(seen).tolist() == [7, 2**32 - 1, 2**32 - 1, 2**32 - 1]
    words = to_host(queue.words).tolist()
    assert words[0] == 4 << 32 | 4 and words[2] == 0  # 4 pushed, 4 finished, no overflow


def test_async_kernels_compile_with_nvrtc(monkeypatch, tmp_path):
    """BFS's and SSSP's async runs on the CPU compile their GPU twins too: the
    worklist kernel with Relax's functor, and the buckets' step and split."""
    from minigr import load
    from minigr.apps.bfs import bfs
    from minigr.apps.sssp import sssp
    monkeypatch.setenv("MINIGR_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(launching, "_kernels", {})
    graph = load("grid:scale=6,seed=1", weights="random", device="cpu")
    with launching.compile_check("90") as compiled:
        bfs(graph, 0, loop="async")
        sssp(graph, 0, loop="async")
    calls = [source[source.rindex("minigr_kernel("):] for source in compiled]
    for call in ("minigr::worklist<", "minigr::next_bucket(", "minigr::split_deferred("):
        assert any(call in source for source in compiled), call
    assert len([c for c in calls if "minigr::worklist<" in c]) == 2  # BFS's and SSSP's
