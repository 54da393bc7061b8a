"""Katz centrality as networkx.katz_centrality computes it: the iteration
x <- alpha A^T x + beta, each vertex pulling its in-neighbours' values with
neighbor_reduce, from nstart (default zeros), until the L1 change is below
n * tol; then, normalized, x over its 2-norm. It converges when alpha is
below 1 / (the adjacency's largest eigenvalue). The iterations loop on the
device."""
from minigr.arguments import per_vertex
from minigr.catalog import ITERATIONS, POSITIVE, App, Option, needs
from minigr.enactor import Result, problem
from minigr.operators import Pull
from minigr.power import PowerIteration, check_iteration
from minigr.transforms import copied, transform
from minigr.transforms.errors import MinigrError

from . import _centrality_references as refs

# sums = [L1 change]; settings = [tolerance, alpha, beta]. x[v] is stored only once its load is back and
# only where it changed (see PageRank's UPDATE: a store meeting the load in flight slows the pass 5x).
UPDATE = """minigr::Sums<1> operator()(int v) const {
    const double previous = x[v], next = settings[1] * pulled(v) + settings[2];
    if (next != previous) x[v] = next;
    return {fabs(next - previous)};
}"""
FINITE = (lambda x: x == x and abs(x) < float("inf"), "a finite number")


@needs(weighted="weighted Katz centrality")
def katz(graph, *, alpha=0.1, beta=1.0, max_iter=1000, tol=1e-6, nstart=None, normalized=True, weighted=False,
         loop="device"):
    """Katz centrality of every vertex, by in-edges on a directed graph, as networkx's
    ``katz_centrality`` gives it.

    Parameters
    ----------
    alpha : float, default 0.1
        The attenuation.
    beta : float, default 1.0
        Every vertex's own weight.
    max_iter : int, default 1000
        Most iterations; more raise a MinigrError (alpha too large).
    tol : float, default 1e-6
        networkx's convergence tolerance.
    nstart : array, optional
        The start, one value per vertex (NumPy or CuPy); default zeros.
    normalized : bool, default True
        Scale the result to 2-norm 1.
    weighted : bool, default False
        Edges count by their weights (networkx's ``weight=``); else a duplicate edge counts
        once per copy.

    Returns
    -------
    Result
        ``centrality`` (float64, per vertex).

    Examples
    --------
    >>> import minigr
    >>> triangle = minigr.Graph.from_edges([0, 1, 2], [1, 2, 0], symmetrize=True)
    >>> minigr.katz(triangle).centrality.round(3).tolist()
    [0.577, 0.577, 0.577]
    """
    check_iteration(tol, max_iter)
    for name, value in (("alpha", alpha), ("beta", beta)):
        if not FINITE[0](value):
            raise MinigrError(f"{name} must be {FINITE[1]}, got {value!r}")
    start = per_vertex(graph, "nstart", nstart)
    n = graph.num_vertices
    if n == 0:
        return Result({"centrality": graph.xp.zeros(0)}, 0, 0.0, 0)
    run = problem(graph, ("katz", bool(weighted)), lambda: Katz(graph, weighted))
    run.settings[1], run.settings[2] = alpha, beta
    iterations, ms = run.converge(loop, max_iter, n * tol, x=0.0 if start is None else start)
    x = copied(run.x)
    if normalized:
        norm = float(graph.xp.sqrt((x * x).sum()))
        x /= norm or 1.0
    return Result({"centrality": x}, iterations, ms, graph.num_edges * iterations)


class Katz(PowerIteration):
    name = "katz"
    advice = "lower alpha (below 1 / the largest eigenvalue of the adjacency), or raise max_iter or tol"

    def __init__(self, graph, weighted):
        super().__init__(graph, ("x",), 1, 3)
        pull = Pull(graph, self.x, weighted)
        update = self.functor(UPDATE, "update", pulled=pull.total)

        def iteration():
            pull()
            transform(graph.num_vertices, update, sums=self.sums)
        self.start_loop(iteration)


APP = App(
    "katz", katz, "Katz centrality of every vertex (networkx's iteration)", ("centrality",),
    lambda graph, source, values, options: refs.check(graph, values, "katz", **options),
    options=(Option("alpha", float, 0.1, "attenuation, below 1 / the largest eigenvalue (default 0.1)", FINITE),
             Option("beta", float, 1.0, "each vertex's own weight (default 1)", FINITE),
             Option("tol", float, 1e-6, "stop when the L1 change is below V * tol (default 1e-6)", POSITIVE),
             Option("max_iter", int, 1000, "most iterations (default 1000)", ITERATIONS)),
    # alpha below 1 / the largest eigenvalue of the doctor's skewed graphs
    variants=({"alpha": 0.01}, {"alpha": 0.0001, "weighted": True}),
    bench=(refs.spmv_case("katz alpha 0.01", "katz", refs.katz_spmv, dict(alpha=0.01)),))
