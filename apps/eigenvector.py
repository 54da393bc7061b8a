"""Eigenvector centrality as networkx.eigenvector_centrality computes it: the
power iteration x <- (A^T + I) x over its 2-norm, each vertex pulling its
in-neighbours' values with neighbor_reduce (the identity keeps bipartite
graphs from oscillating), from nstart (default uniform), until the L1 change
is below n * tol. The iterations loop on the device."""
from minigr.arguments import distribution
from minigr.catalog import ITERATIONS, POSITIVE, App, Option, needs
from minigr.enactor import Result, problem
from minigr.operators import Pull
from minigr.power import PowerIteration, check_iteration
from minigr.transforms import copied, transform
from minigr.transforms.errors import MinigrError

from . import _centrality_references as refs

# sums = [L1 change, squared 2-norm of (A^T + I) x]; settings = [tolerance]
SQUARED = "minigr::Sums<1> operator()(int v) const { const double y = x[v] + pulled(v); return {y * y}; }"
UPDATE = """minigr::Sums<1> operator()(int v) const {
    const double norm = sums[1] > 0 ? sqrt(sums[1]) : 1.0, previous = x[v];
    const double next = (previous + pulled(v)) / norm;
    x[v] = next;
    return {fabs(next - previous)};
}"""


@needs(weighted="weighted eigenvector centrality")
def eigenvector(graph, *, max_iter=100, tol=1e-6, nstart=None, weighted=False, loop="device"):
    """Eigenvector centrality of every vertex, by in-edges on a directed graph, as
    networkx's ``eigenvector_centrality`` gives it.

    Parameters
    ----------
    max_iter : int, default 100
        Most iterations; more raise a MinigrError.
    tol : float, default 1e-6
        networkx's convergence tolerance.
    nstart : array, optional
        The start: non-negative, one value per vertex (NumPy or CuPy); default uniform.
    weighted : bool, default False
        Edges count by their weights (networkx's ``weight=``); else a duplicate edge counts
        once per copy.

    Returns
    -------
    Result
        ``centrality`` (float64, 2-norm 1).

    Examples
    --------
    >>> import minigr
    >>> triangle = minigr.Graph.from_edges([0, 1, 2], [1, 2, 0], symmetrize=True)
    >>> minigr.eigenvector(triangle).centrality.round(3).tolist()
    [0.577, 0.577, 0.577]
    """
    check_iteration(tol, max_iter)
    if graph.num_vertices == 0:
        raise MinigrError("eigenvector centrality is undefined on a graph with no vertices")
    start = distribution(graph, "nstart", nstart)
    run = problem(graph, ("eigenvector", bool(weighted)), lambda: Eigenvector(graph, weighted))
    iterations, ms = run.converge(loop, max_iter, graph.num_vertices * tol,
                                  x=1.0 / graph.num_vertices if start is None else start)
    return Result({"centrality": copied(run.x)}, iterations, ms, graph.num_edges * iterations)


class Eigenvector(PowerIteration):
    name = "eigenvector"

    def __init__(self, graph, weighted):
        super().__init__(graph, ("x",), 2, 1)
        pull = Pull(graph, self.x, weighted)
        squared, update = (self.functor(SQUARED, "squared", pulled=pull.total),
                           self.functor(UPDATE, "update", pulled=pull.total))

        def iteration():
            pull()
            transform(graph.num_vertices, squared, sums=self.sums[1:2])
            transform(graph.num_vertices, update, sums=self.sums[0:1])
        self.start_loop(iteration)


APP = App(
    "eigenvector", eigenvector, "eigenvector centrality of every vertex (networkx's power iteration)", ("centrality",),
    lambda graph, source, values, options: refs.check(graph, values, "eigenvector", **options),
    options=(Option("tol", float, 1e-6, "stop when the L1 change is below V * tol (default 1e-6)", POSITIVE),
             Option("max_iter", int, 100, "most iterations (default 100)", ITERATIONS)),
    variants=({"max_iter": 1000}, {"max_iter": 1000, "weighted": True}),
    bench=(refs.spmv_case("eigenvector tol 1e-06", "eigenvector", refs.eigenvector_spmv,
                          dict(tol=1e-6, max_iter=1000)),))
