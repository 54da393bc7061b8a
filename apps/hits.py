"""HITS hubs and authorities as networkx's power iteration computes them
(hits_alg._hits_python; networkx.hits finds the same vectors with ARPACK):
each iteration the authorities pull their in-neighbours' hub scores, the
hubs pull their out-neighbours' authorities (neighbor_reduce both ways), the
hubs are scaled to a largest value of 1, until their L1 change is below tol;
then, normalized, each vector is scaled to sum 1. The iterations loop on the
device."""
from minigr import alternatives as alt
from minigr.arguments import distribution
from minigr.catalog import ITERATIONS, POSITIVE, App, BenchCase, Option, System, needs
from minigr.enactor import Result, problem
from minigr.operators import Pull, gather, neighbor_reduce, reduce_vertices
from minigr.power import PowerIteration, check_iteration
from minigr.transforms import copied, transform
from minigr.transforms.errors import MinigrError

from . import _centrality_references as refs

# sums = [L1 change of the hubs, largest pulled hub score]; settings = [tolerance]
PULLED = "double operator()(int v) const { return pulled(v); }"
UPDATE = """minigr::Sums<1> operator()(int v) const {  // hub[v] stored after its load, where it changed (katz.py)
    const double previous = hub[v], next = pulled(v) / sums[1];
    if (next != previous) hub[v] = next;
    return {fabs(next - previous)};
}"""


@needs(weighted="weighted HITS")
def hits(graph, *, max_iter=100, tol=1e-8, nstart=None, normalized=True, weighted=False, loop="device"):
    """HITS hub and authority scores of every vertex, as networkx's ``hits`` gives them.

    Parameters
    ----------
    max_iter : int, default 100
        Most iterations; more raise a MinigrError (so does a graph without edges).
    tol : float, default 1e-8
        networkx's convergence tolerance.
    nstart : array, optional
        The hubs' start: non-negative, one value per vertex (NumPy or CuPy); default uniform.
    normalized : bool, default True
        Each vector sums to 1; else its largest value is 1.
    weighted : bool, default False
        Edges count by their weights; else a duplicate edge counts once per copy.

    Returns
    -------
    Result
        ``hub`` and ``authority`` (float64, per vertex).

    Examples
    --------
    >>> import minigr
    >>> result = minigr.hits(minigr.Graph.from_edges([0, 0], [1, 2]))
    >>> result.hub.round(3).tolist(), result.authority.round(3).tolist()
    ([1.0, 0.0, 0.0], [0.0, 0.5, 0.5])
    """
    check_iteration(tol, max_iter)
    start = distribution(graph, "nstart", nstart)
    n = graph.num_vertices
    if n == 0:
        return Result({"hub": graph.xp.zeros(0), "authority": graph.xp.zeros(0)}, 0, 0.0, 0)
    if graph.num_edges == 0 or weighted and not bool((graph.weights != 0).any()):
        raise MinigrError("HITS needs at least one edge" + (" of nonzero weight" if weighted else "")
                          + ": without one every score is 0 and cannot be scaled")
    run = problem(graph, ("hits", bool(weighted)), lambda: HITS(graph, weighted))
    iterations, ms = run.converge(loop, max_iter, tol, hub=1.0 / n if start is None else start)
    hub, authority = copied(run.hub), run.authority / run.authority.max()
    if normalized:
        hub /= hub.sum()
        authority /= authority.sum()
    return Result({"hub": hub, "authority": authority}, iterations, ms, 2 * graph.num_edges * iterations)


class HITS(PowerIteration):
    name = "hits"

    def __init__(self, graph, weighted):
        super().__init__(graph, ("hub", "authority"), 2, 1)
        to_authorities = gather(graph, self.hub, weighted, "in")
        to_hubs = Pull(graph, self.authority, weighted, "out")
        largest, update = (self.functor(PULLED, "largest", pulled=to_hubs.total),
                           self.functor(UPDATE, "update", pulled=to_hubs.total))

        def iteration():
            neighbor_reduce(graph, to_authorities, direction="in", out=self.authority)
            to_hubs()
            reduce_vertices(graph, largest, reduce="max", out=self.sums[1:2])
            transform(graph.num_vertices, update, sums=self.sums[0:1])
        graph.vertex_partition()  # reduce_vertices' own, made before the loop captures it
        self.start_loop(iteration)


def _hits_spmv(graph, tol, max_iter):
    """The SpMV alternative's hubs (the bench's key), weighted."""
    found, ms, iterations = refs.hits_spmv(refs.adjacency(graph, True), refs.adjacency(graph, True, transpose=True),
                                           tol=tol, max_iter=max_iter)
    return found[0], ms, iterations


def _bench_case(tol):
    """Weighted HITS to tol (networkx.hits always reads the weights), against SpMV on both devices and
    networkx (ARPACK)."""
    options = dict(tol=tol, max_iter=1000)
    return BenchCase(f"hits tol {tol:g}", "hub", (
        System("CuPy SpMV (cuSPARSE)", "gpu", lambda i, trace=None: _hits_spmv(i.graph, **options)),
        System("SciPy SpMV (CPU)", "cpu", lambda i, trace=None: _hits_spmv(i.graph.to("cpu"), **options)),
        System("networkx (ARPACK, CPU)", "cpu", lambda i, trace=None: alt.networkx_vector(
            "hits", i.networkx, which=0, **options), skip=alt.too_big(10_000_000, "networkx"))),
        "SciPy SpMV (CPU)", alt.close, options=dict(options, weighted=True))


APP = App(
    "hits", hits, "HITS hub and authority scores of every vertex (networkx's iteration)", ("hub", "authority"),
    lambda graph, source, values, options: refs.check(graph, values, "hits", **options),
    options=(Option("tol", float, 1e-8, "stop when the hubs' L1 change is below tol (default 1e-8)", POSITIVE),
             Option("max_iter", int, 100, "most iterations (default 100)", ITERATIONS)),
    # the doctor's ordered grid converges slowly (its hubs' eigenvalue is nearly double), weighted slower still;
    # the weighted pull's kernels are eigenvector's
    variants=({"tol": 1e-4, "max_iter": 10000},),
    bench=(_bench_case(1e-8),))
