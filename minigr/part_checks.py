"""Checks of a primitive's result on a graph split over ranks (minigr.partition)
that no single device or host need hold whole: each rank checks invariants
along every edge of its own part, the owners' values brought to the proxies
first, and the ranks add up what each found. Together the invariants hold
for the right answer only (BFS, SSSP) or are what every right answer keeps
(WCC: components closed under edges, each label at most its vertices' ids;
PageRank, unweighted with uniform teleport: sums to 1 and is one step from
its fixed point by less than its stopping tolerance)."""
import numpy

from .partition import Border
from .validate import RTOL

CHUNK = 1 << 27  # edges checked at once: a part of kron_s28_e16 has 2.1G


def check_on_part(part, name, values, source=None, damping=0.85, tol=1e-6):
    """The verdict on primitive `name`'s `values` (the arrays its partitioned
    form returns for the part's own vertices), the same on every rank, which
    all call it: "ok", or "FAILED: " and how many vertices or edges break
    which invariant over all parts.

    Parameters
    ----------
    part : minigr.partition.Part
    name : "bfs", "sssp", "wcc" or "pagerank"
    values : dict of the part's result arrays (Result.values of the rank's run)
    source : the user's source vertex (bfs, sssp)
    damping, tol : PageRank's, as it ran

    Returns
    -------
    str

    Example
    -------
    >>> check_on_part(part, "bfs", result.values, source=5)
    'ok'
    """
    found = {"bfs": _bfs, "sssp": _sssp, "wcc": _wcc, "pagerank": _pagerank}[name](part, values, source, damping, tol)
    counts = part.xp.asarray([count for _, count in found], dtype=numpy.int64)
    part.comm.allreduce(counts)
    broken = [f"{int(c)} {what}" for (what, _), c in zip(found, counts.tolist()) if c]
    return "ok" if not broken else "FAILED: " + "; ".join(broken)


def _everywhere(part, owned_values):
    """The per-local-vertex array of the owners' values (proxies included)."""
    xp = part.xp
    values = xp.concatenate([owned_values, xp.zeros(part.graph.num_vertices - part.owned, owned_values.dtype)])
    Border(part, values).to_proxies()
    return values


def _edges(graph):
    """(tail, head, weight) of the graph's edges, CHUNK at a time (weight None where it has none)."""
    xp = graph.xp
    for start in range(0, graph.num_edges, CHUNK):
        edge = xp.arange(start, min(start + CHUNK, graph.num_edges), dtype=numpy.int64)
        tail = xp.searchsorted(graph.row_offsets, edge, side="right") - 1
        yield tail, graph.col_indices[edge], None if graph.weights is None else graph.weights[edge]


def _with_predecessor(part, fits):
    """How many of the part's own vertices have an in-edge (w -> v) for which fits(w, v, weight) holds."""
    xp, owned = part.xp, part.owned
    found = xp.zeros(max(owned, 1), dtype=bool)
    for head, tail, weight in _edges(part.graph.reverse()):  # the reverse's rows are the part's own vertices
        found[head[fits(tail, head, weight)]] = True
    return found[:owned]


def _bfs(part, values, source, *_):
    depth = _everywhere(part, values["depth"])
    far = 0
    for u, v, _ in _edges(part.graph):
        far += int(((depth[u] >= 0) & ((depth[v] < 0) | (depth[v] > depth[u] + 1))).sum())
    own = depth[:part.owned]
    led = _with_predecessor(part, lambda w, v, _: (depth[w] >= 0) & (depth[w] == depth[v] - 1))
    root = part.user_ids[:part.owned] == source
    return [("edges from a reached vertex to one unreached or more than a level deeper", far),
            ("vertices at depth 0 other than the source, or a source not at 0", int(((own == 0) != root).sum())),
            ("reached vertices past the source with no in-neighbour a level up",
             int(((own > 0) & ~led).sum()))]


def _sssp(part, values, source, *_):
    xp = part.xp
    distance = _everywhere(part, values["distance"])
    longer = 0
    for u, v, weight in _edges(part.graph):
        bound = distance[u] + weight  # float32 sums: within RTOL
        longer += int((distance[v] > bound + RTOL * xp.maximum(bound, 1)).sum())
    own = distance[:part.owned]
    reached = xp.isfinite(distance)
    known = xp.where(reached, distance, 0)
    led = _with_predecessor(part, lambda w, v, weight: reached[w] & reached[v] & (
        xp.abs(known[w] + weight - known[v]) <= RTOL * xp.maximum(known[v], 1)))
    root = part.user_ids[:part.owned] == source
    return [("edges along which a distance would shrink", longer),
            ("sources not at 0", int((root & (own != 0)).sum())),
            ("reached vertices past the source with no in-edge giving their distance",
             int((~root & xp.isfinite(own) & ~led).sum()))]


def _wcc(part, values, *_):
    component = _everywhere(part, values["component"])
    split = 0
    for u, v, _ in _edges(part.graph):
        split += int((component[u] != component[v]).sum())
    above = int((component[:part.owned] > part.user_ids[:part.owned]).sum())
    return [("edges between two components", split), ("vertices labelled above their own id", above)]


def _pagerank(part, values, _, damping, tol):
    xp, owned, n = part.xp, part.owned, part.num_vertices
    if n == 0:
        return []
    rank = values["rank"]
    degree = part.graph.out_degrees()[:owned]
    sums = xp.stack([rank.sum(), rank[degree == 0].sum()]).astype(numpy.float64)
    part.comm.allreduce(sums)
    share = _everywhere(part, xp.where(degree > 0, rank / xp.maximum(degree, 1), 0.0))
    pulled = xp.zeros(max(owned, 1))
    for head, tail, _ in _edges(part.graph.reverse()):
        pulled += xp.bincount(head, weights=share[tail], minlength=max(owned, 1))
    expected = (1 - damping) / n + damping * (pulled[:owned] + sums[1] / n)
    # it stopped where a step moved the ranks less than n * tol (L1), and the next step moves them less
    residual = xp.abs(expected - rank).sum().reshape(1)
    part.comm.allreduce(residual)
    first = part.rank == 0
    return [("L1 distances from the fixed point above n * tol", int(first and float(residual[0]) > n * tol * 1.001)),
            ("sums of the ranks off 1", int(first and abs(float(sums[0]) - 1) > 1e-6))]
