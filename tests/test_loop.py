"""Loops whose iterations stay on the device: the same body and condition give
the same result decided on the device (a CUDA graph) and on the host, on both
backends; a device run waits for nothing until its end, leaks nothing, and its
errors name the loop."""
import contextlib
import gc
import subprocess
import sys

import numpy
import pytest

from minigr.transforms import DeviceCount, Functor, MinigrError, transform
from minigr.transforms import loop as loop_module
from minigr.transforms.loop import Loop

from conftest import to_host
from test_transforms import SUMMED, assert_sums_near, order_sensitive

WHERE = ["device", "host", "persistent"]
COUNT = "void operator()(long long i) const { counts[it[0] % 3] += 1; total[0] += 1; }"
BELOW = "bool operator()() const { return total[0] < goal; }"


def counting_loop(xp, goal, name="count"):
    """A loop whose body counts its runs, by iteration number mod 3, until `goal` bodies ran."""
    counts, total = xp.zeros(3, numpy.int64), xp.zeros(1, numpy.int64)
    loop = Loop(name, "cpu" if xp is numpy else "gpu", lambda: transform(1, body), Functor(BELOW, total=total,
                                                                                           goal=numpy.int64(goal)))
    body = Functor(COUNT, counts=counts, total=total, it=loop.iteration)
    return loop, counts, total


@pytest.mark.parametrize("where", WHERE)
@pytest.mark.parametrize("goal", [1, 2, 7, 100])
def test_loop_runs_until_its_condition_fails(xp, where, goal):
    loop, counts, total = counting_loop(xp, goal)
    for _ in range(2):  # a second run starts again from iteration 0
        counts.fill(0)
        total.fill(0)
        loop.run(where, 1000)
        assert loop.wait_iterations() == (goal, False)
        assert int(total[0]) == goal
        numpy.testing.assert_array_equal(to_host(counts), [len(range(k, goal, 3)) for k in range(3)])


@pytest.mark.parametrize("where", WHERE)
def test_loop_stops_at_its_limit_and_says_so(xp, where):
    loop, _, total = counting_loop(xp, 50)
    loop.run(where, 10)
    assert loop.wait_iterations() == (10, True) and int(total[0]) == 10
    with pytest.raises(MinigrError, match="max_iterations"):
        loop.run(where, 0)
    with pytest.raises(MinigrError, match="loop must be one of"):
        loop.run("gpu", 5)


@pytest.mark.parametrize("where", WHERE)
def test_problem_finish_loop_takes_its_limit_for_a_bug(xp, where):
    """Problem.finish_loop: the iterations of a loop that ends by itself; one that reaches
    its limit is an internal error naming what was not done."""
    from minigr.enactor import Problem
    run = Problem()
    run.loop, _, total = counting_loop(xp, 7)
    assert run.finish_loop(where, 10, "the count was not done") == 7
    total.fill(0)
    with pytest.raises(MinigrError, match=r"^internal error: the count was not done in 5 rounds$"):
        run.finish_loop(where, 5, "the count was not done")


FLAG_AT_2 = "void operator()(long long i) const { total[0] += 1; if (it[0] == 2) flag[0] = 1; }"


@pytest.mark.parametrize("where", WHERE)
def test_a_check_the_body_failed_raises_its_message_after_the_run(xp, where):
    """A loop's checks are read with its state: the first set one's message, after the loop's name."""
    total, flag, other = (xp.zeros(1, numpy.int64) for _ in range(3))
    loop = Loop("flagged", "cpu" if xp is numpy else "gpu", lambda: transform(1, body),
                Functor(BELOW, total=total, goal=numpy.int64(5)), checks=[(other, "not this"), (flag, "flag up")])
    body = Functor(FLAG_AT_2, total=total, flag=flag, it=loop.iteration)
    loop.run(where, 2)  # iterations 0 and 1: the flag stays down
    assert loop.wait_iterations() == (2, True)
    total.fill(0)
    loop.run(where, 100)
    with pytest.raises(MinigrError, match=r"^flagged: flag up$"):
        loop.wait_iterations()


BRANCHY = "void operator()(long long i) const { hits[which] += 1; }"
EVEN = "bool operator()() const { return it[0] % 2 == 0; }"
MULTIPLE_OF_3 = "bool operator()() const { return it[0] % 3 == 0; }"


@pytest.mark.parametrize("where", ["device", "host"])
def test_branches_nest_and_take_the_right_side(xp, where):
    """Per iteration: even -> hits[0], odd -> hits[1]; inside even, a multiple of 3 -> hits[2]."""
    hits, total = xp.zeros(3, numpy.int64), xp.zeros(1, numpy.int64)
    device = "cpu" if xp is numpy else "gpu"
    tick = Functor("void operator()(long long i) const { total[0] += 1; }", total=total)
    loop = Loop("branches", device, lambda: body(), Functor(BELOW, total=total, goal=numpy.int64(20)))
    hit = [Functor(BRANCHY, hits=hits, which=numpy.int64(k)) for k in range(3)]
    even, third = (Functor(src, it=loop.iteration) for src in (EVEN, MULTIPLE_OF_3))

    def if_even():
        transform(1, hit[0])
        loop.branch(third, lambda: transform(1, hit[2]))

    def body():
        loop.branch(even, if_even, lambda: transform(1, hit[1]))
        transform(1, tick)

    loop.run(where, 100)
    assert loop.wait_iterations() == (20, False)
    numpy.testing.assert_array_equal(to_host(hits), [10, 10, 4])


def test_device_counts_size_grid_stride_launches(xp):
    """transform over a count left on the device covers exactly that many items, whatever the bound."""
    for count, bound in ((0, 10), (5, 5), (1000, 1 << 20), (300_000, 300_000)):
        cell = xp.asarray(numpy.array([count], numpy.int64))
        marks = xp.zeros(bound + 1, numpy.int32)
        transform(DeviceCount(cell, bound), Functor("void operator()(long long i) const { marks[i] += 1; }",
                                                    marks=marks))
        expected = numpy.zeros(bound + 1, numpy.int32)
        expected[:count] = 1
        numpy.testing.assert_array_equal(to_host(marks), expected)


@pytest.mark.gpu
def test_device_run_waits_for_nothing(monkeypatch):
    """Between its first and last iteration a device run makes no host round
    trip (the host run makes one per iteration), including the run that captures."""
    import cupy
    waits = []
    real = loop_module.await_cell
    monkeypatch.setattr(loop_module, "await_cell", lambda *a: (waits.append(1), real(*a)))
    loop, _, total = counting_loop(cupy, 30)
    for where, expected in (("device", 0), ("device", 0), ("persistent", 0), ("persistent", 0), ("host", 30)):
        total.fill(0)
        waits.clear()
        loop.run(where, 1000)
        assert len(waits) == expected, where
        assert loop.wait_iterations() == (30, False)


@pytest.mark.gpu
def test_persistent_run_launches_one_kernel_whatever_its_levels():
    """A persistent BFS launches the same kernels for a path of 10 levels as
    for one of 2000: its levels run inside one kernel, not a launch each."""
    from minigr import Graph
    from minigr.apps.bfs import bfs
    from minigr.transforms import launch as launching
    launched = {}
    for n in (10, 2000):
        path = Graph.from_edges(numpy.arange(n - 1), numpy.arange(1, n), num_vertices=n, symmetrize=True,
                                device="gpu")
        bfs(path, 0, loop="persistent")  # builds its kernel
        before = launching.launches
        result = bfs(path, 0, loop="persistent")
        launched[n] = launching.launches - before
        assert result.iterations == n and int(result.depth[-1]) == n - 1
    assert launched[10] == launched[2000] < 10


def test_persistent_body_cannot_branch(xp):
    device = "cpu" if xp is numpy else "gpu"
    total = xp.zeros(1, numpy.int64)
    tick = Functor("void operator()(long long i) const { total[0] += 1; }", total=total)
    loop = Loop("branchy", device, lambda: loop.branch(Functor(EVEN, it=loop.iteration), lambda: transform(1, tick)),
                Functor(BELOW, total=total, goal=numpy.int64(3)))
    from minigr.transforms.persistent import loop_source
    with pytest.raises(MinigrError, match="persistent loop's body cannot branch"):
        loop_source(loop, [loop.state_reset])


def test_a_one_item_stage_after_a_counted_one_waits_with_every_block(xp):
    """A one-item stage (a frontier's next_level) may change the count of a stage before
    it, which blocks read at different times: every block calls the barrier before it, as
    none could after a late block ran the counted stage alone. Without a counted stage
    before it, blocks call it only where they ran a stage (no barrier is wasted)."""
    from minigr.transforms.persistent import loop_source
    device = "cpu" if xp is numpy else "gpu"
    size = xp.zeros(1, numpy.int64)
    work = Functor("void operator()(long long i) const { size[0] += 0; }", size=size)
    grow = Functor("void operator()(long long) const { size[0] += 1; }", size=size)
    for count, unconditional in ((DeviceCount(size, 8), 1), (8, 0)):
        loop = Loop("levels", device, lambda: (transform(count, work), transform(1, grow)),
                    Functor("bool operator()() const { return false; }"))
        source, _ = loop_source(loop, [loop.state_reset])
        assert source.count("\n        minigr::grid_barrier(barrier, minigr::NoSerial{});") == unconditional


def test_persistent_body_of_a_scan_is_refused(xp):
    """A transform whose blocks split the work by their index cannot be a stage."""
    from minigr.transforms import scan_transform
    from minigr.transforms.persistent import loop_source
    device = "cpu" if xp is numpy else "gpu"
    count = Functor("long long operator()(long long i) const { return 1; }", filename="<ones>")
    loop = Loop("scanning", device, lambda: scan_transform(4, count), Functor("bool operator()() const { return 0; }"))
    with pytest.raises(MinigrError, match="stride over any grid.*<ones>"):
        loop_source(loop, [loop.state_reset])


LENGTHS = [0, 1, 31, 40, 700, 1500, 5000]  # walked by a group, a warp, a block of any width, and the whole grid
SEGMENT = "void operator()(long long s, long long& begin, long long& end) const { begin = 0; end = lengths[s]; }"
VISIT = "void operator()(long long item, long long s, long long rank) const { atomicAdd(&seen[s], 1LL + rank - item); }"


@pytest.mark.parametrize("block", [32, 1024])
def test_persistent_kernels_of_any_block_width_walk_every_segment(xp, block):
    """A persistent loop's kernel is `block` threads wide, and so is a segment_transform
    recorded into it (its block walk): on the GPU it visits each item once an iteration
    (rank right), as the host loop does; on the CPU its kernel compiles with NVRTC."""
    from minigr.transforms import launch, segment_transform
    device = "cpu" if xp is numpy else "gpu"
    lengths, seen = xp.asarray(LENGTHS, dtype=numpy.int64), xp.zeros(len(LENGTHS), numpy.int64)
    total = xp.zeros(1, numpy.int64)
    bounds, visit = Functor(SEGMENT, lengths=lengths), Functor(VISIT, seen=seen)
    tick = Functor("void operator()(long long) const { total[0] += 1; }", total=total)
    loop = Loop("segments", device, lambda: (segment_transform(len(LENGTHS), bounds, visit, 4), transform(1, tick)),
                Functor(BELOW, total=total, goal=numpy.int64(3)), persistent_block=block)
    for where in ("persistent", "host"):
        seen.fill(0)
        total.fill(0)
        with launch.compile_check("90") if device == "cpu" else contextlib.nullcontext() as compiled:
            loop.run(where, 100)
        assert loop.wait_iterations() == (3, False)
        assert to_host(seen).tolist() == [3 * n for n in LENGTHS]
        if compiled is not None and where == "persistent":
            assert any(f"__launch_bounds__({block})" in source and f"segments<{block}," in source
                       for source in compiled)
    with pytest.raises(MinigrError, match="persistent_block must be a power of two from 32 to 1024, got 96"):
        Loop("bad", device, lambda: None, Functor(BELOW, total=total, goal=numpy.int64(3)), persistent_block=96)


@pytest.mark.parametrize("first", ["device", "persistent"])
def test_loop_sums_are_the_same_bits_every_run(xp, first):
    """transform(sums=) in a loop body, of values whose sum depends on the order of
    its additions: each run gives the same bits, those of the host loop in a CUDA
    graph (the same grid), its own in a persistent kernel (its grid); the sums'
    scratch made in the body's capture or the kernel's recording, whichever
    comes first, and left ready by every launch of either grid. On the CPU the
    GPU kernels compile with NVRTC."""
    from minigr.transforms import launch
    device = "cpu" if xp is numpy else "gpu"
    n = 10**6 if device == "gpu" else 10**4
    x = order_sensitive(numpy.random.default_rng(6), n)
    sums, total = xp.zeros(2), xp.zeros(1, numpy.int64)  # sums new: first used in the loop
    summed, tick = Functor(SUMMED, x=xp.asarray(x)), Functor("void operator()(long long) const { total[0] += 1; }",
                                                                total=total)
    loop = Loop("sums", device, lambda: (transform(n, summed, sums=sums), transform(1, tick)),
                Functor(BELOW, total=total, goal=numpy.int64(3)))
    runs = {}
    for where in [first, "host", "persistent" if first == "device" else "device"] * 2:
        sums.fill(0)
        total.fill(0)
        with launch.compile_check("90") if device == "cpu" else contextlib.nullcontext() as compiled:
            loop.run(where, 100)
        assert loop.wait_iterations() == (3, False)
        runs.setdefault(where, set()).add(to_host(sums).tobytes())
        if compiled is not None:
            assert any("transform_sums<2>(n, f0, sums, partials, arrivals)" in source for source in compiled)
    assert all(len(bits) == 1 for bits in runs.values()) and runs["device"] == runs["host"]
    for bits in runs.values():
        assert_sums_near(numpy.frombuffer(bits.pop()), x, times=3)


@pytest.mark.gpu
def test_primitives_loop_without_waiting(monkeypatch):
    """BFS, SSSP, PageRank and coloring on the device: no decision is read by the host."""
    from minigr import load
    from minigr.apps.bfs import bfs
    from minigr.apps.color import color
    from minigr.apps.pagerank import pagerank
    from minigr.apps.sssp import sssp
    decisions = []
    real = Loop._decide_waiting
    monkeypatch.setattr(Loop, "_decide_waiting", lambda self, c: (decisions.append(self.name), real(self, c))[1])
    graph = load("kron:scale=9,edge_factor=8,seed=3", weights="random", device="gpu")
    runs = (lambda w: bfs(graph, 0, loop=w), lambda w: sssp(graph, 0, loop=w), lambda w: sssp(graph, 0, delta=8,
            loop=w), lambda w: pagerank(graph, loop=w), lambda w: color(graph, loop=w))
    for run in runs:
        run("device")
        assert decisions == []
        if run in runs[:3]:  # BFS and SSSP
            run("persistent")
            run("async")  # SSSP's buckets: a loop of runs on the device
            assert decisions == []
        run("host")
        assert decisions
        decisions.clear()


@pytest.mark.gpu
def test_repeated_device_runs_leak_no_gpu_memory():
    import cupy
    from minigr import load
    from minigr.apps.bfs import bfs
    from minigr.apps.pagerank import pagerank
    from minigr.apps.sssp import sssp
    from minigr.apps.wcc import wcc
    graph = load("grid:scale=10,seed=1", weights="random", device="gpu")
    pool = cupy.get_default_memory_pool()
    for k in range(100):
        bfs(graph, 5)
        bfs(graph, 5, loop="persistent")
        bfs(graph, 5, loop="async")
        sssp(graph, 5, loop="async")
        sssp(graph, k, loop="persistent")  # another source each run: the kernel's reset takes it
        wcc(graph)  # a Replay
        pagerank(graph)
        if k == 1:
            gc.collect()  # earlier tests' graphs and their cached problems (cycles) go now, not during the runs
            used = pool.used_bytes()
    gc.collect()
    assert pool.used_bytes() == used


def test_compile_errors_name_the_loop(xp):
    device = "cpu" if xp is numpy else "gpu"
    bad = Functor("void operator()(long long i) const { undeclared_thing += 1; }", filename="<bad body>")
    loop = Loop("my primitive", device, lambda: transform(1, bad), Functor("bool operator()() const { return false; }"))
    with pytest.raises(MinigrError, match=r"^my primitive: functor <bad body> does not compile"):
        loop.run("device", 5)


@pytest.mark.gpu
@pytest.mark.parametrize("where", ["device", "persistent"])
def test_a_fault_inside_the_device_loop_names_the_loop(where):
    """A functor that faults inside the CUDA graph or the persistent kernel: a
    clear error naming the loop (in its own process: the fault ruins the context)."""
    script = ("import numpy, minigr.transforms as t\n"
              "from minigr.transforms.loop import Loop\n"
              "f = t.Functor('void operator()(long long i) const { ((volatile int*)8)[i] = 1; }')\n"
              "loop = Loop('faulty', 'gpu', lambda: t.transform(1, f), t.Functor('bool operator()() const "
              "{ return true; }'))\n"
              f"loop.run({where!r}, 5)\n"
              "loop.wait_iterations()\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert done.returncode != 0 and "faulty: the GPU failed while running its loop" in done.stderr, done.stderr
    assert "cudaErrorIllegalAddress" in done.stderr or "ILLEGAL_ADDRESS" in done.stderr, done.stderr


@pytest.mark.parametrize("where", WHERE)
@pytest.mark.parametrize("unroll", [1, 3])
def test_unrolled_loop_of_levels_counts_each_level(xp, where, unroll):
    """Levels of a breadth-first walk, several per iteration of the CUDA graph:
    the bodies after the last level find an empty frontier and do nothing."""
    from minigr import load
    from minigr.frontier import Frontier
    from minigr.operators import advance
    device = "cpu" if xp is numpy else "gpu"
    graph = load("grid:scale=8,seed=3", device=device)
    hops = xp.full(graph.num_vertices, -1, numpy.int32)
    hops[0] = 0
    visit = Functor("""
    bool cond(int s, int d, long long e, long long r, long long o, int it) const {
        return atomicCAS(&hops[d], -1, it + 1) == -1;
    }
    void apply(int s, int d, long long e, long long r, long long o, int it) const {}""", hops=hops)
    frontier = Frontier.from_ids(0, graph.num_vertices, device)
    loop = Loop("walk", device, lambda: advance(graph, frontier, visit, out=frontier, iteration=loop.iteration),
                frontier.not_empty(), unroll)
    loop.run(where, graph.num_vertices)
    import scipy.sparse.csgraph
    expected = scipy.sparse.csgraph.shortest_path(graph.to_scipy(), unweighted=True, indices=0)
    expected = numpy.where(numpy.isinf(expected), -1, expected).astype(numpy.int32)
    numpy.testing.assert_array_equal(to_host(hops), expected)
    assert loop.wait_iterations() == (int(expected.max()) + 1, False)


def test_replay_queues_its_launches_again_each_run(xp):
    """A Replay runs its body's launches again at each run: on the GPU from the CUDA graph
    captured at the first (no launch of its own after), on the CPU as they are."""
    from minigr.transforms import launch as launching
    from minigr.transforms.loop import Replay
    counts = xp.zeros(3, numpy.int64)
    add = Functor("void operator()(long long i) const { counts[i] += i + 1; }", counts=counts)
    double = Functor("void operator()(long long i) const { counts[i] *= 2; }", counts=counts)
    replay = Replay("twice", "cpu" if xp is numpy else "gpu", lambda: (transform(3, add), transform(2, double)))
    replay.run()
    before = launching.launches
    replay.run()
    assert to_host(counts).tolist() == [6, 12, 6]  # (1 2 3) doubled but the last, twice
    assert launching.launches - before == (0 if xp is not numpy else 2)


@pytest.mark.gpu
def test_persistent_runs_reset_with_their_own_source():
    """The persistent kernel runs each run's reset itself, with that run's values: runs from
    several sources in turn (and again) give what the host loop gives."""
    from minigr import load
    from minigr.apps.bfs import bfs
    from minigr.apps.sssp import sssp
    graph = load("kron:scale=8,edge_factor=8,seed=2", weights="random", device="gpu")
    for source in (0, 7, 0, 200):
        for run, key in ((bfs, "depth"), (sssp, "distance"), (sssp, "parent")):
            numpy.testing.assert_array_equal(to_host(getattr(run(graph, source, loop="persistent"), key)),
                                             to_host(getattr(run(graph, source, loop="host"), key)), err_msg=key)


@pytest.mark.parametrize("fragment, line", [("first", 3), ("each", 2)])
def test_start_compile_errors_name_the_fragment_and_its_line(fragment, line):
    """A run's start (enactor.Start) is two fragments of C++: an error names the one it is in
    and the line of that fragment, as the user wrote it."""
    from minigr.enactor import Start
    from minigr.transforms import CompileError
    depth = numpy.zeros(4, numpy.int32)
    fragments = {"first": "\n        depth[0] = 1;", "each": "\n        depth[v] = 0;"}
    fragments[fragment] = "\n".join([""] + ["        depth[0] = 1;"] * (line - 2) + ["        depth[v] = udeclared;"])
    start = Start("demo", 4, fragments["first"], fragments["each"], depth=depth)
    with pytest.raises(CompileError, match=rf"<demo start> {fragment}:{line}:.*udeclared"):
        transform(*start())


@pytest.mark.gpu
def test_a_timed_out_barrier_is_reported_once():
    """A persistent run whose grid barrier timed out raises, and leaves the barrier's words
    clear: the next run, persistent or not, counts its own arrivals and reports nothing of it."""
    import cupy
    from minigr.transforms import DeviceError
    loop, _, total = counting_loop(cupy, 5)
    loop.run("persistent", 100)
    assert loop.wait_iterations() == (5, False)
    kernel = loop._ran_persistent
    kernel.words[...] = cupy.asarray([7, 1], dtype=numpy.uint64)  # what a timed-out run leaves: arrivals, the flag
    with pytest.raises(DeviceError, match="a grid barrier of its persistent loop timed out"):
        loop.wait_iterations()
    for where in ("host", "persistent", "device"):
        total.fill(0)
        loop.run(where, 100)
        assert loop.wait_iterations() == (5, False) and int(total[0]) == 5, where
