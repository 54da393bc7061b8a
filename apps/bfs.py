"""Breadth-first search: hop depths and a predecessor tree from one source.
Direction-optimizing (minigr.operators.PushPull): push from small frontiers,
pull (each unvisited vertex looks for one parent at the current depth, then
stops) when the frontier's edges outweigh the unvisited ones (Beamer's alpha
and beta). The choice is made on the device after each level (the other
operator launches empty), so the levels loop there too. loop="async" relaxes
depths without levels (minigr.operators.Relax) and finds each vertex's
parent after."""
import numpy

from minigr import alternatives as alt
from minigr import validate
from minigr.catalog import App, BenchCase, Option, System, needs
from minigr.enactor import Problem, Result, Start, Timer, loop_mode, problem, reached_edges_later
from minigr.frontier import Frontier
from minigr.operators import AdvanceFunctor, PushPull, Relax, lone_in_buckets_only, smallest_in_neighbour
from minigr.transforms import Functor, copied

# Push: the first to claim dst sets its depth (atomic); its parent follows.
VISIT = dict(cond="return atomicCAS(&depth[dst], -1, iteration + 1) == -1;", apply="parent[dst] = src;")
# Idempotent push (the frontier appends each vertex once), and pull: no
# atomics. Racing writers of one dst all write the same depth and a valid parent.
VISIT_IDEMPOTENT = dict(cond="return depth[dst] == -1;", apply="depth[dst] = iteration + 1; parent[dst] = src;")
PULL = dict(cond="return depth[src] == iteration;", apply="depth[dst] = iteration + 1; parent[dst] = src;")
UNVISITED = "bool operator()(int v) const { return depth[v] < 0; }"
# A run's start (minigr.enactor.Start): the source alone in the frontier, pushed.
START_FRONTIER = """
        frontier.reset(root);""" + PushPull.START
START_VERTEX = """
        depth[v] = v == root ? 0 : -1;
        parent[v] = v == root ? root : -1;"""
# Without levels (loop="async"): an in-neighbour's depth plus one; a parent is an in-neighbour one level up.
HOP = "return label + 1;"
HOPS_ABOVE = "return label + (unsigned)width;"
# loop="async" relaxes in buckets of hops that adapt (Relax's above= and adapt=), the first BUCKET_HOPS
# wide, on the GPU where buckets are what make Relax's workers lone (2^17 to 2^21 vertices): a lane's
# chase then holds up no warp-mate, and a bucket bounds how far a chase runs ahead of the true depths.
# H100, 2026-11-27, async BFS ms without / in buckets: USA-road-d.NY 1.22-1.40 / 0.97-1.20, grid_18 2.15 /
# 1.30, grid_20 4.3-4.5 / 3.06; where the workers are the same either way, buckets only cost:
# luxembourg_osm 0.72 / 0.85, grid_16 0.54-0.65 / 0.69-0.87 (lone both), grid_22 10.7 / 10.8 (warps both).
BUCKET_HOPS = 16
LEVEL_UP = """int operator()(int v, int u, long long edge) const {
    return depth[v] > 0 && depth[u] == depth[v] - 1 ? u : -1;
}"""
UNROLL = 4  # levels per iteration of the device loop: an empty level does nothing


@needs()
def bfs(graph, source, *, idempotent=False, loop="auto"):
    """Breadth-first search: every vertex's hops from `source` and its parent on a shortest path.

    Parameters
    ----------
    source : int
        The start vertex.
    idempotent : bool, default False
        Let a vertex enter the frontier more than once (fewer atomics, same result).

    Returns
    -------
    Result
        ``depth`` (int32 hops, -1 unreachable) and ``parent`` (int32, -1 unreachable; the
        source is its own).

    Examples
    --------
    >>> import minigr
    >>> graph = minigr.Graph.from_edges([0, 1, 2, 0], [1, 2, 3, 2])
    >>> result = minigr.bfs(graph, 0)
    >>> result.depth.tolist(), result.parent.tolist()
    ([0, 1, 1, 2], [0, 0, 0, 2])
    """
    run = problem(graph, ("bfs", idempotent), lambda: BFS(graph, idempotent))
    mode = loop_mode(graph, loop, dense="persistent", relaxes=True)
    with Timer(graph.device) as timer:
        wait = run.queue_mode(mode, max(graph.num_vertices, 1), lambda: run.wait_relaxed_levels(source),
                              run.start(root=source))
        depth, parent = copied(run.depth), copied(run.parent)
        levels, _ = wait()
    return Result({"depth": depth, "parent": parent}, levels, timer.ms, reached_edges_later(graph, depth, -1))


class BFS(Problem):
    name = "bfs"

    def __init__(self, graph, idempotent, vertices=None):
        """vertices: of the whole graph, where `graph` is a part of it."""
        xp, n = graph.xp, graph.num_vertices
        self.graph = graph
        self.depth = xp.empty(n, dtype=numpy.int32)
        self.parent = xp.empty(n, dtype=numpy.int32)
        self.frontier = Frontier(n, graph.device, capacity=n, edges=True)
        arrays = dict(depth=self.depth, parent=self.parent)
        push = AdvanceFunctor(**(VISIT_IDEMPOTENT if idempotent else VISIT), filename="<bfs visit>", **arrays)
        pull = AdvanceFunctor(**PULL, filename="<bfs pull>", **arrays)
        unvisited = Functor(UNVISITED, filename="<bfs unvisited>", depth=self.depth)
        self.push_pull = PushPull(graph, self.frontier, push, pull, unvisited, unique=idempotent, vertices=vertices)
        self.start = Start("bfs", n, START_FRONTIER, START_VERTEX, frontier=self.frontier.view, root=numpy.int32(0),
                           **arrays, **self.push_pull.start_captures)
        self.start_loop(graph, self.level, self.next_level(), UNROLL, [self.frontier.overflow_check()])
        self.hop_width = BUCKET_HOPS if lone_in_buckets_only(graph) else None  # async
        self.hops = Relax(graph, self.depth.view(numpy.uint32), HOP, filename="<bfs hop>", name="bfs",
                          above=HOPS_ABOVE if self.hop_width else None)
        self.level_up = Functor(LEVEL_UP, filename="<bfs level up>", depth=self.depth)

    def level(self):
        self.push_pull(self.loop.iteration)

    def next_level(self):
        return self.push_pull.condition("bfs")

    def wait_relaxed_levels(self, source):
        """loop="async": the levels, or None where the queue overflowed (then reset
        and loop): waits."""
        self.hops.run([source], [0], self.hop_width, adapt=True)
        smallest_in_neighbour(self.graph, self.level_up, out=self.parent, own=source)
        deepest = self.depth.max()  # queued with the parents before the one wait: void too where it overflowed
        return None if self.hops.wait_pushes() is None else int(deepest) + 1


ALTERNATIVES = (
    System("CuPy SpMV (cuSPARSE)", "gpu", lambda i, trace=None: alt.bfs_spmv(
        i.in_adjacency(numpy.float32), i.degrees, i.source, trace), traced=True),
    System("CuPy composed", "gpu", lambda i, trace=None: alt.bfs_cupy(
        i.graph.row_offsets, i.graph.col_indices, i.source, trace), traced=True),
    System("SciPy csgraph (CPU)", "cpu", lambda i, trace=None: alt.bfs_scipy(i.scipy, i.source)),
    System("NetworKit (CPU, every core)", "cpu", lambda i, trace=None: alt.bfs_networkit(i.scipy, i.source),
           skip=alt.no_networkit))
APP = App(
    "bfs", bfs, "breadth-first search: hop depth and parent of every vertex", ("depth", "parent"),
    lambda graph, source, values, options: validate.check_bfs(graph, source, values["depth"], values["parent"]),
    options=(Option("idempotent", bool, False, "let a vertex enter the frontier more than once (fewer atomics)"),),
    variants=({"idempotent": False}, {"idempotent": True}), partitioned="_bfs_parts", persistent=True, relaxes=True,
    bench=(BenchCase("bfs", "depth", ALTERNATIVES, "SciPy csgraph (CPU)", alt.same,
                     traced=lambda inputs, trace: alt.push_levels(inputs, trace, VISIT, relax=False)),))
