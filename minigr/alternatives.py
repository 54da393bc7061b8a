"""What a Python user would write instead of minigr, for the primitive benchmarks:
cuSPARSE SpMV through cupyx.scipy.sparse, frontier code composed from CuPy
library calls, cuGraph where it is installed, and SciPy / networkx / NetworKit
(where it is installed) on the CPU;
minigr's push advance timed level by level; and the checks a BenchCase compares
results with. The apps' records name these (minigr.catalog), so this module sits
below the apps and imports none of them; minigr.bench runs them.

Each function takes the graph's arrays (CuPy, or SciPy on the CPU), does its
setup outside the timed region, and returns (values, ms, iterations), ms timed
by minigr's Timer (CUDA events on the GPU, a host clock on the CPU). Traversals
accept `trace`, a list that receives one record per level (CUDA-event timed).
"""
import contextlib
import importlib.util
import os

import numpy

from .enactor import Timer
from .transforms.backend import array_module, device_of


@contextlib.contextmanager
def timed_level(trace, frontier_size, edges):
    """Times the block with CUDA events and appends a level record to `trace`
    (a list); does nothing when trace is None."""
    if trace is None:
        yield
        return
    with Timer("gpu") as timer:
        yield
    trace.append({"level": len(trace), "frontier": int(frontier_size), "edges": int(edges), "ms": timer.ms,
                  "MTEPS": edges / timer.ms / 1e3 if timer.ms else None})


def no_cugraph(inputs):
    """A System's skip: the reason where cuGraph is not installed (its import is guarded so)."""
    return None if importlib.util.find_spec("cugraph") else "skipped: cuGraph is not installed"


def cugraph_graph(graph):
    """A cugraph.Graph of a minigr graph on the GPU, its vertex ids kept (setup, not timed)."""
    import cudf
    import cugraph
    found = cugraph.Graph(directed=graph.directed)
    found.from_cudf_edgelist(cudf.DataFrame({"src": graph.edge_sources(), "dst": graph.col_indices}), "src", "dst",
                             renumber=False)
    return found


def no_networkit(inputs):
    """A System's skip: the reason where NetworKit is not installed (its import is guarded so)."""
    return None if importlib.util.find_spec("networkit") else "skipped: NetworKit is not installed"


def networkit_graph(matrix):
    """A directed, weighted NetworKit graph of a SciPy matrix (edge i -> j), NetworKit
    set to use every core of the host (setup, not timed)."""
    import networkit
    networkit.setNumberOfThreads(os.cpu_count())
    coo = matrix.tocoo()
    return networkit.GraphFromCoo((coo.data.astype(numpy.float64), (coo.row, coo.col)), n=matrix.shape[0],
                                  weighted=True, directed=True)


def networkit_distances(matrix, source, unweighted):
    """NetworKit's BFS (unweighted) or Dijkstra from source on the CPU: distances,
    the largest double where unreachable, as NetworKit leaves them."""
    import networkit
    graph = networkit_graph(matrix)
    search = (networkit.distance.BFS if unweighted else networkit.distance.Dijkstra)(graph, source, storePaths=False)
    with Timer("cpu") as timer:
        search.run()
    return numpy.asarray(search.getDistances()), timer.ms


def csr_matrix(row_offsets, col_indices, data):
    """A cupyx.scipy.sparse CSR matrix (int32 indices, as cuSPARSE prefers) of one graph's arrays."""
    import cupy
    import cupyx.scipy.sparse
    n = len(row_offsets) - 1
    return cupyx.scipy.sparse.csr_matrix((data, col_indices.astype(cupy.int32), row_offsets.astype(cupy.int32)),
                                         shape=(n, n))


def expand(row_offsets, col_indices, frontier):
    """The out-edges of `frontier` (vertex ids) with CuPy calls: for each edge,
    the index of its source in the frontier and its edge id (cumsum + searchsorted)."""
    import cupy
    starts = row_offsets[frontier]
    degrees = row_offsets[frontier + 1] - starts
    ends = cupy.cumsum(degrees)
    total = int(ends[-1]) if len(ends) else 0
    items = cupy.arange(total, dtype=numpy.int64)
    owner = cupy.searchsorted(ends, items, side="right")
    edges = starts[owner] + items - (ends[owner] - degrees[owner])
    return owner, edges


def push_levels(inputs, trace, code, relax):
    """minigr's push advance run level by level, each level timed with CUDA
    events into `trace`, with the app's AdvanceFunctor bodies `code`: BFS's visit (captures
    depth, parent) or, with relax, SSSP's relaxation (dist, weights, buckets; each vertex
    once a level: the frontier form, one bucket of infinite width). Returns (values,
    None, levels): only the trace is timed."""
    from .frontier import Frontier
    from .operators import AdvanceFunctor, Buckets, advance
    graph, n = inputs.graph, inputs.graph.num_vertices
    if relax:
        values, buckets = graph.xp.full(n, numpy.inf, dtype=numpy.float32), Buckets(n, graph.device)
        buckets.threshold.fill(numpy.inf)  # every improved vertex is near
        op = AdvanceFunctor(**code, filename="<sssp relax>", dist=values, weights=graph.weights, buckets=buckets.view)
    else:
        values = graph.xp.full(n, -1, dtype=numpy.int32)
        op = AdvanceFunctor(**code, filename="<bfs visit>", depth=values,
                            parent=graph.xp.full(n, -1, dtype=numpy.int32))
    values[inputs.source] = 0
    frontier, level = Frontier.from_ids(inputs.source, n, graph.device), 0
    while size := frontier.wait_size():
        edges = int(inputs.degrees[frontier.wait_ids()].sum())
        with timed_level(trace, size, edges):
            advance(graph, frontier, op, out=frontier, iteration=level, unique=relax)
        frontier.next_level()
        level += 1
    return values, None, level


def too_big(limit, what="CPU"):
    """A System's skip: a reason when the graph has more than `limit` edges, for `what` is too slow there."""
    def skip(inputs):
        m = inputs.graph.num_edges
        return f"skipped: {m} edges > {limit} ({what})" if m > limit else None
    return skip


def same(values, reference):
    return bool(numpy.array_equal(values, reference))


def close(values, reference):
    return bool(numpy.allclose(values, reference, rtol=1e-5))


def l1_close(values, reference):
    return bool(numpy.abs(values - reference).sum() < 1e-5)


def proper_coloring(colors, inputs):
    """Whether every vertex is colored and no edge (self-loops aside) joins two of one color."""
    graph = inputs.graph
    colors = graph.xp.asarray(colors)
    sources, targets = graph.edge_sources(), graph.col_indices
    clash = (colors[sources] == colors[targets]) & (sources != targets)
    return bool((colors >= 0).all()) and not bool(clash.any())


# ---- BFS ------------------------------------------------------------------------------------------

def bfs_spmv(in_adjacency, degrees, source, trace=None):
    """Level-synchronous BFS by SpMV: next = (A^T frontier) masked by the unvisited.
    in_adjacency: a cupyx CSR of in-neighbours with float32 ones. Returns depths."""
    import cupy
    n = in_adjacency.shape[0]
    depth = cupy.full(n, -1, dtype=numpy.int32)
    depth[source] = 0
    frontier = cupy.zeros(n, dtype=numpy.float32)
    frontier[source] = 1
    level, size = 0, 1
    with Timer("gpu") as timer:
        while size:
            edges = int(degrees[frontier > 0].sum()) if trace is not None else 0
            with timed_level(trace, size, edges):
                reached = (in_adjacency @ frontier > 0) & (depth < 0)
                depth[reached] = level + 1
                frontier = reached.astype(numpy.float32)
                size = int(reached.sum())
            level += 1
    return depth, timer.ms, level


def _frontier_levels(row_offsets, source, step, trace):
    """Runs frontier = step(frontier, level) from {source} until the frontier is
    empty, each level timed into `trace`; returns (ms, levels)."""
    import cupy
    frontier = cupy.asarray([source], dtype=numpy.int64)
    level = 0
    with Timer("gpu") as timer:
        while len(frontier):
            edges = int((row_offsets[frontier + 1] - row_offsets[frontier]).sum()) if trace is not None else 0
            with timed_level(trace, len(frontier), edges):
                frontier = step(frontier, level)
            level += 1
    return timer.ms, level


def bfs_cupy(row_offsets, col_indices, source, trace=None):
    """Frontier BFS from CuPy calls: expand the frontier's edges, keep the
    unvisited destinations, claim their depth, uniquify. Returns depths."""
    import cupy
    depth = cupy.full(len(row_offsets) - 1, -1, dtype=numpy.int32)
    depth[source] = 0

    def step(frontier, level):
        _, edge_ids = expand(row_offsets, col_indices, frontier)
        neighbours = col_indices[edge_ids]
        fresh = neighbours[depth[neighbours] < 0]
        depth[fresh] = level + 1
        return cupy.unique(fresh).astype(numpy.int64)

    return (depth,) + _frontier_levels(row_offsets, source, step, trace)


def bfs_scipy(matrix, source):
    """Hop depths by scipy.sparse.csgraph on the CPU (-1 unreachable)."""
    import scipy.sparse.csgraph as csgraph
    with Timer("cpu") as timer:
        dist = csgraph.dijkstra(matrix, directed=True, indices=source, unweighted=True)
    return numpy.where(numpy.isinf(dist), -1, dist).astype(numpy.int32), timer.ms, None


def bfs_networkit(matrix, source):
    """Hop depths by NetworKit's BFS (-1 unreachable)."""
    dist, ms = networkit_distances(matrix, source, unweighted=True)
    return numpy.where(dist > len(dist), -1, dist).astype(numpy.int32), ms, None


# ---- SSSP -----------------------------------------------------------------------------------------

def sssp_cupy(row_offsets, col_indices, weights, source, trace=None):
    """Frontier Bellman-Ford from CuPy calls: expand the frontier's edges, keep
    the improving candidates, relax with cupyx.scatter_min, uniquify. Returns
    float32 distances (inf unreachable)."""
    import cupy
    import cupyx
    dist = cupy.full(len(row_offsets) - 1, numpy.inf, dtype=numpy.float32)
    dist[source] = 0

    def step(frontier, level):
        owner, edge_ids = expand(row_offsets, col_indices, frontier)
        neighbours = col_indices[edge_ids]
        candidate = dist[frontier[owner]] + weights[edge_ids]
        better = candidate < dist[neighbours]
        neighbours = neighbours[better]
        cupyx.scatter_min(dist, neighbours, candidate[better])
        return cupy.unique(neighbours).astype(numpy.int64)

    return (dist,) + _frontier_levels(row_offsets, source, step, trace)


def sssp_scipy(matrix, source):
    """Distances by scipy.sparse.csgraph.dijkstra on the CPU (float32, inf unreachable)."""
    import scipy.sparse.csgraph as csgraph
    with Timer("cpu") as timer:
        dist = csgraph.dijkstra(matrix, directed=True, indices=source)
    return dist.astype(numpy.float32), timer.ms, None


def sssp_networkit(matrix, source):
    """Distances by NetworKit's Dijkstra (float32, inf unreachable)."""
    dist, ms = networkit_distances(matrix, source, unweighted=False)
    return numpy.where(dist >= numpy.finfo(numpy.float64).max, numpy.inf, dist).astype(numpy.float32), ms, None


# ---- PageRank -------------------------------------------------------------------------------------

def pagerank_spmv(in_adjacency, out_degrees, *, damping=0.85, tol=1e-6, max_iter=100):
    """PageRank by SpMV, the same iteration as minigr's (and networkx's): dangling
    rank spread uniformly, stop when the L1 change is below n * tol. Works on a
    cupyx CSR (GPU) or a scipy.sparse CSR (CPU) of in-neighbours with float64
    ones; out_degrees on the same device. Returns float64 ranks."""
    device = device_of(out_degrees)
    xp = array_module(device)
    n = in_adjacency.shape[0]
    out_degrees = out_degrees.astype(numpy.float64)
    dangling = out_degrees == 0
    inverse_degree = xp.where(dangling, 0.0, 1.0 / xp.maximum(out_degrees, 1))
    rank = xp.full(n, 1.0 / n)
    with Timer(device) as timer:
        for iteration in range(1, max_iter + 1):
            pulled = in_adjacency @ (rank * inverse_degree)
            new_rank = damping * pulled + (damping * float(rank[dangling].sum()) + 1 - damping) / n
            change = float(xp.abs(new_rank - rank).sum())
            rank = new_rank
            if change < n * tol:
                break
    return rank, timer.ms, iteration


def pagerank_networkx(g, *, damping=0.85, tol=1e-6, max_iter=100):
    """networkx.pagerank, unweighted, on the CPU, of a networkx graph with nodes 0..n-1."""
    import networkx
    with Timer("cpu") as timer:
        ranks = networkx.pagerank(g, alpha=damping, tol=tol, max_iter=max_iter, weight=None)
    n = g.number_of_nodes()
    return numpy.fromiter((ranks[v] for v in range(n)), numpy.float64, n), timer.ms, None


# ---- coloring -------------------------------------------------------------------------------------

def color_cupy(row_offsets, col_indices, seed=0):
    """Jones-Plassmann coloring from CuPy calls: each round every uncolored vertex
    whose random priority beats all its uncolored neighbours' (cupyx.scatter_max
    over the uncolored vertices' edges) takes the round's color. Returns colors."""
    import cupy
    import cupyx
    n = len(row_offsets) - 1
    priority = cupy.asarray(numpy.random.default_rng(seed).permutation(n).astype(numpy.int32))
    colors = cupy.full(n, -1, dtype=numpy.int32)
    sources = cupy.searchsorted(row_offsets, cupy.arange(len(col_indices)), side="right") - 1
    targets = col_indices
    best = cupy.empty(n, dtype=numpy.int32)
    rounds = 0
    with Timer("gpu") as timer:
        remaining = n
        while remaining:
            rival = cupy.where((colors[targets] < 0) & (targets != sources), priority[targets], -1)
            best.fill(-1)
            cupyx.scatter_max(best, sources, rival)
            colors[(colors < 0) & (priority > best)] = rounds
            keep = colors[sources] < 0
            sources, targets = sources[keep], targets[keep]
            remaining = int((colors < 0).sum())
            rounds += 1
    return colors, timer.ms, rounds


def color_greedy(graph):
    """The sequential largest-first greedy coloring on the CPU (minigr.validate's reference,
    vectorized with NumPy), from the graph's arrays copied to the host. Returns colors."""
    from .validate import greedy_coloring
    with Timer("cpu") as timer:
        colors = greedy_coloring(graph)
    return colors, timer.ms, None


# ---- centralities ---------------------------------------------------------------------------------

def networkx_vector(function, g, *, which=None, **options):
    """networkx.<function>(g, **options) on the CPU, of a networkx graph with
    nodes 0..n-1, as an array by node (which: the element of a tuple result to take)."""
    import networkx
    with Timer("cpu") as timer:
        found = getattr(networkx, function)(g, **options)
    found = found if which is None else found[which]
    n = g.number_of_nodes()
    return numpy.fromiter((found[v] for v in range(n)), numpy.float64, n), timer.ms, None


# ---- maximal independent set ----------------------------------------------------------------------

def mis_cupy(row_offsets, col_indices, seed=0):
    """Luby's maximal independent set from CuPy calls: each round every undecided
    vertex whose random priority beats all its undecided neighbours' (cupyx.scatter_max
    over the undecided vertices' edges) joins, and its neighbours leave. Returns 0/1 per vertex."""
    import cupy
    import cupyx
    n = len(row_offsets) - 1
    priority = cupy.asarray(numpy.random.default_rng(seed).permutation(n).astype(numpy.int32))
    state = cupy.zeros(n, dtype=numpy.int8)  # 0 undecided, 1 in the set, 2 out
    sources = cupy.searchsorted(row_offsets, cupy.arange(len(col_indices)), side="right") - 1
    targets = col_indices
    best = cupy.empty(n, dtype=numpy.int32)
    rounds = 0
    with Timer("gpu") as timer:
        while len(sources) or bool((state == 0).any()):
            rival = cupy.where((state[targets] == 0) & (targets != sources), priority[targets], -1)
            best.fill(-1)
            cupyx.scatter_max(best, sources, rival)
            state[(state == 0) & (priority > best)] = 1
            joined = (state[targets] == 1) & (targets != sources)
            state[sources[joined & (state[sources] == 0)]] = 2
            keep = (state[sources] == 0) & (state[targets] == 0)
            sources, targets = sources[keep], targets[keep]
            rounds += 1
    return (state == 1).astype(numpy.int8), timer.ms, rounds


def mis_networkx(g):
    """networkx.maximal_independent_set (seed 0) on the CPU, of a networkx graph with nodes
    0..n-1 (a directed one taken as undirected). Returns 0/1 per vertex."""
    import networkx
    with Timer("cpu") as timer:
        members = networkx.maximal_independent_set(g.to_undirected(as_view=True), seed=0)
    in_set = numpy.zeros(g.number_of_nodes(), numpy.int8)
    in_set[members] = 1
    return in_set, timer.ms, None


# ---- minimum spanning forest ----------------------------------------------------------------------

def mst_scipy(matrix):
    """scipy.sparse.csgraph.minimum_spanning_tree (positive weights) on the CPU: its total weight."""
    from scipy.sparse.csgraph import minimum_spanning_tree
    with Timer("cpu") as timer:
        total = float(minimum_spanning_tree(matrix).sum())
    return total, timer.ms, None


def mst_networkx(g):
    """networkx's Kruskal minimum spanning edges on the CPU (a directed graph taken as undirected): their
    total weight."""
    import networkx
    with Timer("cpu") as timer:
        total = sum(d["weight"] for _, _, d in networkx.minimum_spanning_edges(g.to_undirected(as_view=True)))
    return total, timer.ms, None


# ---- Louvain --------------------------------------------------------------------------------------

def louvain_networkx(g, seed=0):
    """networkx.louvain_communities (unweighted, seeded) on the CPU, of a networkx graph taken as
    undirected: the community of every vertex, numbered 0..k-1."""
    import networkx
    with Timer("cpu") as timer:
        found = networkx.community.louvain_communities(g.to_undirected(as_view=True), weight=None, seed=seed)
    community = numpy.empty(g.number_of_nodes(), numpy.int32)
    for label, members in enumerate(found):
        community[list(members)] = label
    return community, timer.ms, None
