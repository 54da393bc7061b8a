"""What a user writes instead of triangle counting and LCC on the GPU: sparse
matrix products (SciPy or cupyx.scipy.sparse) over degree-ordered rows, the
literal sum(L * (L @ L)), networkx; the references of apps/triangles.py (and
its check) and apps/lcc.py. Not an app: its name starts with an underscore."""
import numpy

from minigr import validate
from minigr.enactor import Timer
from minigr.graph import to_host

CHUNK_PRODUCTS = 2**27  # partial products per chunk of rows, to bound the memory of a sparse product
MAX_PRODUCTS = 2**31    # partial products of one whole sparse product beyond which it is not tried


def degree_ordered_upper(matrix, xp, sparse):
    """(U, Uᵀ, W, order): the simple undirected view of a SciPy or cupyx sparse
    matrix (edges taken either way, once), its vertices renumbered by degree,
    then id, and cut to its strict upper triangle U (no self-loops), so that a
    row holds the higher-ranked neighbours (few, on power-law graphs); W is U
    holding each edge's multiplicity, how many of its two directions the
    matrix holds; order[i] is the vertex numbered i. The setup of spgemm_triangles."""
    n = matrix.shape[0]
    directed = matrix.tocsr().astype(numpy.float64)  # float32 sums of counts lose triangles past 2^24
    directed.sum_duplicates()
    directed.data[:] = 1
    both = (directed + directed.T).tocsr()
    order = xp.lexsort(xp.stack([xp.arange(n), xp.diff(both.indptr)]))
    weights = sparse.triu(both[order][:, order], k=1, format="csr")
    upper = weights.copy()
    upper.data[:] = 1
    return upper, upper.T.tocsr(), weights, order


def spgemm_triangles(setup, xp, total=False, weighted=False):
    """Triangles through every vertex by sparse products over chunks of rows,
    or their total: with U from degree_ordered_upper, U * (U @ U) (elementwise)
    holds each triangle once, at the edge between its lowest and highest
    corner (row sums count the lowest, column sums the highest), and
    U * (Uᵀ @ U) at the edge between its middle and highest (row sums: the
    middle). weighted: each triangle at a corner weighs the multiplicity of
    the edge opposite it (W for one U in each product)."""
    upper, upper_t, weights, order = setup
    weights = weights if weighted else upper
    n = upper.shape[0]
    out_degree = xp.diff(upper.indptr).astype(numpy.float64)
    work = upper @ out_degree + (0 if total else upper_t @ out_degree)  # partial products of each row
    bounds = xp.searchsorted(xp.cumsum(work), xp.arange(1, int(work.sum()) // CHUNK_PRODUCTS + 1) * CHUNK_PRODUCTS)
    bounds = sorted({0, n, *(int(b) for b in bounds)})
    counts, found = xp.zeros(n), 0.0
    for r0, r1 in zip(bounds[:-1], bounds[1:]):
        block = upper[r0:r1]
        lowest = block.multiply(block @ weights)
        if total:
            found += float(lowest.sum())
            continue
        highest = block.multiply(weights[r0:r1] @ upper) if weighted else lowest
        counts[r0:r1] += xp.asarray(lowest.sum(axis=1)).ravel()
        counts += xp.asarray(highest.sum(axis=0)).ravel()
        counts[r0:r1] += xp.asarray(block.multiply(upper_t[r0:r1] @ weights).sum(axis=1)).ravel()
    if total:
        return int(found)
    per_vertex = xp.empty(n, dtype=numpy.int64)
    per_vertex[order] = counts.astype(numpy.int64)
    return per_vertex


@validate.verdict_on_misshapen
def check_triangles(graph, counts):
    """Per-vertex counts against spgemm_triangles with SciPy (each triangle once at each corner)."""
    import scipy.sparse
    (counts,) = validate.Edges(graph).per_vertex(triangles=counts)
    expected = spgemm_triangles(degree_ordered_upper(graph.to_scipy(), numpy, scipy.sparse), numpy)
    return validate.verdict([validate.mismatch(counts, expected, "with a wrong count")])


def spgemm_system(matrix, xp, sparse, device, compute):
    """compute(setup, xp) timed, its setup (degree_ordered_upper) not: (values, ms, None)."""
    setup = degree_ordered_upper(matrix, xp, sparse)
    with Timer(device) as timer:
        values = compute(setup, xp)
    return values, timer.ms, None


def total_triangles(setup, xp):
    """spgemm_triangles' total."""
    return spgemm_triangles(setup, xp, total=True)


def lower_triangle_total(matrix):
    """The total as sum(L * (L @ L)), L the strict lower triangle of the simple
    adjacency in the graph's own vertex order (cupyx): the SpGEMM formulation
    as usually written, timed without building L."""
    import cupyx.scipy.sparse as sparse
    a = (matrix + matrix.T).tocsr()
    a.data[:] = 1
    lower = sparse.tril(a, k=-1, format="csr")
    with Timer("gpu") as timer:
        total = int(lower.multiply(lower @ lower).sum())
    return total, timer.ms, None


def lower_triangle_products(inputs):
    """lower_triangle_total's skip: a reason when L @ L takes over MAX_PRODUCTS partial products
    (each k joins every neighbour above it with every one below it), beyond what fits in memory."""
    matrix = inputs.scipy
    rows, cols = matrix.nonzero()
    above = numpy.bincount(cols[rows > cols], minlength=matrix.shape[0]).astype(numpy.float64)
    below = numpy.bincount(rows[rows > cols], minlength=matrix.shape[0])
    products = float(above @ below)
    if products > MAX_PRODUCTS:
        return f"skipped: L @ L takes {products:.3g} partial products (12 bytes each), over {MAX_PRODUCTS:.3g}"
    return None


def simple_networkx(graph):
    """The graph as a simple undirected networkx.Graph (duplicates and directions merged)."""
    import networkx
    simple = networkx.Graph()
    simple.add_nodes_from(range(graph.num_vertices))
    simple.add_edges_from(zip(to_host(graph.edge_sources()).tolist(), to_host(graph.col_indices).tolist()))
    return simple


def networkx_triangles(graph):
    """networkx.triangles of the graph as a simple undirected networkx.Graph, as an int64 array."""
    import networkx
    simple = simple_networkx(graph)
    with Timer("cpu") as timer:
        found = networkx.triangles(simple)
    return numpy.array([found[v] for v in range(graph.num_vertices)], dtype=numpy.int64), timer.ms


def cupy_matrix(inputs):
    import cupyx.scipy.sparse
    return cupyx.scipy.sparse.csr_matrix(inputs.scipy)


def scipy_system(inputs, compute):
    """spgemm_system on the bench inputs' SciPy matrix."""
    import scipy.sparse
    return spgemm_system(inputs.scipy, numpy, scipy.sparse, "cpu", compute)


def cupy_system(inputs, compute):
    """spgemm_system on the bench inputs' matrix in cupyx."""
    import cupy
    import cupyx.scipy.sparse
    return spgemm_system(cupy_matrix(inputs), cupy, cupyx.scipy.sparse, "gpu", compute)


def networkx_total(inputs):
    counts, ms = networkx_triangles(inputs.graph)
    return int(counts.sum()) // 3, ms, None
