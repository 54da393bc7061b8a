"""PageRank, pulled through the in-neighbours: each iteration sums the rank
shares of every vertex's in-neighbours (minigr.operators.Pull: block by block
of sources where the shares overflow L2), then one pass
updates the ranks and sums their change and the dangling vertices' rank
(transform's sums=).
Dangling vertices spread their rank like personalization (uniform by
default) and convergence is networkx's (L1 change < n * tol), so results
match networkx.pagerank, with weights, personalization, nstart and dangling
as it takes them. The iterations loop on the device."""
import numpy

from minigr import alternatives as alt
from minigr import validate
from minigr.arguments import distribution
from minigr.catalog import ITERATIONS, POSITIVE, App, BenchCase, Option, System, needs
from minigr.enactor import Result, Start, problem
from minigr.graph import to_host
from minigr.operators import Pull, neighbor_reduce
from minigr.power import PowerIteration, check_iteration
from minigr.transforms import Functor, copied, transform

OUT_WEIGHT = "double operator()(int v, int u, long long edge) const { return weights[edge]; }"
# One vertex's new rank from the sum of its in-neighbours' shares, pulled(v); returns its
# L1 change and, dangling, its rank, to be summed (minigr.power keeps the sums in carried,
# so carried[1] is the dangling rank of the ranks it starts from; inverse_out is 0 for
# dangling vertices). settings = [tolerance, damping].
# spread[0] and [1] mask v for teleport and dangling_weight: 0 when uniform (one value,
# read at 0, so that the pass does not stream two arrays of n equal values), else all ones. Arithmetic is in double
# whatever the vectors' dtype. Its loads come before its stores, which may alias them
# for all the compiler knows, and rank[v] is stored only once its load is back: a store
# meeting that load in flight made the pass 5x slower (grid_22, H100: 295 against 56 us).
UPDATE = """minigr::Sums<2> operator()(long long v) const {
    const double damping = settings[1], previous = rank[v], inverse = inverse_out[v];
    const double next = damping * (pulled(v) + carried[1] * dangling_weight[v & spread[1]])
                        + (1 - damping) * teleport[v & spread[0]];
    share[v] = next * inverse;
    if (next != previous) rank[v] = next;
    return {fabs(next - previous), inverse == 0 ? next : 0.0};
}"""
# A run's start in one launch (minigr.enactor.Start; a part of a split graph may have no
# vertices, and still sets the settings): every vertex its rank (given: already in rank) and
# share; item 0 the settings, the uniform vectors' one value, the sums and carried, whose
# dangling rank of the start ranks the host found. It replaces two launches (the settings,
# then a pass summing the dangling rank) that replaced a dozen fills and copies.
START_SETTINGS = """
        settings[0] = tolerance;
        settings[1] = damping;
        spread[0] = teleport_given ? -1 : 0;
        spread[1] = dangling_given ? -1 : 0;
        if (!teleport_given) teleport[0] = uniform;
        if (!dangling_given) dangling_weight[0] = uniform;
        sums[0] = sums[1] = carried[0] = 0;
        carried[1] = dangling_start;"""
START_RANK = """
        const double start = nstart_given ? (double)rank[v] : (double)uniform;
        if (!nstart_given) rank[v] = uniform;
        share[v] = start * inverse_out[v];"""


@needs(weighted="weighted PageRank")
def pagerank(graph, *, damping=0.85, tol=1e-6, max_iter=100, weighted=False, personalization=None, nstart=None,
             dangling=None, dtype=numpy.float64, loop="device"):
    """PageRank by power iteration, as networkx's ``pagerank`` computes it.

    Parameters
    ----------
    damping : float, default 0.85
        The damping factor, in (0, 1).
    tol : float, default 1e-6
        Stop when the L1 change of the ranks is below V * tol.
    max_iter : int, default 100
        Most iterations; more raise a MinigrError.
    weighted : bool, default False
        A vertex's rank goes to its out-neighbours in proportion to the edge weights
        (networkx's ``weight=``); else a duplicate edge counts once per copy.
    personalization, nstart, dangling : array, optional
        Non-negative per-vertex arrays (NumPy or CuPy), normalized here: the teleport
        distribution, the start (both uniform by default), and where dangling vertices'
        rank goes (default: the teleport distribution).
    dtype : float64 or float32, default float64
        The ranks' type. float32 halves the bytes of the vectors an iteration reads
        (its sums stay float64); its ranks hold to ~1e-7 of each, and their L1 change
        settles near 1e-7, so that a tol under ~1e-7 / V may not be reached.

    Returns
    -------
    Result
        ``rank`` (of `dtype`, summing to 1).

    Examples
    --------
    >>> import minigr
    >>> cycle = minigr.Graph.from_edges([0, 1, 2], [1, 2, 0])
    >>> minigr.pagerank(cycle).rank.round(3).tolist()
    [0.333, 0.333, 0.333]
    """
    dtype = check_settings(damping, tol, max_iter, dtype)
    vectors = {name: distribution(graph, name, value) for name, value in
               (("personalization", personalization), ("nstart", nstart), ("dangling", dangling))}
    if graph.num_vertices == 0:
        return Result({"rank": graph.xp.zeros(0, dtype)}, 0, 0.0, 0)
    run = problem(graph, ("pagerank", bool(weighted), dtype.name), lambda: PageRank(graph, weighted, dtype))
    return iterate(run, graph, vectors, damping, tol, max_iter, loop)


DAMPING = Option("damping", float, 0.85, "damping factor, in (0, 1) (default 0.85)",
                 (lambda x: 0 < x < 1, "between 0 and 1, exclusive"))


def check_settings(damping, tol, max_iter, dtype):
    """A MinigrError naming the setting that is out of range; else dtype as a numpy.dtype."""
    DAMPING.check(damping)
    return check_iteration(tol, max_iter, dtype)


def iterate(run, graph, vectors, damping, tol, max_iter, loop):
    """Runs a PageRank Problem to convergence: the Result of its graph's own
    vertices (graph: the Graph, or the Part that run is on)."""
    n = graph.num_vertices
    iterations, ms = run.converge(loop, max_iter, n * tol, reset=lambda: run.reset(damping, n * tol, vectors, 1.0 / n))
    return Result({"rank": copied(run.rank[:run.owned])}, iterations, ms,
                  int(run.graph.row_offsets[run.owned]) * iterations)


class PageRank(PowerIteration):
    name = "pagerank"

    def __init__(self, graph, weighted, dtype, owned=None):
        """owned: the vertices whose rank it computes, 0..owned-1 (default all);
        dtype: the per-vertex vectors'. sums = [L1 change, dangling rank]; settings =
        [tolerance, damping], set by reset."""
        super().__init__(graph, ("rank", "share", "teleport", "dangling_weight"), 2, 2, dtype)
        xp, n = graph.xp, graph.num_vertices
        self.owned = n if owned is None else owned
        self.pull = Pull(graph, self.share, weighted)  # sums float64: a float32 sum of a star's 500 did not converge
        self.spread = xp.zeros(2, numpy.int64)  # masks of teleport and dangling_weight's index: see UPDATE
        if weighted:
            out_weight = neighbor_reduce(graph, Functor(OUT_WEIGHT, filename="<pagerank out weight>",
                                                        weights=graph.weights))
        else:
            out_weight = graph.out_degrees().astype(numpy.float64)
        self.inverse_out = (xp.where(out_weight == 0, 0, 1) / xp.where(out_weight == 0, 1, out_weight)).astype(dtype)
        self.update = self.functor(UPDATE, "update", pulled=self.pull.total, carried=self.carried,
                                   inverse_out=self.inverse_out, spread=self.spread)
        self.dangling_count = int((self.inverse_out[:self.owned] == 0).sum())  # owned dangling vertices (waits)
        self.start = Start("pagerank", n, START_SETTINGS, START_RANK, inverse_out=self.inverse_out, spread=self.spread,
                           sums=self.sums, settings=self.settings, carried=self.carried, **self.vectors, damping=0.0,
                           tolerance=0.0, uniform=dtype.type(0), dangling_start=0.0, nstart_given=False,
                           teleport_given=False, dangling_given=False)
        self.start_loop(self.iteration)

    def iteration(self):
        # The update in the pull's own kernel (each vertex's sum handed to it, the
        # shares in two rows read and written by the loop's parity) was slower on all
        # but grid_22 float64. H100, 2026-11-27, us an iteration over 20, fused / this:
        # grid_22 float64 190 / 220, float32 178 / 175; rgg_n22 float32 641 / 571,
        # float64 759 / 617; kron_s21_e16 float32 591 / 540 (called in the walk, the
        # update cost blocks an SM; run by each block after its walk, a tail).
        self.pull()
        transform(self.owned, self.update, sums=self.sums)

    def reset(self, damping, tolerance, vectors, uniform):
        """vectors: per-vertex arrays (or None: `uniform` everywhere)."""
        dangling = vectors["dangling"] if vectors["dangling"] is not None else vectors["personalization"]
        for array, given in ((self.rank, vectors["nstart"]), (self.teleport, vectors["personalization"]),
                             (self.dangling_weight, dangling)):
            if given is not None:
                array[...] = given
        uniform = self.rank.dtype.type(uniform)
        if vectors["nstart"] is None:
            dangling_start = self.dangling_count * float(uniform)
        else:  # waits
            owned = slice(0, self.owned)
            dangling_start = float(self.rank[owned][self.inverse_out[owned] == 0].sum(dtype=numpy.float64))
        transform(*self.start(
            damping=damping, tolerance=tolerance, uniform=uniform, dangling_start=dangling_start,
            nstart_given=vectors["nstart"] is not None, teleport_given=vectors["personalization"] is not None,
            dangling_given=dangling is not None))


def _bench_case(label, tol, max_iter):
    """PageRank to tol (networkx's criterion), against SpMV on both devices and networkx."""
    options = dict(tol=tol, max_iter=max_iter)
    return BenchCase(label, "rank", (
        System("CuPy SpMV (cuSPARSE)", "gpu", lambda i, trace=None: alt.pagerank_spmv(
            i.in_adjacency(numpy.float64), i.degrees, **options)),
        System("SciPy SpMV (CPU)", "cpu", lambda i, trace=None: alt.pagerank_spmv(
            i.scipy_in_ones, to_host(i.degrees), **options)),
        System("networkx (CPU)", "cpu", lambda i, trace=None: alt.pagerank_networkx(i.networkx, **options),
               skip=alt.too_big(1_000_000, "networkx"))), "SciPy SpMV (CPU)", alt.l1_close, options=options)


APP = App(
    "pagerank", pagerank, "PageRank of every vertex (networkx's formula: dangling mass spread uniformly)", ("rank",),
    lambda graph, source, values, options: validate.check_pagerank(graph, values["rank"], **options),
    options=(DAMPING,
             Option("tol", float, 1e-6, "stop when the L1 change is below V * tol (default 1e-6)", POSITIVE),
             Option("max_iter", int, 100, "most iterations (default 100)", ITERATIONS)),
    variants=({"weighted": False}, {"weighted": True}), partitioned="_pagerank_parts",
    # tol=inf stops after the first iteration; "to convergence" is networkx's criterion at tol 1e-9
    bench=(_bench_case("pagerank 1 iteration", numpy.inf, 1), _bench_case("pagerank tol 1e-09", 1e-9, 1000)))
