"""PageRank on one part of a graph split over ranks (minigr.partition): the
app's pull on the part, owners' shares sent to the proxies before each
iteration (see PartitionedPageRank)."""
import numpy

from minigr.arguments import check_weights, distribution
from minigr.enactor import Result, problem
from minigr.partition import Border

from .pagerank import PageRank, check_settings, iterate

def run(part, *, damping=0.85, tol=1e-6, max_iter=100, weighted=False, personalization=None, nstart=None,
                  dangling=None, dtype=numpy.float64, loop="device"):
    """PageRank on one part of a partitioned graph (minigr.partition), called
    by every rank (the per-vertex arrays are the whole graph's): the rank of
    the part's own vertices."""
    dtype = check_settings(damping, tol, max_iter, dtype)
    if weighted:
        check_weights(part.graph, "weighted PageRank")
    xp, owned, total = part.xp, part.owned, part.graph.num_vertices
    vectors = {}
    for name, value in (("personalization", personalization), ("nstart", nstart), ("dangling", dangling)):
        value = distribution(part, name, value)
        mine = None if value is None else value[part.user_ids[:owned]]  # indexed by the user's ids
        vectors[name] = None if value is None else xp.concatenate([mine, xp.zeros(total - owned)])
    if part.num_vertices == 0:
        return Result({"rank": xp.zeros(0, dtype)}, 0, 0.0, 0)
    run = problem(part.graph, ("pagerank part", bool(weighted), dtype.name),
                  lambda: PartitionedPageRank(part, weighted, dtype))
    result = iterate(run, part, vectors, damping, tol, max_iter, loop)
    result.extra["bytes_sent_per_iteration"] = run.border.volume()[0] + run.sums.nbytes
    return result


class PartitionedPageRank(PageRank):
    """PageRank on a part: before each pull, owners send their vertices'
    shares to the proxies; after it, the sums (change, dangling rank) are
    summed over the parts."""

    def __init__(self, part, weighted, dtype):
        self.part = part
        super().__init__(part.graph, weighted, dtype, part.owned)
        self.border = Border(part, self.share)

    def iteration(self):
        self.border.to_proxies()
        super().iteration()
        self.part.comm.allreduce(self.sums)

    def reset(self, damping, tolerance, vectors, uniform):
        super().reset(damping, tolerance, vectors, uniform)
        self.part.comm.allreduce(self.carried[1:2])  # the dangling rank
