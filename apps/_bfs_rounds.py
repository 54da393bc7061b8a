"""BFS on one part of a graph whose parts share few vertices (ids that carry
locality, as a road network's file order does): each part runs
ROUND_LEVELS levels on its own between two exchanges, so a graph of
thousands of levels pays for an exchange every ROUND_LEVELS levels, not
every level (see RoundsBFS). _bfs_parts.run picks it where Part.runs_apart()."""
import numpy

from minigr.enactor import Problem, Result, Timer, problem, wait_reached_edges
from minigr.frontier import HEADER as FRONTIER_HEADER
from minigr.frontier import Frontier
from minigr.operators import AdvanceFunctor, advance
from minigr.partition import Border
from minigr.transforms import Functor, transform

ROUND_LEVELS = 32
# A label packs (depth, the parent's user id), so one atomicMin keeps the
# shorter way and a parent one level up; a vertex whose label fell goes on.
RELAX = dict(cond="""
    const uint64_t offer = ((label[src] >> 32) + 1) << 32 | (uint32_t)user_ids[src];
    return atomicMin(&label[dst], offer) > offer;""")
# An owner keeps a peer's shorter label of its vertex, which goes on from there.
TAKE_SHORTER = """void operator()(int v, uint64_t got) const {
    if (atomicMin(&label[v], got) > got) frontier.append_unique(v, 0);
}"""
COUNT_NEXT = "void operator()(long long) const { totals[0] = frontier.appended(); }"
NEXT_ROUND = "bool operator()() const { frontier.next_level(); return totals[0] > 0; }"
RESET = """void operator()(long long v) const {
    label[v] = user_ids[v] == root ? (uint64_t)(uint32_t)root : ~(uint64_t)0;
}"""
UNPACK = """void operator()(long long v) const {
    const uint64_t l = label[v];
    depth[v] = l == ~(uint64_t)0 ? -1 : (int)(l >> 32);
    parent[v] = l == ~(uint64_t)0 ? -1 : (int)(uint32_t)l;
}"""


def run(part, source, *, loop="device"):
    """BFS by rounds on one part (source checked by the caller), called by
    every rank: depth and parent (the user's ids) of the part's own vertices."""
    run = problem(part.graph, ("bfs rounds",), lambda: RoundsBFS(part))
    with Timer(part.graph.device) as timer:
        run.reset(source)
        rounds, _ = run.run_mode(loop, max(part.num_vertices, 1))
        depth, parent = run.unpack()
    owned = part.owned
    edges = wait_reached_edges(part.graph, depth, -1, owned)
    sent = run.labels.volume()[1] + run.totals.nbytes
    levels = int(run.deepest[0]) + 1
    return Result({"depth": depth, "parent": parent}, levels, timer.ms, edges,
                  {"bytes_sent_per_iteration": sent * rounds // levels, "rounds": rounds})


class RoundsBFS(Problem):
    """Each round: ROUND_LEVELS levels of the part alone (a push that lowers
    labels, so a vertex reached first along a longer way is put right when a
    shorter one comes), then proxies' labels to their owners, which keep the
    shorter ones and go on from them (a proxy has no edges here, so its own
    label need not learn the owner's); the rounds stop when no part has a
    vertex to go on from."""

    name = "bfs rounds"

    def __init__(self, part):
        graph, xp, n = part.graph, part.xp, part.graph.num_vertices
        self.part, self.graph = part, graph
        self.label = xp.empty(n, dtype=numpy.uint64)
        self.totals = xp.zeros(1, dtype=numpy.int64)
        self.deepest = xp.zeros(1, dtype=numpy.int64)
        self.frontier = Frontier(n, graph.device)  # a vertex may come again in the next level
        self.relax = AdvanceFunctor(**RELAX, filename="<bfs rounds relax>", label=self.label,
                                    user_ids=part.user_ids)
        self.labels = Border(part, self.label, Functor(TAKE_SHORTER, filename="<bfs rounds take shorter>",
                                                       headers=(FRONTIER_HEADER,), label=self.label,
                                                       frontier=self.frontier.view))
        self.count = Functor(COUNT_NEXT, filename="<bfs rounds count>", headers=(FRONTIER_HEADER,),
                             totals=self.totals, frontier=self.frontier.view)
        self.start_loop(graph, self.round, Functor(NEXT_ROUND, filename="<bfs next round>",
                                                          headers=(FRONTIER_HEADER,), totals=self.totals,
                                                          frontier=self.frontier.view),
                        checks=[self.frontier.overflow_check()])

    def round(self):
        for level in range(ROUND_LEVELS):
            if level:
                self.frontier.next_level()
            advance(self.graph, self.frontier, self.relax, out=self.frontier, unique=True, count=self.frontier.size)
        self.labels.to_owners()
        transform(1, self.count)
        self.part.comm.allreduce(self.totals)

    def reset(self, source):
        transform(self.graph.num_vertices, Functor(RESET, filename="<bfs rounds reset>", label=self.label,
                                                   user_ids=self.part.user_ids, root=numpy.int64(source)))
        local = self.part.local_id(source)
        self.frontier.reset(() if local is None else local)

    def unpack(self):
        """(depth, parent) of the part's own vertices from their labels, and
        deepest = the largest depth over all parts."""
        xp, owned = self.part.xp, self.part.owned
        depth, parent = xp.empty(owned, dtype=numpy.int32), xp.empty(owned, dtype=numpy.int32)
        transform(owned, Functor(UNPACK, filename="<bfs rounds unpack>", label=self.label, depth=depth,
                                 parent=parent))
        self.deepest.fill(0)
        if owned:
            self.deepest[0] = depth.max()
        self.part.comm.allreduce(self.deepest, "max")
        return depth, parent
