"""SSSP on one part of a graph split over ranks (minigr.partition): the app's
delta-stepping on the part, with proxies' distances sent to their owners
after each iteration, or each ROUND_ITERATIONS where the parts share few
vertices (see PartitionedSSSP)."""
import dataclasses

import numpy

from minigr.arguments import check_source
from minigr.enactor import problem
from minigr.partition import Border
from minigr.transforms import Functor, transform

from .sssp import SSSP, bucket_delta, settle

def run(part, source, *, delta="auto", loop="device"):
    """SSSP on one part of a partitioned graph (minigr.partition), called by
    every rank: distance and parent (the user's ids) of the part's own vertices."""
    source = check_source(part, source)
    apart = ROUND_ITERATIONS if part.runs_apart() else 1
    run = problem(part.graph, ("sssp part", apart), lambda: PartitionedSSSP(part, apart))  # checks the weights
    largest = part.graph.xp.asarray([run.largest])
    part.comm.allreduce(largest, "max")
    delta = bucket_delta(delta, float(largest[0]), part.num_vertices, part.num_edges)
    result = settle(run, part, source, delta, loop)
    result.extra.update(bytes_sent_per_iteration=(run.shorter.volume()[1] + run.totals.nbytes) // apart,
                        exchanges=result.iterations)
    return dataclasses.replace(result, iterations=result.iterations * apart)


# A part's vertex that a peer found a shorter path to: it joins a bucket here.
SHORTER = """void operator()(int v, float got) const {
    const int old = atomicMin((int*)&dist[v], minigr::bit_cast<int>(got));
    if (got < minigr::bit_cast<float>(old)) buckets.place(v, got);
}"""
COUNT_NEXT = """void operator()(long long) const {
    totals[0] = buckets.near.appended();
    totals[1] = buckets.far.appended();
}"""
# The buckets' next() on parts, whose far labels no part sees all of: the threshold rises by one
# delta at a time (Buckets' raise_threshold). Between exchanges (parts that run apart), on the part
# alone, only while far vertices wait here; after an exchange from totals = the next near and far
# levels' sizes on all parts.
NEXT_LOCAL_BUCKET = """void operator()(long long) const {
    if (buckets.next_near() == 0 && buckets.far.appended() > 0) buckets.raise_threshold(1);
}"""
ROUND_ITERATIONS = 32  # iterations between exchanges where parts run apart
NEXT_BUCKET_OF_PARTS = """bool operator()() const {
    buckets.next_near();
    if (totals[0] > 0) return true;
    buckets.raise_threshold(1);
    return totals[1] > 0;
}"""


class PartitionedSSSP(SSSP):
    """SSSP on a part: after each iteration (each `apart` iterations, the
    buckets moving on the part alone between them), proxies' distances go to
    their owners, which keep the shorter ones, and the buckets' sizes are
    summed over the parts. A distance may come after the part's threshold
    passed it: the owner relaxes from it then, as the frontier form would."""

    def __init__(self, part, apart):
        self.part, self.apart = part, apart
        self.totals = part.graph.xp.zeros(2, dtype=numpy.int64)
        super().__init__(part.graph)
        self.owned = part.owned
        self.shorter = Border(part, self.dist, Functor(SHORTER, filename="<sssp shorter>", dist=self.dist,
                                                       buckets=self.buckets.view))
        self.count = Functor(COUNT_NEXT, filename="<sssp count next>", totals=self.totals, buckets=self.buckets.view)
        self.next_local_bucket = Functor(NEXT_LOCAL_BUCKET, filename="<sssp next local bucket>",
                                         buckets=self.buckets.view)

    def iteration(self):
        for k in range(self.apart):
            if k:
                transform(1, self.next_local_bucket)
            super().iteration()
        self.shorter.to_owners()
        transform(1, self.count)
        self.part.comm.allreduce(self.totals)

    def next_bucket(self):
        return Functor(NEXT_BUCKET_OF_PARTS, filename="<sssp next bucket>", buckets=self.buckets.view,
                       totals=self.totals)

    def starting(self, source, delta):
        return super().starting(self.part.local_id(source), delta)

    def parents(self, source):
        """Every vertex's parent (the user's ids), proxies told their final distances first."""
        self.shorter.to_proxies()
        parent = self.in_parents()
        found = parent >= 0
        parent[found] = self.part.user_ids[parent[found]]
        return parent
