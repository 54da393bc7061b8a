"""Graphs split over ranks (minigr.partition, minigr.comm, minigr.multi) on the
CPU backend, ranks as threads: the parts hold the whole graph once, borders
agree between owners and peers, and BFS, SSSP, PageRank and WCC on P = 1..4
parts give the single-partition results, in the user's ids, on the nasty
graphs, whether the vertices are renumbered first (minigr.reorder) or not."""
import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy
import pytest

from minigr import Graph, load, validate
from minigr.apps.bfs import bfs
from minigr.apps.pagerank import pagerank
from minigr.apps.sssp import sssp
from minigr.apps.wcc import wcc
from minigr.comm import ThreadGroup
from minigr.multi import run_gpus, run_threads
from minigr.partition import Part, load_part, vertex_bounds
from minigr.reorder import choose
from minigr.transforms.errors import MinigrError

from graphs import nasty_graphs

PARTS = (1, 2, 3, 4)
REORDER = ("none", "auto")  # auto: METIS's order where pymetis is installed, else RCM's, where they cut less


def on_ranks(parts, work):
    """[work(communicator of rank r) for each rank], the ranks as threads."""
    group = ThreadGroup(parts)
    with ThreadPoolExecutor(parts) as pool:
        return list(pool.map(lambda r: work(group.communicator(r)), range(parts)))


def test_vertex_bounds_cover_and_balance():
    degrees = numpy.random.default_rng(1).integers(0, 50, size=1000)
    for parts in PARTS + (7,):
        bounds = vertex_bounds(degrees, parts)
        assert bounds[0] == 0 and bounds[-1] == 1000 and len(bounds) == parts + 1
        assert (numpy.diff(bounds) >= 0).all()
        loads = [degrees[a:b].sum() + b - a for a, b in zip(bounds, bounds[1:])]
        assert max(loads) <= (degrees.sum() + 1000) / parts + 50 + 1  # within one vertex of even
    assert list(vertex_bounds([], 3)) == [0, 0, 0, 0]
    assert list(vertex_bounds([5], 3)) in ([0, 0, 1, 1], [0, 1, 1, 1], [0, 0, 0, 1])
    with pytest.raises(MinigrError, match="at least 1"):
        vertex_bounds([1, 2], 0)


def test_thread_communicator():
    def work(comm):
        total = numpy.array([comm.rank + 1.0, comm.rank])
        comm.allreduce(total)
        largest = numpy.array([comm.rank * 10])
        comm.allreduce(largest, "max")
        sends = [numpy.full(q + 1, 100 * comm.rank + q) for q in range(comm.size)]
        receives = [numpy.zeros(comm.rank + 1, dtype=int) for _ in range(comm.size)]
        comm.exchange(sends, receives)
        return total, largest, receives

    for rank, (total, largest, receives) in enumerate(on_ranks(3, work)):
        assert list(total) == [6.0, 3.0] and list(largest) == [20]
        for q, got in enumerate(receives):
            assert q == rank or list(got) == [100 * q + rank] * (rank + 1)


def two_ranks(group, zero, one):
    """zero(communicator 0) and one(communicator 1) as threads of `group`, which must both end."""
    threads = [threading.Thread(target=work, args=(group.communicator(r),), daemon=True)  # a hang fails, not waits
               for r, work in enumerate((zero, one))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=10)
    assert not any(t.is_alive() for t in threads)


def allreduce_error(comm, seen):
    """comm's allreduce, its MinigrError's text appended to seen."""
    try:
        comm.allreduce(numpy.zeros(1))
    except MinigrError as exc:
        seen.append(str(exc))


def test_a_failing_rank_stops_the_others():
    group, seen = ThreadGroup(2), []
    two_ranks(group, lambda comm: allreduce_error(comm, seen), lambda comm: group.abort())
    assert seen == ["another rank of this partitioned run failed"]


@pytest.mark.parametrize("first", ["leaves", "waits"])
def test_a_rank_that_ends_while_another_waits_for_it_is_an_error(first):
    """Ranks that disagree on their steps (one ends, another still exchanges) stop
    with an error, whichever comes first, not a hang; a barrier all reached holds."""
    group, seen = ThreadGroup(2), []

    def zero(comm):
        comm.barrier()
        time.sleep(0.05 if first == "leaves" else 0)
        allreduce_error(comm, seen)

    def one(comm):
        comm.barrier()
        time.sleep(0.05 if first == "waits" else 0)
        group.leave()
    two_ranks(group, zero, one)
    assert len(seen) == 1 and seen[0].startswith("internal error: a rank of this partitioned run ended")


def test_run_threads_raises_the_failing_ranks_own_error(monkeypatch):
    """One rank fails inside its loop while the others wait in an exchange for it: its
    error is the one raised, not theirs ("pagerank: another rank ... failed")."""
    from minigr.apps._pagerank_parts import PartitionedPageRank
    real = PartitionedPageRank.iteration

    def iteration(self):
        if self.part.comm.rank == 1:
            raise MinigrError("rank 1's own error")
        real(self)
    monkeypatch.setattr(PartitionedPageRank, "iteration", iteration)
    with pytest.raises(MinigrError, match="rank 1's own error"):
        run_threads(nasty_graphs("cpu")["random_undirected"], 3, "pagerank", loop="host")


def test_a_rank_that_ends_without_a_reply_is_an_error():
    """A spawned rank whose reply never comes (here it just ends, as one whose
    reply could not be pickled did) stops the run with an error, not a hang."""
    import multiprocessing
    import time
    from minigr.multi import _gather
    context = multiprocessing.get_context("spawn")
    rank = context.Process(target=time.sleep, args=(0,))
    rank.start()
    rank.join()
    with pytest.raises(MinigrError, match=r"GPU rank 0 ended \(exit code 0\) without reporting"):
        _gather([rank], context.Queue())


def edge_set(graph):
    """The graph's edges as a sorted array of (src, dst, weight) rows."""
    g = graph.to("cpu")
    weights = g.weights if g.weights is not None else numpy.zeros(g.num_edges)
    rows = numpy.column_stack([g.edge_sources(), g.col_indices, weights])
    return rows[numpy.lexsort(rows.T[::-1])]


def part_edges(part, reverse=False):
    """A part's edges (out-edges, or with reverse its in-edges) in the user's ids, as edge_set rows."""
    g = part.graph.reverse() if reverse else part.graph
    ids = part.user_ids
    src, dst = ids[g.edge_sources()], ids[g.col_indices]
    if reverse:
        src, dst = dst, src
    weights = g.weights if g.weights is not None else numpy.zeros(g.num_edges)
    return numpy.column_stack([src, dst, weights])


@pytest.mark.parametrize("method", ("none", "rcm", "metis"))
@pytest.mark.parametrize("parts", PARTS)
def test_parts_hold_the_graph_once_with_consistent_borders(parts, method):
    """In the user's order and renumbered: every vertex owned once, the user's
    ids of the parts' edges the graph's, borders agreeing, and the cut
    reorder.choose counted the proxies the parts hold."""
    if method == "metis":
        pytest.importorskip("pymetis")
    for name, graph in nasty_graphs("cpu", weighted=True).items():
        order = choose(graph, parts, method)
        built = on_ranks(parts, lambda comm: Part.from_graph(comm, graph, order=order))
        assert sum(p.owned for p in built) == graph.num_vertices, name
        owned = numpy.concatenate([p.owned_user_ids() if order.user_ids is not None else
                                   numpy.arange(p.first, p.first + p.owned) for p in built])
        assert numpy.array_equal(numpy.sort(owned), numpy.arange(graph.num_vertices)), name
        assert sum(p.graph.num_vertices - p.owned for p in built) == order.cuts[order.method][0], name
        assert order.cuts[order.method] <= order.cuts["none"], name
        assert all(p.num_vertices == graph.num_vertices and p.num_edges == graph.num_edges for p in built), name
        for reverse in (False, True):
            if reverse and not graph.directed:
                continue
            got = numpy.concatenate([part_edges(p, reverse) for p in built])
            assert numpy.array_equal(got[numpy.lexsort(got.T[::-1])], edge_set(graph)), (name, reverse)
        for p in built:
            proxies = p.global_ids[p.owned:]
            held = set(p.user_ids[p.owned:].tolist())
            mine = set(p.user_ids[:p.owned].tolist())
            for v in range(graph.num_vertices):
                local, proxy = p.local_id(v), p.proxy_id(v)
                if v in held:
                    assert local is None and p.user_ids[proxy] == v
                else:
                    assert proxy is None and (local is not None) == (v in mine)
                    assert local is None or p.user_ids[local] == v
            assert (numpy.diff(proxies) > 0).all() and not ((proxies >= p.first) & (proxies < p.first + p.owned)).any()
            for q, peer in enumerate(built):
                held = proxies[p.proxy_offsets[q] - p.owned:p.proxy_offsets[q + 1] - p.owned]
                mirrored = peer.mirrors[peer.mirror_offsets[p.rank]:peer.mirror_offsets[p.rank + 1]] + peer.first
                assert numpy.array_equal(held, mirrored), (name, p.rank, q)


@pytest.mark.parametrize("spec", ["kron:scale=9,edge_factor=6,seed=3", "rgg:scale=9,seed=2", "grid:scale=8,seed=4"])
def test_generated_parts_are_the_generated_graph(spec):
    whole = load(spec, weights="random", weight_seed=3, device="cpu")
    for parts in (1, 3):
        built = on_ranks(parts, lambda comm: load_part(comm, spec, device="cpu", weights="random", weight_seed=3))
        got = numpy.concatenate([part_edges(p) for p in built])
        assert numpy.array_equal(got[numpy.lexsort(got.T[::-1])], edge_set(whole)), (spec, parts)


@pytest.mark.parametrize("reorder", REORDER)
@pytest.mark.parametrize("apart", (False, True))
@pytest.mark.parametrize("parts", PARTS)
def test_bfs_on_parts(parts, apart, reorder, monkeypatch):
    """Level by level, and by rounds (levels apart between exchanges), on every nasty graph whatever its border."""
    monkeypatch.setattr(Part, "runs_apart", lambda self: apart)
    for name, graph in nasty_graphs("cpu").items():
        for source in {0, graph.num_vertices - 1}:
            expected = bfs(graph, source)
            for idempotent in (False, True):
                got = run_threads(graph, parts, "bfs", source, idempotent=idempotent, reorder=reorder)
                assert ("rounds" in got.extra) == apart
                assert numpy.array_equal(got.depth, expected.depth), (name, source)
                assert validate.check_bfs(graph, source, got.depth, got.parent) == "ok", (name, source)
                assert got.iterations == expected.iterations and got.edges_visited == expected.edges_visited


def test_parts_sharing_few_vertices_run_apart():
    """BFS and SSSP run iterations apart between exchanges on an ordered grid's
    halves, and on a permuted one's once renumbered, not on its halves in the
    user's order."""
    from minigr.apps._sssp_parts import ROUND_ITERATIONS
    for spec, reorder, apart in (("grid:scale=12,seed=4,permute=0", "none", True),
                                 ("grid:scale=12,seed=4", "none", False), ("grid:scale=12,seed=4", "auto", True)):
        graph = load(spec, weights="random", device="cpu")
        expected = bfs(graph, 5)
        got = run_threads(graph, 2, "bfs", 5, reorder=reorder)
        assert numpy.array_equal(got.depth, expected.depth) and got.iterations == expected.iterations
        assert ("rounds" in got.extra) == apart
        expected = sssp(graph, 5)
        got = run_threads(graph, 2, "sssp", 5, reorder=reorder)
        assert numpy.array_equal(got.distance, expected.distance)
        assert got.iterations == got.extra["exchanges"] * (ROUND_ITERATIONS if apart else 1)


@pytest.mark.parametrize("reorder", REORDER)
@pytest.mark.parametrize("apart", (False, True))
@pytest.mark.parametrize("parts", PARTS)
def test_sssp_on_parts(parts, apart, reorder, monkeypatch):
    """Exchanging every iteration, and every ROUND_ITERATIONS, on every nasty graph whatever its border."""
    from minigr.apps._sssp_parts import ROUND_ITERATIONS
    monkeypatch.setattr(Part, "runs_apart", lambda self: apart)
    for name, graph in nasty_graphs("cpu", weighted=True).items():
        source = graph.num_vertices // 2
        for delta in ("auto", None, 5.0):
            expected = sssp(graph, source, delta=delta)
            got = run_threads(graph, parts, "sssp", source, delta=delta, reorder=reorder)
            assert got.iterations == got.extra["exchanges"] * (ROUND_ITERATIONS if apart else 1)
            assert numpy.array_equal(got.distance, expected.distance), (name, delta)
            assert validate.check_sssp(graph, source, got.distance, got.parent) == "ok", (name, delta)


@pytest.mark.parametrize("reorder", REORDER)
@pytest.mark.parametrize("parts", PARTS)
def test_pagerank_on_parts(parts, reorder):
    rng = numpy.random.default_rng(parts)
    for name, graph in nasty_graphs("cpu", weighted=True).items():
        if graph.num_vertices == 0:
            continue
        personal = rng.random(graph.num_vertices)
        for options in ({}, {"weighted": True}, {"personalization": personal, "dangling": personal[::-1].copy()}):
            expected = pagerank(graph, tol=1e-9, max_iter=1000, **options)
            got = run_threads(graph, parts, "pagerank", tol=1e-9, max_iter=1000, reorder=reorder, **options)
            assert got.iterations == expected.iterations, (name, list(options))
            numpy.testing.assert_allclose(got.rank, expected.rank, rtol=0, atol=1e-14, err_msg=name)


@pytest.mark.parametrize("reorder", REORDER)
@pytest.mark.parametrize("parts", PARTS)
def test_wcc_on_parts(parts, reorder):
    for name, graph in {**nasty_graphs("cpu"), "chain": chain(60)}.items():
        expected = wcc(graph)
        got = run_threads(graph, parts, "wcc", reorder=reorder)
        assert numpy.array_equal(got.component, expected.component), name


@pytest.mark.parametrize("reorder", REORDER)
def test_wcc_on_parts_of_graphs_with_a_giant_component(reorder):
    """A vertex of the giant component skips its other edges on a part too
    (the giant named by a label spread over the borders, not a part's own
    root): the components stay whole."""
    for spec in ("grid:scale=12,seed=4", "kron:scale=10,edge_factor=4,seed=3", "grid:scale=12,seed=4,permute=0"):
        graph = load(spec, device="cpu")
        expected = wcc(graph)
        for parts in (2, 3):
            got = run_threads(graph, parts, "wcc", reorder=reorder)
            assert numpy.array_equal(got.component, expected.component), (spec, parts)
    # Two halves, each its part's giant, joined by one edge that is neither end's first two.
    half = numpy.array([[0, 1], [0, 2], [1, 2]] + [[v, v + 1] for v in range(2, 9)])
    edges = numpy.concatenate([half, half + 10, [[0, 10]]])
    joined = Graph.from_edges(edges[:, 0], edges[:, 1], num_vertices=20, symmetrize=True, device="cpu")
    assert (run_threads(joined, 2, "wcc").component == 0).all()


@pytest.mark.parametrize("parts", (2, 3))
def test_border_flags_reach_exactly_the_flagged_vertices(parts):
    """Borders of several tiles of 1024 flags, the last one partial: each owner
    hears once from every peer that flagged its vertex's proxy, and each proxy
    hears its owner's flag."""
    from minigr.partition import BorderFlags
    from minigr.transforms import Functor
    graph = load("kron:scale=13,edge_factor=8,seed=7", device="cpu")

    def work(comm):
        part = Part.from_graph(comm, graph)
        local = part.graph.num_vertices
        flags = numpy.random.default_rng(comm.rank).integers(0, 2, local).astype(numpy.int32)
        heard = numpy.zeros(local, dtype=numpy.int32)
        test = Functor("bool operator()(int v) const { return flags[v] != 0; }", flags=flags)
        count = Functor("void operator()(int v) const { atomicAdd(&heard[v], 1); }", heard=heard)
        border = BorderFlags(part, (test, count), (test, count))
        border.to_owners()
        from_peers = heard.copy()
        heard[:] = 0
        border.to_proxies()
        return part, flags, from_peers, heard.copy()

    found = on_ranks(parts, work)
    owner_flag = numpy.concatenate([flags[:part.owned] for part, flags, _, _ in found])
    peers_flagging = numpy.zeros(graph.num_vertices, dtype=numpy.int32)
    for part, flags, _, _ in found:
        numpy.add.at(peers_flagging, part.global_ids[part.owned:], flags[part.owned:])
    assert max(len(part.mirrors) for part, *_ in found) > 2048
    for part, _, from_peers, from_owners in found:
        own = slice(part.first, part.first + part.owned)
        assert numpy.array_equal(from_peers[:part.owned], peers_flagging[own])
        assert numpy.array_equal(from_owners[part.owned:], owner_flag[part.global_ids[part.owned:]])


@pytest.mark.parametrize("method", ("rcm", "metis"))
def test_every_order_gives_the_one_part_results_in_the_users_ids(method):
    """Each renumbering forced (auto picks one): results indexed by the
    user's ids, parents and components named in them (a component by its
    smallest user's id), the source and personalization the user's."""
    if method == "metis":
        pytest.importorskip("pymetis")
    graphs = nasty_graphs("cpu", weighted=True)
    for name in ("random_directed", "disconnected_loops_duplicates", "star", "kronecker", "grid"):
        graph = graphs[name]
        source = graph.num_vertices // 3
        personal = numpy.random.default_rng(5).random(graph.num_vertices)
        for parts in (2, 3, 4):
            got = {app: run_threads(graph, parts, app, *args, reorder=method, **options)
                   for app, args, options in (("bfs", (source,), {}), ("sssp", (source,), {}),
                                              ("pagerank", (), {"personalization": personal, "tol": 1e-9}),
                                              ("wcc", (), {}))}
            assert {r.reorder for r in got.values()} == {choose(graph, parts, method).method}, (name, parts)
            assert numpy.array_equal(got["bfs"].depth, bfs(graph, source).depth), (name, parts)
            assert validate.check_bfs(graph, source, got["bfs"].depth, got["bfs"].parent) == "ok", (name, parts)
            assert numpy.array_equal(got["sssp"].distance, sssp(graph, source).distance), (name, parts)
            assert validate.check_sssp(graph, source, got["sssp"].distance, got["sssp"].parent) == "ok", (name, parts)
            numpy.testing.assert_allclose(got["pagerank"].rank, pagerank(graph, personalization=personal,
                                                                         tol=1e-9).rank, rtol=0, atol=1e-14)
            assert numpy.array_equal(got["wcc"].component, wcc(graph).component), (name, parts)


def test_renumbering_cuts_a_permuted_grid():
    """A grid whose ids are permuted leaves 10 times fewer proxies once
    renumbered (RCM, and METIS where installed), about what the grid in row
    order leaves; the identity is kept where nothing cuts less."""
    permuted, ordered = (load(f"grid:scale=10,seed=1{more}", device="cpu") for more in ("", ",permute=0"))
    for parts in (2, 4):
        rcm = choose(permuted, parts, "rcm")
        identity = rcm.cuts["none"]
        assert rcm.method == "rcm" and rcm.cuts["rcm"][0] * 10 < identity[0] and rcm.cuts["rcm"][1] * 5 < identity[1]
        in_rows = choose(ordered, parts, "none").cuts["none"]
        assert rcm.cuts["rcm"][0] < 2 * in_rows[0]
        best = choose(permuted, parts)
        assert best.cuts[best.method] <= rcm.cuts["rcm"] and best.method != "none"
    assert choose(permuted, 1).method == "none"  # one part: nothing to cut
    star = nasty_graphs("cpu")["star"]
    assert choose(star, 3).method == "none"  # the hub's part holds every leaf however they are numbered


def test_part_and_gpu_counts_are_integers_of_any_kind():
    """parts=numpy.int64(2) was refused as not a positive integer while True ran as 1 part; gpus="2" or 2.5
    was 'asked for 2 GPUs and this machine has N'."""
    graph = nasty_graphs("cpu")["grid"]
    assert numpy.array_equal(run_threads(graph, numpy.int64(2), "wcc").component, run_threads(graph, 2, "wcc").component)
    for wrong in (True, 0, 2.0, "2"):
        with pytest.raises(MinigrError, match=f"^parts must be a positive integer, got {re.escape(repr(wrong))}$"):
            run_threads(graph, wrong, "wcc")
        with pytest.raises(MinigrError, match=f"^gpus must be a positive integer, got {re.escape(repr(wrong))}$"):
            run_gpus("grid:scale=4", wrong, "wcc")


def test_metis_complaints_stay_off_stdout(capfd):
    """METIS prints "***Cannot bisect a graph with 0 vertices!" to the process's stdout (C's, past
    sys.stdout) when asked for many parts of a small graph: into --json's records, say. They go to stderr."""
    pytest.importorskip("pymetis")
    graph = load("kron:scale=9,edge_factor=2", device="cpu")
    for parts in (121, 300):
        choose(graph, parts, "metis")
    assert capfd.readouterr().out == ""
    result = run_threads(load("grid:scale=6", device="cpu"), 127, "bfs", 3)
    assert capfd.readouterr().out == "" and int(result.depth[3]) == 0


def test_reorder_errors(monkeypatch):
    from minigr import reorder
    graph = nasty_graphs("cpu")["grid"]
    with pytest.raises(MinigrError, match="reorder must be one of auto, none, rcm, metis, got 'bfs'"):
        run_threads(graph, 2, "wcc", reorder="bfs")
    with pytest.raises(MinigrError, match="reorder must be one of"):
        on_ranks(1, lambda comm: load_part(comm, "grid:scale=4", device="cpu", reorder="fast"))
    monkeypatch.setattr(reorder, "_have_pymetis", lambda: False)
    with pytest.raises(MinigrError, match="reorder='metis' needs pymetis: pip install pymetis"):
        run_threads(graph, 2, "wcc", reorder="metis")
    assert run_threads(graph, 2, "wcc").reorder == "rcm"  # auto goes on without it


def test_kronecker_specs_are_generated_part_by_part_unless_renumbering_is_asked():
    spec = "kron:scale=9,edge_factor=6,seed=3"
    for reorder, by_parts in (("auto", True), ("none", True), ("rcm", False)):
        built = on_ranks(2, lambda comm: load_part(comm, spec, device="cpu", reorder=reorder))
        assert all((p.order is None) == by_parts for p in built), reorder
    built = on_ranks(2, lambda comm: load_part(comm, "grid:scale=10,seed=3", device="cpu"))
    assert built[0].order.method != "none" and "reorder_ms" in built[0].facts()


def chain(n):
    """A path whose ids alternate between the ends of the id range: each hop crosses parts."""
    order = numpy.argsort(numpy.arange(n) % 2, kind="stable")
    return Graph.from_edges(order[:-1], order[1:], num_vertices=n, symmetrize=True, device="cpu")


def test_errors_on_parts():
    graph = nasty_graphs("cpu")["random_directed"]
    with pytest.raises(MinigrError, match="source 300 is out of range"):
        run_threads(graph, 2, "bfs", 300)
    with pytest.raises(MinigrError, match="SSSP needs edge weights"):
        run_threads(graph, 3, "sssp", 0)
    with pytest.raises(MinigrError, match="color has no partitioned form yet; these have: bfs, pagerank, sssp, wcc"):
        run_threads(graph, 2, "color")
    with pytest.raises(MinigrError, match="parts must be a positive integer"):
        run_threads(graph, 0, "bfs", 0)


def test_timed_communicator_splits_own_work_from_communication():
    from minigr.comm import TimedCommunicator

    def work(comm):
        timed = TimedCommunicator(comm)
        timed.restart()
        if comm.rank == 1:
            threading.Event().wait(0.2)  # its own work: rank 0 waits for it in the allreduce
        timed.allreduce(numpy.ones(4))
        return timed.wait_ms()

    (own0, waited0), (own1, waited1) = on_ranks(2, work)
    assert own1 >= 200 and waited0 >= 100 and own0 < 100 and waited1 < 100


def test_highest_degree_vertex_and_facts_over_parts():
    for name, graph in nasty_graphs("cpu").items():
        degrees = graph.out_degrees()
        for parts in PARTS:
            def work(comm):
                part = Part.from_graph(comm, graph)
                return part.highest_degree_vertex(), part.facts()

            found = on_ranks(parts, work)
            if graph.num_vertices:
                assert {vertex for vertex, _ in found} == {int(numpy.argmax(degrees))}, (name, parts)
            assert sum(facts["owned"] for _, facts in found) == graph.num_vertices
            assert sum(facts["part_edges"] for _, facts in found) == graph.num_edges


def test_mpi_size_from_the_launchers_variables(monkeypatch):
    from minigr.multi import MPI_SIZE_VARIABLES, mpi_size
    for name in MPI_SIZE_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    assert mpi_size() == 0
    monkeypatch.setenv("OMPI_COMM_WORLD_SIZE", "1")
    assert mpi_size() == 0  # one rank: nothing to bootstrap
    monkeypatch.setenv("SLURM_NTASKS", "4")
    assert mpi_size() == 4


class FakeWorld:
    """MPI's COMM_WORLD as rank 0 of 2 sees it, for _run_under_mpi: `peers` is whether the other
    rank reaches the end of its work (else it waits in NCCL for ever); Abort stops as it would."""

    class Aborted(Exception):
        pass

    def __init__(self, peers, other=(None, ([], None))):
        self.peers, self.other, self.calls = peers, other, []

    def Get_rank(self):
        return 0

    def Get_size(self):
        return 2

    def Split_type(self, kind):
        return self

    def bcast(self, value, root):
        return value

    def Ibarrier(self):
        world = self

        class Met:
            def Test(self):
                world.calls.append("test")
                return world.peers

            def Wait(self):
                world.calls.append("wait")
                assert world.peers, "a rank that did not fail waits for the others"
        return Met()

    def gather(self, value, root):
        return [value, self.other]

    def Abort(self, code):
        self.calls.append(f"abort {code}")
        raise FakeWorld.Aborted


def under_fake_mpi(monkeypatch, world, work):
    """multi._run_under_mpi with `world` as MPI.COMM_WORLD and `work` as the rank's work."""
    import sys
    import types

    from minigr import multi
    mpi4py = types.ModuleType("mpi4py")
    mpi4py.MPI = types.SimpleNamespace(COMM_WORLD=world, COMM_TYPE_SHARED=0)
    monkeypatch.setitem(sys.modules, "mpi4py", mpi4py)
    monkeypatch.setattr(multi, "new_nccl_id", lambda: b"id")
    monkeypatch.setattr(multi, "_gpu_count", lambda: 1)
    monkeypatch.setattr(multi, "_rank_work", lambda *args: work())
    monkeypatch.setattr(multi, "MPI_FAILED_WAIT_S", 0.05)
    return multi._run_under_mpi(2, ("src", "bfs", (), {}, {}, 1, False, False))


def failing():
    raise MinigrError("source 99 is not a vertex")


def test_an_mpi_rank_that_failed_alone_aborts_the_job_instead_of_hanging(monkeypatch, capsys):
    """The other rank waits in NCCL for the failed one's part: the failed rank says its error and aborts."""
    world = FakeWorld(peers=False)
    with pytest.raises(FakeWorld.Aborted):
        under_fake_mpi(monkeypatch, world, failing)
    assert world.calls[-1] == "abort 1" and world.calls.count("test") > 1  # it waited before it aborted
    assert "MPI rank 0: source 99 is not a vertex" in capsys.readouterr().err


def test_mpi_ranks_that_fail_alike_report_the_error(monkeypatch):
    """Every rank failed (a mistake each sees): they meet, and rank 0 raises the first rank's error."""
    world = FakeWorld(peers=True, other=("source 99 is not a vertex", None))
    with pytest.raises(MinigrError, match="MPI rank 0: source 99 is not a vertex"):
        under_fake_mpi(monkeypatch, world, failing)
    assert "abort 1" not in world.calls


def test_an_mpi_rank_that_did_not_fail_waits_for_the_others(monkeypatch):
    world = FakeWorld(peers=True)
    assert under_fake_mpi(monkeypatch, world, lambda: ([], None)) == []
    assert world.calls == ["wait"]


def test_wcc_on_parts_compiles_for_the_gpu():
    """The GPU twins of every kernel WCC on parts launches compile with NVRTC (no GPU needed)."""
    from minigr.transforms import launch
    graph = load("grid:scale=8,seed=1", device="cpu")
    with launch.compile_check("90") as compiled:
        got = run_threads(graph, 2, "wcc")
    assert numpy.array_equal(got.component, wcc(graph).component)
    assert any("outbox" in source for source in compiled)


def checks_on_parts(graph, parts, name, args, options, corrupt=None):
    """Every rank's part_checks verdict on `name`'s results on its part, the last rank's first corrupted."""
    from minigr import apps
    from minigr.part_checks import check_on_part
    order = choose(graph, parts)

    def work(comm):
        part = Part.from_graph(comm, graph, order=order)
        values = dict(apps.on_parts(apps.record(name))(part, *args, **options).values)
        if corrupt is not None and comm.rank == parts - 1:
            corrupt(values, part)
        return check_on_part(part, name, values, *args, tol=options.get("tol", 1e-6))

    return set(on_ranks(parts, work))


@pytest.mark.parametrize("parts", (1, 3))
def test_checks_on_parts_pass_right_results_and_catch_wrong_ones(parts):
    """The invariants each rank checks on its own part (for graphs no host
    holds whole) hold for the right results on the nasty graphs, and a
    depth, distance, component or rank put wrong on one part breaks them."""
    cases = (("bfs", {}, "depth", lambda x: x + 1),
             ("sssp", {}, "distance", lambda x: x / 2 if 0 < x < numpy.inf else 3.0),
             ("wcc", {}, "component", lambda x: x + 1),
             ("pagerank", {"tol": 1e-9}, "rank", lambda x: x * 1.01))
    for name, graph in nasty_graphs("cpu", weighted=True).items():
        source = graph.num_vertices // 2
        for app, options, key, wrong in cases:
            if app == "pagerank" and not graph.num_vertices:
                continue
            args = (source,) if app in ("bfs", "sssp") else ()
            assert checks_on_parts(graph, parts, app, args, options) == {"ok"}, (name, app)
            changed = []

            def corrupt(values, part):  # the last part's vertex of highest degree, where it has edges
                degrees = part.graph.out_degrees()[:part.owned]
                if part.owned and degrees.max() > 0:
                    v = int(degrees.argmax())
                    values[key][v] = wrong(values[key][v])
                    changed.append(v)

            verdicts = checks_on_parts(graph, parts, app, args, options, corrupt)
            if changed:
                assert len(verdicts) == 1 and verdicts.pop().startswith("FAILED: "), (name, app, parts)
