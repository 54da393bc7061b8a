"""Eigenvector, Katz and HITS centralities without minigr: networkx's power
iterations written as SpMV on a SciPy (CPU) or cupyx (GPU) matrix, the
bench's alternatives and the checks' references; and the checks. Not an app:
its name starts with an underscore."""
import numpy

from minigr import validate
from minigr import alternatives as alt
from minigr.alternatives import csr_matrix
from minigr.catalog import BenchCase, System
from minigr.enactor import Timer
from minigr.graph import to_host
from minigr.transforms.backend import array_module, device_of

ATOL = 1e-6  # the checks: how far each vertex's value may be from the reference's


def adjacency(graph, weighted=False, transpose=False):
    """The adjacency matrix A (A[u, v]: u -> v's weight, or 1; duplicates add
    up), or its transpose, float64: cupyx for a graph on the GPU, else SciPy."""
    g = graph.reverse() if transpose else graph
    data = (g.weights.astype(numpy.float64) if weighted else g.xp.ones(g.num_edges))
    if graph.device == "gpu":
        return csr_matrix(g.row_offsets, g.col_indices, data)
    import scipy.sparse
    n = graph.num_vertices
    return scipy.sparse.csr_matrix((data, g.col_indices, g.row_offsets), shape=(n, n))


def _iterate(step, x, max_iter, tolerance):
    """x = step(x) until the L1 change is below tolerance: (x, ms, iterations),
    x None when max_iter iterations do not get there."""
    xp = array_module(device_of(x))
    with Timer(device_of(x)) as timer:
        for iteration in range(1, max_iter + 1):
            last, x = x, step(x)
            if float(xp.abs(x - last).sum()) < tolerance:
                break
        else:
            x = None
    return x, timer.ms, iteration


def eigenvector_spmv(in_adjacency, *, max_iter=100, tol=1e-6, nstart=None):
    """networkx.eigenvector_centrality: x <- (A^T + I) x, over its 2-norm (or 1)."""
    n = in_adjacency.shape[0]
    xp = array_module(device_of(in_adjacency.data))

    def step(x):
        y = x + in_adjacency @ x
        return y / (float(xp.sqrt((y * y).sum())) or 1.0)
    start = xp.full(n, 1.0 / n) if nstart is None else nstart / nstart.sum()
    return _iterate(step, start, max_iter, n * tol)


def katz_spmv(in_adjacency, *, alpha=0.1, beta=1.0, max_iter=1000, tol=1e-6, nstart=None, normalized=True):
    """networkx.katz_centrality: x <- alpha A^T x + beta from nstart (zeros), then over its 2-norm."""
    n = in_adjacency.shape[0]
    xp = array_module(device_of(in_adjacency.data))
    x, ms, iterations = _iterate(lambda x: alpha * (in_adjacency @ x) + beta,
                                 xp.zeros(n) if nstart is None else nstart, max_iter, n * tol)
    if x is not None and normalized:
        x = x / (float(xp.sqrt((x * x).sum())) or 1.0)
    return x, ms, iterations


def hits_spmv(out_adjacency, in_adjacency, *, max_iter=100, tol=1e-8, nstart=None, normalized=True):
    """networkx's HITS power iteration (hits_alg._hits_python): authorities
    a = A^T h, hubs h = A a, each over its maximum, until the L1 change of h is
    below tol; then each over its sum. Returns ((hub, authority) or None, ms, iterations)."""
    n = in_adjacency.shape[0]
    xp = array_module(device_of(in_adjacency.data))
    authority = [None]  # the last step's: pulled from the hubs before it, as networkx's

    def step(h):
        authority[0] = in_adjacency @ h
        hub = out_adjacency @ authority[0]
        return hub / hub.max()
    start = xp.full(n, 1.0 / n) if nstart is None else nstart / nstart.sum()
    h, ms, iterations = _iterate(step, start, max_iter, tol)
    if h is None:
        return None, ms, iterations
    a = authority[0] / authority[0].max()
    return ((h / h.sum(), a / a.sum()) if normalized else (h, a)), ms, iterations


def references(graph, kind, *, weighted=False, **options):
    """name -> array of networkx's iteration (kind: "eigenvector", "katz" or
    "hits") on the host, by SpMV; None where it does not converge."""
    host = graph.to("cpu")
    in_adjacency = adjacency(host, weighted, transpose=True)
    if kind == "hits":
        found = hits_spmv(adjacency(host, weighted), in_adjacency, **options)[0]
        return None if found is None else dict(zip(("hub", "authority"), found))
    found = {"eigenvector": eigenvector_spmv, "katz": katz_spmv}[kind](in_adjacency, **options)[0]
    return None if found is None else {"centrality": found}


def check(graph, values, kind, **options):
    """Each of values (name -> array) within ATOL of the reference's at every
    vertex (see references): "ok" or "FAILED: ..."."""
    expected = references(graph, kind, **options)
    if expected is None:
        return f"FAILED: the reference {kind} iteration did not converge, so there is nothing to compare with"
    findings = []
    for name, got in values.items():
        got, want = to_host(got), expected[name]
        if got.shape != want.shape:
            return f"FAILED: {name} has shape {got.shape}, expected {want.shape}"
        findings.append(validate.mismatch(got, want, f"whose {name} is off by more than {ATOL:g}",
                                          ~(numpy.abs(got - want) <= ATOL), form="{:.9g}"))
    return validate.verdict(findings)


def spmv_case(label, name, spmv, options):
    """A BenchCase of the centrality `name` (networkx's function `name`_centrality) with
    options: SpMV iterations on both devices (`spmv`, as eigenvector_spmv) and networkx."""
    return BenchCase(label, "centrality", (
        System("CuPy SpMV (cuSPARSE)", "gpu", lambda i, trace=None: spmv(
            adjacency(i.graph, transpose=True), **options)),
        System("SciPy SpMV (CPU)", "cpu", lambda i, trace=None: spmv(
            adjacency(i.graph.to("cpu"), transpose=True), **options)),
        System("networkx (CPU)", "cpu", lambda i, trace=None: alt.networkx_vector(
            f"{name}_centrality", i.networkx, **options), skip=alt.too_big(1_000_000, "networkx"))),
        "SciPy SpMV (CPU)", alt.close, options=options)
