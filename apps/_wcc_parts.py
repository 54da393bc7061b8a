"""WCC on one part of a graph split over ranks (minigr.partition): the app's
union-find on the part, then rounds over the borders (see PartitionedWCC)."""
import numpy

from minigr.enactor import Result, Timer, problem
from minigr.partition import Border
from minigr.transforms import Functor, transform

from .wcc import WCC

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


class PartitionedWCC(WCC):
    """WCC on a part: union-find labels the part's local components once
    (every edge hooked), then rounds spread the smallest global id over the
    borders."""

    def __init__(self, part):
        super().__init__(part.graph)
        xp, n = part.xp, max(self.n, 1)
        self.part = part
        self.label, self.lowest = xp.empty(n, dtype=numpy.int32), xp.empty(n, dtype=numpy.int32)
        self.changed = xp.zeros(1, dtype=numpy.int32)
        self.labels = Border(part, self.label, Functor(TAKE_SMALLER, filename="<wcc take smaller>", label=self.label))
        self.round_functors = [Functor(NO_LABEL, filename="<wcc no label>", lowest=self.lowest)] + [
            Functor(source, filename="<wcc lowest>", lowest=self.lowest, root=self.parent, label=self.label,
                    changed=self.changed) for source in (LOWEST, TAKE_LOWEST)]
        self.start_loop(part.graph.device, self.round, Functor(FELL, filename="<wcc fell>", changed=self.changed))

    def find_giant(self):
        """None on a part: an edge to a proxy is in one row only (a proxy has
        none), so a vertex of the giant component skipping it would lose it."""

    def round(self):
        self.changed.fill(0)
        for f in self.round_functors:
            transform(self.n, f)
        self.labels.to_owners()
        self.labels.to_proxies()
        self.part.comm.allreduce(self.changed, "max")

    def label_components_of_parts(self):
        """label[v] becomes v's component; returns the rounds it took: waits."""
        self.label_components()
        self.label[:self.n] = self.part.global_ids
        return self.run_loop("device", 2**31 - 1)[0]
