"""WCC on one part of a graph split over ranks (minigr.partition): the app's
union-find on the part, then rounds over the borders (see PartitionedWCC)."""
import numpy

from minigr.enactor import Result, Timer, problem
from minigr.partition import Border
from minigr.transforms import Functor, transform

from .wcc import SAMPLES, WCC

def run(part):
    """WCC on one part of a partitioned graph (minigr.partition), called by
    every rank: the component of the part's own vertices."""
    run = problem(part.graph, ("wcc part",), lambda: PartitionedWCC(part))
    with Timer(part.graph.device) as timer:
        rounds = run.label_components_of_parts()
    sent = sum(run.labels.volume()) + run.changed.nbytes
    return Result({"component": run.label[:part.owned].copy()}, rounds, timer.ms, part.graph.num_edges,
                  {"bytes_sent_per_iteration": sent})


# Rounds on parts: each local component takes the smallest label of its
# vertices (labels start as global ids), owners the smallest label their
# proxies have, proxies their owners'. A round in which no component's label
# fell leaves every proxy with its owner's label: then nothing can fall.
NO_LABEL = "void operator()(long long v) const { lowest[v] = 2147483647; }"
# (read first: most labels of a component are equal, and atomics on one word queue)
LOWEST = "void operator()(long long v) const { if (label[v] < lowest[root[v]]) atomicMin(&lowest[root[v]], label[v]); }"
TAKE_LOWEST = """void operator()(long long v) const {
    const int l = lowest[root[v]];
    if (l < label[v]) { label[v] = l; changed[0] = 1; }
}"""
TAKE_SMALLER = "void operator()(int v, int got) const { atomicMin(&label[v], got); }"
FELL = "bool operator()() const { return changed[0] > 0; }"
FIRST_ROUNDS = 2  # before the giant's vote: the second spreads what the first brought over each local component


class PartitionedWCC(WCC):
    """WCC on a part: union-find hooks each vertex to its first neighbours,
    two rounds spread the smallest global id over the borders, and the label
    most sampled vertices then share names the giant component; the other
    vertices hook along their other edges, and rounds spread the smallest
    global id over the borders till none falls. Labels come only along
    edges, so two vertices with the giant's label are joined already: an
    edge between them is one that neither row need hook."""

    def __init__(self, part):
        xp, n = part.xp, max(part.graph.num_vertices, 1)
        self.part = part
        self.label, self.lowest = xp.empty(n, dtype=numpy.int32), xp.empty(n, dtype=numpy.int32)
        super().__init__(part.graph, component=self.label)
        self.changed = xp.zeros(1, dtype=numpy.int32)
        self.labels = Border(part, self.label, Functor(TAKE_SMALLER, filename="<wcc take smaller>", label=self.label))
        self.round_functors = [Functor(NO_LABEL, filename="<wcc no label>", lowest=self.lowest)] + [
            Functor(source, filename="<wcc lowest>", lowest=self.lowest, root=self.root, label=self.label,
                    changed=self.changed) for source in (LOWEST, TAKE_LOWEST)]
        self.start_loop(part.graph.device, self.round, Functor(FELL, filename="<wcc fell>", changed=self.changed))

    def round(self):
        self.changed.fill(0)
        for f in self.round_functors:
            transform(self.n, f)
        self.labels.to_owners()
        self.labels.to_proxies()
        self.part.comm.allreduce(self.changed, "max")

    def label_components_of_parts(self):
        """label[v] becomes v's component; returns the rounds it took: waits.
        Every rank makes the same exchanges, a part with no vertices too."""
        if self.n:
            self.hook_sampled()
            transform(self.n, self.roots)
        self.label[:self.n] = self.part.user_ids
        for _ in range(FIRST_ROUNDS):
            self.round()
        self.best.fill(0)
        if self.n:
            transform(SAMPLES, self.vote)
        self.part.comm.allreduce(self.best, "max")
        if self.n:
            self.hook_rest()
        return FIRST_ROUNDS + self.run_loop("device", 2**31 - 1)[0]
