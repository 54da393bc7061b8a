"""BFS on one part of a graph split over ranks (minigr.partition): the app's
operators and functors on the part, with flags of the border vertices
reached exchanged after each level (see PartitionedBFS)."""
import numpy

from minigr.arguments import check_source
from minigr.enactor import Result, Timer, problem, wait_reached_edges
from minigr.frontier import HEADER as FRONTIER_HEADER
from minigr.partition import Border, BorderFlags
from minigr.transforms import Functor, copied, transform

from . import _bfs_rounds
from .bfs import BFS

# The loop's condition (PushPull's) on a part, from totals = the next level's size and edges on all parts.
NEXT_LEVEL_OF_PARTS = """bool operator()() const {
    choose(totals[0], totals[1], frontier.next_level());
    return totals[0] > 0;
}"""


def run(part, source, *, idempotent=False, loop="device"):
    """BFS on one part of a partitioned graph (minigr.partition), called by
    every rank: depth and parent (the user's ids) of the part's own vertices.
    Parts that share few vertices run their levels apart, in rounds."""
    source = check_source(part, source)
    if part.runs_apart():
        return _bfs_rounds.run(part, source, loop=loop)
    run = problem(part.graph, ("bfs part", idempotent), lambda: PartitionedBFS(part, idempotent))
    with Timer(part.graph.device) as timer:
        run.reset(source)
        levels, _ = run.run_mode(loop, max(part.num_vertices, 1))
        parent = run.parents()
    owned = part.owned
    edges = wait_reached_edges(part.graph, run.depth, -1, owned)
    sent = sum(run.flags.volume()) + run.totals.nbytes
    return Result({"depth": copied(run.depth[:owned]), "parent": parent}, levels, timer.ms, edges,
                  {"bytes_sent_per_iteration": sent})


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
# After the run, every parent becomes a user's id (the visit gave local ids),
# and a part that reached a proxy sends the parent its visit gave it; the
# owner takes one for each vertex marked -2 (every sender reached it from the
# level above).
USER_PARENT = "void operator()(long long v) const { if (parent[v] >= 0) parent[v] = user_ids[parent[v]]; }"
TAKE_PARENT = "void operator()(int v, int got) const { if (parent[v] == -2 && got >= 0) parent[v] = got; }"
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
        self.user_parent = Functor(USER_PARENT, filename="<bfs user parent>", parent=self.parent,
                                   user_ids=part.user_ids)
        self.parents_found = Border(part, self.parent, Functor(TAKE_PARENT, filename="<bfs take parent>",
                                                               parent=self.parent))

    def level(self):
        super().level()
        self.flags.to_owners()
        self.flags.to_proxies()
        transform(1, self.count)
        self.part.comm.allreduce(self.totals)

    def next_level(self):
        return self.push_pull.condition("bfs", NEXT_LEVEL_OF_PARTS, totals=self.totals)

    def reset(self, source):
        local, proxy = self.part.local_id(source), self.part.proxy_id(source)
        self.depth.fill(-1)
        if proxy is not None:  # no flag says level 0
            self.depth[proxy] = 0
        self.parent.fill(-1)
        direction = self.push_pull.direction
        direction.fill(0)
        if local is None:
            self.frontier.reset()
        else:
            self.depth[local], self.parent[local] = 0, local
            direction[1] = self.graph.row_offsets[local + 1] - self.graph.row_offsets[local]
            direction[2] = 1
            self.frontier.reset(local)
        unvisited = direction[1:2]  # the edges of every vertex but the source, whose owner knows its degree
        self.part.comm.allreduce(unvisited)
        self.graph.xp.subtract(self.part.num_edges, unvisited, out=unvisited)

    def parents(self):
        """The parent of each of the part's own vertices as a user's id: the
        visit's, or for a vertex reached through a proxy, the reaching part's."""
        transform(self.graph.num_vertices, self.user_parent)
        self.parents_found.to_owners()
        return copied(self.parent[:self.part.owned])
