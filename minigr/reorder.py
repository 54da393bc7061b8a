"""Vertex orders that keep a split graph's parts local where its ids do not
(every generated graph, any file not in locality order). Before
minigr.partition cuts contiguous ranges, the vertices may be renumbered by
reverse Cuthill-McKee (SciPy: a bandwidth-reducing order, so that a range's
edges stay near it) or by METIS's partition (pymetis, where installed: each
part's vertices numbered together); of the candidates, the identity
included, the one leaving the fewest proxies (border vertices held by
another part) is kept. Results go back to the user's ids through
Part.user_ids."""
import contextlib
import ctypes
import dataclasses
import os
import sys
import time

import numpy

from .graph import Graph
from .transforms.errors import MinigrError

METHODS = ("auto", "none", "rcm", "metis")
# auto tries METIS only up to this many stored edges: above, it would take
# minutes on the host (kron_s16_e16, 2M edges: 1.2 s; RCM 0.03 s).
METIS_AUTO_EDGES = 1 << 26


def vertex_bounds(degrees, parts):
    """parts + 1 bounds of contiguous vertex ranges holding about equal
    edges + vertices (degrees: every vertex's stored edges, on the host)."""
    if not 1 <= parts:
        raise MinigrError(f"the number of parts must be at least 1, got {parts}")
    weight = numpy.cumsum(numpy.asarray(degrees, dtype=numpy.int64) + 1)
    total = int(weight[-1]) if len(weight) else 0
    cuts = numpy.searchsorted(weight, [total * k // parts for k in range(1, parts)], side="right")
    return numpy.concatenate([[0], cuts, [len(weight)]]).astype(numpy.int64)


@dataclasses.dataclass
class Order:
    """A numbering of the vertices for a split into parts.

    method: the candidate kept ("none": the identity); user_ids: the user's
    id of each new id (None for the identity); bounds: the parts' contiguous
    ranges of new ids; cuts: method -> (proxies, edges crossing parts) of
    every candidate tried; ms: the time to choose it (Part.order_facts adds
    renumbering the graph)."""
    method: str
    user_ids: numpy.ndarray
    bounds: numpy.ndarray
    cuts: dict
    ms: float = 0.0

    def facts(self):
        """What a report says of it (numbers and words only)."""
        proxies, crossing = self.cuts[self.method]
        tried = ", ".join(f"{m} {p}" for m, (p, _) in self.cuts.items())
        return dict(reorder=self.method, reorder_ms=round(self.ms, 3), cut_proxies=proxies, cut_edges=crossing,
                    reorder_candidates=f"proxies by order: {tried}")


def choose(graph, parts, method="auto"):
    """The order of `graph` (on the host) for `parts` parts that leaves the
    fewest proxies among the identity and `method`'s candidates.

    Parameters
    ----------
    graph : Graph on the CPU.
    parts : int, the number of parts.
    method : "auto" (the identity, RCM, and METIS where pymetis is installed
        and the graph has at most METIS_AUTO_EDGES edges), "none" (the
        identity), "rcm" or "metis" (that one, unless the identity's cut is
        smaller).

    Returns
    -------
    Order

    Example
    -------
    >>> order = choose(minigr.load("grid:scale=10,seed=1", device="cpu"), 4)
    >>> order.method, order.cuts["none"][0] > 5 * order.cuts[order.method][0]
    ('metis', True)
    """
    if method not in METHODS:
        raise MinigrError(f"reorder must be one of {', '.join(METHODS)}, got {method!r}")
    start = time.perf_counter()
    degrees = graph.out_degrees()
    candidates = {"none": (None, vertex_bounds(degrees, parts))}
    if parts > 1 and graph.num_edges and method != "none":
        pattern = _symmetric_pattern(graph)
        if method in ("auto", "rcm"):
            candidates["rcm"] = _rcm(pattern, degrees, parts)
        if method == "metis" or method == "auto" and graph.num_edges <= METIS_AUTO_EDGES and _have_pymetis():
            candidates["metis"] = _metis(pattern, degrees, parts)
    cuts = {name: cut(graph, user_ids, bounds) for name, (user_ids, bounds) in candidates.items()}
    best = min(cuts, key=lambda name: cuts[name])  # the identity first: it wins ties
    user_ids, bounds = candidates[best]
    return Order(best, user_ids, bounds, cuts, (time.perf_counter() - start) * 1e3)


def renumber(graph, order):
    """`graph` (on the host) with vertex order.user_ids[i] renumbered i."""
    if order.user_ids is None:
        return graph
    new_ids = numpy.empty(graph.num_vertices, dtype=numpy.int64)
    new_ids[order.user_ids] = numpy.arange(graph.num_vertices)
    return Graph._build(new_ids[graph.edge_sources()], new_ids[graph.col_indices], graph.weights, graph.num_vertices,
                        directed=graph.directed, device="cpu")


def cut(graph, user_ids, bounds):
    """(proxies, stored edges crossing parts) of `graph` split at `bounds` in
    the numbering user_ids gives (None: the identity). A part's proxies are
    the other parts' vertices at the far end of its own vertices' out- and
    in-edges, as minigr.partition.Part holds them."""
    src, dst = graph.edge_sources(), graph.col_indices.astype(numpy.int64)
    if user_ids is not None:
        new_ids = numpy.empty(graph.num_vertices, dtype=numpy.int64)
        new_ids[user_ids] = numpy.arange(graph.num_vertices)
        src, dst = new_ids[src], new_ids[dst]
    owner_src = numpy.searchsorted(bounds, src, side="right") - 1
    owner_dst = numpy.searchsorted(bounds, dst, side="right") - 1
    crossing = owner_src != owner_dst
    n = graph.num_vertices
    held = numpy.concatenate([owner_src[crossing] * n + dst[crossing], owner_dst[crossing] * n + src[crossing]])
    return len(numpy.unique(held)), int(crossing.sum())


def _symmetric_pattern(graph):
    """The graph's edges both ways, no self-loops or duplicates, as a SciPy CSR matrix."""
    import scipy.sparse
    n = graph.num_vertices
    a = scipy.sparse.csr_matrix((numpy.ones(graph.num_edges, dtype=numpy.int8), graph.col_indices,
                                 graph.row_offsets), shape=(n, n))
    pattern = (a + a.T).tocsr()
    pattern.setdiag(0)
    pattern.eliminate_zeros()
    pattern.sort_indices()
    return pattern


def _rcm(pattern, degrees, parts):
    """(user_ids, bounds): reverse Cuthill-McKee's order, cut into ranges of about equal edges."""
    from scipy.sparse.csgraph import reverse_cuthill_mckee
    user_ids = reverse_cuthill_mckee(pattern, symmetric_mode=True).astype(numpy.int32)
    return user_ids, vertex_bounds(degrees[user_ids], parts)


def _have_pymetis():
    try:
        import pymetis  # noqa: F401
    except ImportError:
        return False
    return True


def _metis(pattern, degrees, parts):
    """(user_ids, bounds): METIS's parts (balanced by edges + vertices, as
    vertex_bounds balances), each numbered in the user's order."""
    if not _have_pymetis():
        raise MinigrError("reorder='metis' needs pymetis: pip install pymetis (or minigr[metis]); "
                          "reorder='rcm' needs only SciPy")
    import pymetis
    adjacency = pymetis.CSRAdjacency(pattern.indptr.astype(numpy.int32), pattern.indices.astype(numpy.int32))
    options = pymetis.Options(seed=1)  # every rank computes the same parts
    with _stdout_to_stderr():  # METIS prints "***Cannot bisect a graph with 0 vertices!" to C's stdout
        found = pymetis.part_graph(parts, adjacency, vweights=(degrees + 1).astype(numpy.int32), options=options)
    owner = numpy.asarray(found.vertex_part, dtype=numpy.int64)
    user_ids = numpy.argsort(owner, kind="stable").astype(numpy.int32)
    bounds = numpy.concatenate([[0], numpy.cumsum(numpy.bincount(owner, minlength=parts))]).astype(numpy.int64)
    return user_ids, bounds


@contextlib.contextmanager
def _stdout_to_stderr():
    """A `with` context in which what C code writes to the process's stdout (file descriptor 1)
    goes to stderr: stdout holds results (--json's records) that a library's complaints would break."""
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        os.dup2(2, 1)
        yield
    finally:
        ctypes.CDLL(None).fflush(None)  # what C's stdio still buffers goes out while stdout is stderr
        os.dup2(saved, 1)
        os.close(saved)
