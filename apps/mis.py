"""A maximal independent set of an undirected graph by Luby's algorithm:
every vertex draws a random priority from the seed; each round, every
undecided vertex looks at its neighbours (neighbor_reduce over the round's
frontier: the highest priority among undecided ones, or "taken" where one
is in the set) and joins the set when it beats them all, leaves it when a
neighbour joined, else stays for the next round (filter). Two neighbours
never join in one round (one beats the other), and the highest undecided
vertex decides every round, so it ends with every vertex decided: an
independent set that no vertex can join. Self-loops are ignored. The rounds
loop on the device."""
import numpy

from minigr import alternatives as alt
from minigr.catalog import SEED_WORD, App, BenchCase, Option, System, needs
from minigr.enactor import Problem, Result, Timer, problem
from minigr.frontier import Frontier
from minigr.generators import SPLITMIX, seed_word
from minigr.graph import to_host
from minigr.operators import compute, filter_frontier, neighbor_reduce
from minigr.transforms import Functor
from minigr.validate import finding, verdict

UNDECIDED, IN, OUT = 0, 1, 2
TAKEN = 2**63 - 1  # what a neighbour in the set shows: more than any priority
# A random 31-bit priority from the seed (splitmix64's finalizer) above the id, so that no two are equal.
START = SPLITMIX + """void operator()(int v, int iteration) const {
    priority[v] = (long long)(mix((uint64_t)v + seed * 0x9E3779B97F4A7C15ull) >> 33) << 32 | v;
    state[v] = 0;
    undecided.append(v, 0);
}"""
RIVAL = """long long operator()(int v, int u, long long edge) const {
    return u == v || state[u] == 2 ? -1 : state[u] == 1 ? taken : priority[u];
}"""
DECIDE = """bool cond(int v, int iteration) const {
    if (rival[v] == taken) { state[v] = 2; return false; }
    if (priority[v] > rival[v]) { state[v] = 1; return false; }
    return true;
}"""


@needs(undirected="a maximal independent set")
def mis(graph, *, seed=0, loop="device"):
    """A maximal independent set of an undirected graph (self-loops ignored), by Luby's
    algorithm with priorities drawn from the seed.

    Parameters
    ----------
    seed : int, default 0
        From 0 to 2^64 - 1; the same seed gives the same set.

    Returns
    -------
    Result
        ``in_set`` (int8, 1 for the set's vertices) and ``size``.

    Examples
    --------
    >>> import minigr
    >>> path = minigr.Graph.from_edges([0, 1, 2, 3], [1, 2, 3, 4], symmetrize=True)
    >>> result = minigr.mis(path)
    >>> result.in_set.tolist(), result.size
    ([1, 0, 1, 0, 1], 3)
    """
    seed = seed_word(seed)
    n = graph.num_vertices
    if n == 0:
        return Result({"in_set": graph.xp.zeros(0, dtype=numpy.int8)}, 0, 0.0, 0, {"size": 0})
    run = problem(graph, ("mis",), lambda: MIS(graph))
    with Timer(graph.device) as timer:
        run.reset(seed)
        # each round decides the highest undecided vertex
        rounds = run.finish_loop(loop, n + 1, "the independent set was not done")
        in_set = (run.state == IN).astype(numpy.int8)
    return Result({"in_set": in_set}, rounds, timer.ms, graph.num_edges, {"size": int(in_set.sum())})


class MIS(Problem):
    name = "mis"

    def __init__(self, graph):
        xp, n = graph.xp, graph.num_vertices
        self.graph = graph
        self.priority, self.rival = xp.empty(n, dtype=numpy.int64), xp.empty(n, dtype=numpy.int64)
        self.state = xp.empty(n, dtype=numpy.int32)
        self.undecided = Frontier(n, graph.device)
        marks = dict(state=self.state, priority=self.priority, taken=numpy.int64(TAKEN))
        rival = Functor(RIVAL, filename="<mis rival>", **marks)
        decide = Functor(DECIDE, filename="<mis decide>", rival=self.rival, **marks)

        def luby_round():
            neighbor_reduce(graph, rival, frontier=self.undecided, out=self.rival, reduce="max")
            filter_frontier(self.undecided, decide, out=self.undecided)
        self.start_loop(graph, luby_round, self.undecided.not_empty(),
                        checks=[self.undecided.overflow_check()])

    def reset(self, seed):
        """Priorities from the seed; every vertex undecided, in the first round's frontier."""
        self.undecided.reset()
        compute(self.graph, None, Functor(START, filename="<mis start>", priority=self.priority, state=self.state,
                                          seed=seed, undecided=self.undecided.view))
        self.undecided.next_level()


def check_mis(graph, in_set):
    """in_set (0 or 1 per vertex) against the definition: no edge u - v (u != v)
    joins two vertices of the set (independent), and every vertex outside it
    has a neighbour in it (maximal). "ok" or "FAILED: ..."."""
    in_set, n = to_host(in_set), graph.num_vertices
    if in_set.shape != (n,):
        return f"FAILED: in_set has shape {in_set.shape}, expected ({n},)"
    src, dst = to_host(graph.edge_sources()), to_host(graph.col_indices)
    joined = (src != dst) & (in_set[src] == 1) & (in_set[dst] == 1)
    covered = numpy.zeros(n, bool)
    covered[src[(src != dst) & (in_set[dst] == 1)]] = True
    return verdict([
        finding((in_set != 0) & (in_set != 1), "neither 0 nor 1", lambda v: f"{v} ({in_set[v]})"),
        finding(numpy.isin(numpy.arange(n), src[joined]), "in the set with a neighbour in it",
                lambda v: f"{v} (and {dst[joined][src[joined] == v][0]})"),
        finding((in_set == 0) & ~covered, "outside the set with no neighbour in it", str)])


APP = App(
    "mis", mis, "maximal independent set (Luby): no two members adjacent, no vertex can join", ("in_set",),
    lambda graph, source, values, options: check_mis(graph, values["in_set"]),
    options=(Option("seed", int, 0, "draws the random priorities: the same seed, the same set (default 0)",
                    SEED_WORD),),
    bench=(BenchCase("mis", "in_set", (
        System("CuPy composed Luby (scatter_max)", "gpu", lambda i, trace=None: alt.mis_cupy(
            i.graph.row_offsets, i.graph.col_indices)),
        System("networkx (CPU)", "cpu", lambda i, trace=None: alt.mis_networkx(i.networkx),
               skip=alt.too_big(10_000_000, "networkx"))),
        reference="networkx (CPU)", verify=lambda in_set, inputs: check_mis(inputs.graph, in_set) == "ok",
        score=("size", lambda in_set, inputs: int(in_set.sum()))),))
