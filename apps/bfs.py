"""Breadth-first search: hop depths and a predecessor tree from one source.
Direction-optimizing: push from small frontiers, pull (each unvisited vertex
looks for one parent at the current depth, then stops) when the frontier's
edges outweigh the unvisited ones (Beamer's alpha and beta). The choice is
made on the device after each level (the other operator launches empty), so
the levels loop there too."""
import numpy

from minigr import validate
from minigr.bench import alternatives as alt
from minigr.bench import primitives as bench
from minigr.catalog import App, BenchCase, Option, System
from minigr.enactor import Problem, Result, Timer, check_source, problem
from minigr.frontier import HEADER as FRONTIER_HEADER
from minigr.frontier import Frontier
from minigr.operators import advance, advance_pull
from minigr.partition import Border, BorderFlags
from minigr.transforms import DeviceCount, Functor, scan_transform, transform

# Push: the first to claim dst sets its depth (atomic); its parent follows.
VISIT = """
bool cond(int src, int dst, long long edge, long long rank, long long out_idx, int iteration) const {
    return atomicCAS(&depth[dst], -1, iteration + 1) == -1;
}
void apply(int src, int dst, long long edge, long long rank, long long out_idx, int iteration) const {
    parent[dst] = src;
}"""
# Idempotent push (the frontier appends each vertex once), and pull: no
# atomics. Racing writers of one dst all write the same depth and a valid parent.
VISIT_IDEMPOTENT = """
bool cond(int src, int dst, long long edge, long long rank, long long out_idx, int iteration) const {
    return depth[dst] == -1;
}
void apply(int src, int dst, long long edge, long long rank, long long out_idx, int iteration) const {
    depth[dst] = iteration + 1;
    parent[dst] = src;
}"""
PULL = """
bool cond(int src, int dst, long long edge, long long rank, long long out_idx, int iteration) const {
    return depth[src] == iteration;
}
void apply(int src, int dst, long long edge, long long rank, long long out_idx, int iteration) const {
    depth[dst] = iteration + 1;
    parent[dst] = src;
}"""
UNVISITED = "bool operator()(int v) const { return depth[v] < 0; }"
# After each level: choose the next one's direction from its size and edges
# over the whole graph. direction = [pulling, edges of unvisited vertices,
# vertices to push, to pull]: the operator not chosen gets a count of 0 and
# launches empty. n: vertices of the whole graph; local: this graph's vertices,
# of which `size` are in the next level here (a partitioned graph's part).
CHOOSE = """void choose(long long size, long long edges, long long local_size) const {
    direction[1] -= edges;
    if (direction[0]) direction[0] = size * beta >= n;
    else direction[0] = size * 4 * alpha >= n && edges * alpha > direction[1];
    direction[2] = direction[0] ? 0 : local_size;
    direction[3] = direction[0] ? local : 0;
}"""
# Stop when the next level is empty, else choose its direction.
NEXT_LEVEL = CHOOSE + """bool operator()() const {
    const long long size = frontier.next_level();
    choose(size, frontier.level_edges(), size);
    return size > 0;
}"""
# The same on a part, from totals = the next level's size and edges on all parts.
NEXT_LEVEL_OF_PARTS = CHOOSE + """bool operator()() const {
    choose(totals[0], totals[1], frontier.next_level());
    return totals[0] > 0;
}"""
# A run's start, and the edges it reached, as functors rather than CuPy calls, which CuPy
# would compile on first use (0.1 s each on an H100). direction as NEXT_LEVEL keeps it.
RESET = """void operator()(long long v) const {
    depth[v] = v == root ? 0 : -1;
    parent[v] = v == root ? root : -1;
    if (v == 0) {
        direction[0] = 0;
        direction[1] = edges - (row_offsets[root + 1] - row_offsets[root]);
        direction[2] = 1;
        direction[3] = 0;
    }
}"""
REACHED_EDGES = """long long operator()(long long v) const {
    return depth[v] >= 0 ? row_offsets[v + 1] - row_offsets[v] : 0;
}"""
ALPHA, BETA = 14, 24
UNROLL = 4  # levels per iteration of the device loop: an empty level does nothing


def bfs(graph, source, *, idempotent=False, loop="device"):
    """Depth (hops, -1 unreachable) and parent (-1 unreachable; the source is its
    own) of every vertex, as arrays on the graph's device. loop: "device" runs
    the levels with no host round trip on the GPU, "host" decides each on the host."""
    source = check_source(graph, source)
    run = problem(graph, ("bfs", idempotent), lambda: BFS(graph, idempotent))
    with Timer(graph.device) as timer:
        run.reset(source)
        levels, _ = run.run_loop(loop, max(graph.num_vertices, 1))
    run.frontier.check_waiting()
    _, edges = scan_transform(graph.num_vertices, Functor(REACHED_EDGES, filename="<bfs reached edges>",
                                                          depth=run.depth, row_offsets=graph.row_offsets))
    return Result({"depth": run.depth.copy(), "parent": run.parent.copy()}, levels, timer.ms, edges)


def bfs_part(part, source, *, idempotent=False, loop="device"):
    """bfs on one part of a partitioned graph (minigr.partition), called by
    every rank: depth and parent (global ids) of the part's own vertices."""
    source = check_source(part, source)
    run = problem(part.graph, ("bfs part", idempotent), lambda: PartitionedBFS(part, idempotent))
    with Timer(part.graph.device) as timer:
        run.reset(source)
        levels, _ = run.run_loop(loop, max(part.num_vertices, 1))
        parent = run.parents()
    run.frontier.check_waiting()
    owned = part.owned
    edges = int(part.graph.out_degrees()[:owned][run.depth[:owned] >= 0].sum())
    sent = sum(run.flags.volume()) + run.totals.nbytes
    return Result({"depth": run.depth[:owned].copy(), "parent": parent[:owned]}, levels, timer.ms, edges,
                  {"bytes_sent_per_iteration": sent})


class BFS(Problem):
    name = "bfs"

    def __init__(self, graph, idempotent, vertices=None):
        """vertices: of the whole graph, where `graph` is a part of it."""
        xp, n = graph.xp, graph.num_vertices
        self.graph, self.idempotent = graph, idempotent
        self.depth = xp.empty(n, dtype=numpy.int32)
        self.parent = xp.empty(n, dtype=numpy.int32)
        self.direction = xp.empty(4, dtype=numpy.int64)
        self.frontier = Frontier(n, graph.device, capacity=n, edges=True)
        arrays = dict(depth=self.depth, parent=self.parent)
        self.push = Functor(VISIT_IDEMPOTENT if idempotent else VISIT, filename="<bfs visit>", **arrays)
        self.pull = Functor(PULL, filename="<bfs pull>", **arrays)
        self.unvisited = Functor(UNVISITED, filename="<bfs unvisited>", depth=self.depth)
        self.to_push, self.to_pull = (DeviceCount(self.direction, n, index) for index in (2, 3))
        self.settings = dict(frontier=self.frontier.view, direction=self.direction, local=numpy.int64(n),
                             n=numpy.int64(n if vertices is None else vertices), alpha=numpy.int64(ALPHA),
                             beta=numpy.int64(BETA))
        self.start_loop(graph.device, self.level, self.next_level(), unroll=UNROLL)

    def level(self):
        it = self.loop.iteration
        advance(self.graph, self.frontier, self.push, out=self.frontier, iteration=it, unique=self.idempotent,
                count=self.to_push)
        advance_pull(self.graph, self.pull, self.unvisited, out=self.frontier, iteration=it, count=self.to_pull)

    def next_level(self):
        return Functor(NEXT_LEVEL, filename="<bfs next level>", **self.settings)

    def reset(self, source):
        graph = self.graph
        transform(graph.num_vertices, Functor(RESET, filename="<bfs reset>", depth=self.depth, parent=self.parent,
                                              direction=self.direction, row_offsets=graph.row_offsets,
                                              root=numpy.int32(source), edges=numpy.int64(graph.num_edges)))
        self.frontier.reset(source)


# Flags crossing between parts after each level: proxies reached here go to
# their owners, which take them into the next level (marked -2: their parent
# comes after the run); owners flag their next level's vertices to the
# proxies, whose depth pulling reads.
REACHED_NOW = "bool operator()(int v) const { return depth[v] == iteration[0] + 1; }"
TAKE_REACHED = """void operator()(int v) const {
    if (depth[v] < 0) {
        depth[v] = iteration[0] + 1;
        parent[v] = -2;
        frontier.append_unique(v, row_offsets[v + 1] - row_offsets[v]);
    }
}"""
SET_REACHED = "void operator()(int v) const { depth[v] = iteration[0] + 1; }"
# After the run, a part that reached a proxy sends the parent its visit gave it
# (one of the part's own vertices) as a global id; the owner takes one for each
# vertex marked -2 (every sender reached it from the level above).
GLOBAL_PARENT = """void operator()(long long i) const {
    const int p = parent[first_proxy + i];
    parent[first_proxy + i] = p >= 0 ? global_ids[p] : -1;
}"""
TAKE_PARENT = "void operator()(int v, int got) const { if (parent[v] == -2 && got >= 0) found[v] = got; }"
COUNT_NEXT = "void operator()(long long) const { totals[0] = frontier.appended(); totals[1] = frontier.appended_edges(); }"


class PartitionedBFS(BFS):
    """BFS on a part: after each level, flags of the vertices reached through
    proxies go to their owners, flags of each part's next level go to its
    proxies (what pulling reads), and the next level's size and edges are
    summed over the parts."""

    def __init__(self, part, idempotent):
        self.part = part
        self.totals = part.graph.xp.zeros(2, dtype=numpy.int64)
        super().__init__(part.graph, idempotent, part.num_vertices)
        arrays = dict(depth=self.depth, iteration=self.loop.iteration)
        now = Functor(REACHED_NOW, filename="<bfs reached now>", **arrays)
        take = Functor(TAKE_REACHED, filename="<bfs take reached>", headers=(FRONTIER_HEADER,), parent=self.parent,
                       frontier=self.frontier.view, row_offsets=part.graph.row_offsets, **arrays)
        self.flags = BorderFlags(part, (now, take), (now, Functor(SET_REACHED, filename="<bfs set reached>", **arrays)))
        self.count = Functor(COUNT_NEXT, filename="<bfs count next>", totals=self.totals, frontier=self.frontier.view)
        self.found = part.xp.empty_like(self.parent)
        self.global_parent = Functor(GLOBAL_PARENT, filename="<bfs global parent>", parent=self.parent,
                                     global_ids=part.global_ids, first_proxy=numpy.int64(part.owned))
        self.parents_found = Border(part, self.parent, Functor(TAKE_PARENT, filename="<bfs take parent>",
                                                               parent=self.parent, found=self.found))

    def level(self):
        super().level()
        self.flags.to_owners()
        self.flags.to_proxies()
        transform(1, self.count)
        self.part.comm.allreduce(self.totals)

    def next_level(self):
        return Functor(NEXT_LEVEL_OF_PARTS, filename="<bfs next level>", totals=self.totals, **self.settings)

    def reset(self, source):
        local = self.part.local_id(source)
        self.depth.fill(-1)
        self.depth[self.part.global_ids == source] = 0  # the source's proxies too: no flag says level 0
        self.parent.fill(-1)
        self.direction.fill(0)
        if local is None:
            self.frontier.reset()
        else:
            self.parent[local] = local
            self.direction[1] = self.graph.row_offsets[local + 1] - self.graph.row_offsets[local]
            self.direction[2] = 1
            self.frontier.reset(local)
        unvisited = self.direction[1:2]  # the edges of every vertex but the source, whose owner knows its degree
        self.part.comm.allreduce(unvisited)
        self.graph.xp.subtract(self.part.num_edges, unvisited, out=unvisited)

    def parents(self):
        """The parent of each of the part's own vertices as a global id: the
        visit's (a local id till now), or for a vertex reached through a proxy,
        the reaching part's."""
        xp = self.graph.xp
        self.found.fill(-1)
        transform(self.graph.num_vertices - self.part.owned, self.global_parent)
        self.parents_found.to_owners()
        own, found = self.parent[:self.part.owned], self.found[:self.part.owned]
        return xp.where(own == -2, found, xp.where(own >= 0, self.part.global_ids[xp.maximum(own, 0)], -1))


ALTERNATIVES = (
    System("CuPy SpMV (cuSPARSE)", "gpu", lambda i, trace=None: alt.bfs_spmv(
        i.in_adjacency(numpy.float32), i.degrees, i.source, trace), traced=True),
    System("CuPy composed", "gpu", lambda i, trace=None: alt.bfs_cupy(
        i.graph.row_offsets, i.graph.col_indices, i.source, trace), traced=True),
    System("SciPy csgraph (CPU)", "cpu", lambda i, trace=None: alt.bfs_scipy(i.scipy, i.source)))
APP = App(
    "bfs", bfs, "breadth-first search: hop depth and parent of every vertex", ("depth", "parent"),
    lambda graph, source, values, options: validate.check_bfs(graph, source, values["depth"], values["parent"]),
    options=(Option("idempotent", bool, False, "let a vertex enter the frontier more than once (fewer atomics)"),),
    variants=({"idempotent": False}, {"idempotent": True}), partitioned=bfs_part,
    bench=(BenchCase("bfs", "depth", ALTERNATIVES, "SciPy csgraph (CPU)", bench.same,
                     traced=lambda inputs, trace: bench.minigr_levels(inputs, trace, relax=False)),))
