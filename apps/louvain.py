"""Louvain communities of an undirected graph: modularity optimised by local
moves, then the communities contracted into vertices (minigr.contract) and
moved again, level after level, while a level raises the modularity by more
than `threshold` (networkx.louvain_communities' rule and parameters). A
level's moves run in sweeps on the device loop: every vertex sums its edge
weights to each neighbouring community (NeighborGroups), picks the community
of the best gain as networkx's _one_level computes it, and a random share of
the vertices (drawn from the seed each sweep; a half, less after sweeps that
went wrong, against swaps) move at once;
the community totals and the modularity follow on the device. A sweep that
lowers the modularity is undone at the next one's start, and a level ends
after PATIENCE sweeps in a row gain no more than threshold. After the levels,
the input's vertices move once more, starting from the communities found
(what parallel moves left undone, a sequential pass would have done)."""
import numbers

import numpy

from minigr import alternatives as alt
from minigr import validate
from minigr.catalog import NON_NEGATIVE, SEED_WORD, App, BenchCase, Option, System, needs
from minigr.contract import contract
from minigr.enactor import Problem, Result, Timer
from minigr.generators import SPLITMIX, seed_word
from minigr.modularity import Modularity
from minigr.operators import NeighborGroups
from minigr.transforms import Functor, transform
from minigr.transforms.errors import MinigrError

MAX_SWEEPS = 1000  # a level's sweeps at most
PATIENCE = 6  # sweeps in a row that gain no more than threshold end a level
# networkx's gain of moving v to each neighbouring community; the best, the smallest id on ties; v moves there
# when splitmix64's hash of v, the seed and the sweep falls below the share of vertices that move (quality[3]).
PICK = SPLITMIX + """void operator()(long long v) const {
    const int own = c[v];
    const double k = degree[v], m = settings[0], scale = settings[1] * k / (2 * m * m);
    double to_own = 0;
    for (long long s = g.begin(v); s < g.end(v); ++s) if (g.label(s) == own) to_own = g.sum(s);
    const double remove = -to_own / m + (total[own] - k) * scale;
    double best_gain = 0;
    int best = own;
    for (long long s = g.begin(v); s < g.end(v); ++s) {
        const int d = g.label(s);
        if (d != -1 && d != own) {
            const double gain = remove + g.sum(s) / m - total[d] * scale;
            if (gain > best_gain || (gain == best_gain && best != own && d < best)) { best_gain = gain; best = d; }
        }
        g.clear(s);
    }
    const uint64_t h = mix((uint64_t)v * 0x9E3779B97F4A7C15ull ^ seed ^ (uint64_t)sweep[0] << 40);
    next[v] = (double)(h >> 11) * 0x1p-53 < quality[3] ? best : own;
}"""
# A sweep starts by undoing the last one where it lowered the modularity; each change of c recounts the
# totals (zeroed here, then the modularity's add).
UNDO = "void operator()(long long v) const { if (quality[1] > 0) c[v] = previous[v]; total[v] = 0; }"
MOVE = "void operator()(long long v) const { previous[v] = c[v]; c[v] = next[v]; total[v] = 0; }"
# sums = [inside weight, sum of squared totals] and settings = [m, resolution, threshold, PATIENCE] (the
# modularity's); quality = [best modularity, 1 to undo the sweep, sweeps in a row that gained no more than
# threshold, the share of vertices that move: halved after a sweep that lowered the modularity, doubled up to
# a half after one that did not].
BETTER = """bool operator()() const {
    const double two_m = 2 * settings[0];
    const double q = sums[0] / two_m - settings[1] * sums[1] / (two_m * two_m);
    ++sweep[0];
    quality[1] = q < quality[0];
    quality[3] = q < quality[0] ? quality[3] / 2 : fmin(0.5, quality[3] * 2);
    quality[2] = q - quality[0] > settings[2] ? 0 : quality[2] + 1;
    if (q > quality[0]) quality[0] = q;
    return quality[2] < settings[3];
}"""


@needs(undirected="louvain", weighted="weighted Louvain")
def louvain(graph, *, resolution=1.0, threshold=1e-7, max_level=None, seed=0, weighted=False, loop="device"):
    """Louvain communities of an undirected graph, as networkx's ``louvain_communities``
    finds them.

    Parameters
    ----------
    resolution : float, default 1.0
        Below 1 favours larger communities, above 1 smaller ones.
    threshold : float, default 1e-7
        The levels stop when one gains no more modularity than this.
    max_level : int, optional
        The most levels (default: no limit).
    seed : int, default 0
        From 0 to 2^64 - 1: draws which vertices move in each sweep.
    weighted : bool, default False
        Edges count by their weights; else 1 per copy.

    Returns
    -------
    Result
        ``community`` (int32, 0..k-1), ``modularity`` (networkx's; nan without edges, or weighted
        ones of total weight 0) and
        ``levels``.

    Examples
    --------
    >>> import minigr
    >>> triangles = minigr.Graph.from_edges([0, 1, 2, 3, 4, 5, 2], [1, 2, 0, 4, 5, 3, 3], symmetrize=True)
    >>> result = minigr.louvain(triangles)
    >>> result.community.tolist(), round(result.modularity, 3)
    ([0, 0, 0, 1, 1, 1], 0.357)
    """
    seed = int(seed_word(seed))
    if max_level is not None and (isinstance(max_level, bool) or not isinstance(max_level, numbers.Integral)
                                  or max_level < 1):
        raise MinigrError(f"max_level must be an integer of at least 1 or None, got {max_level!r}")
    xp, n = graph.xp, graph.num_vertices
    community, quality, levels, sweeps = xp.arange(n, dtype=numpy.int32), float("nan"), 0, 0
    with Timer(graph.device) as timer:
        level = first = contract(graph, xp.arange(n), weighted)[0]  # float64 weights, duplicates summed
        weighs = level.num_edges and float(level.weights.sum()) > 0  # else modularity is undefined, as without edges
        while weighs and (max_level is None or levels < max_level):
            moves = Moves(level, resolution, threshold, seed + levels)
            start, end, done = moves.run(loop)
            quality, sweeps = start if levels == 0 else quality, sweeps + done
            if not bool((moves.c != xp.arange(level.num_vertices)).any()):  # no vertex moved
                break
            level, group = contract(level, moves.c)
            community, levels = group[community], levels + 1
            gain, quality = end - quality, end
            if gain <= threshold:
                break
        if levels > 1:  # the vertices move once more between the communities found
            polish = Moves(first, resolution, threshold, seed + levels, community)
            _, quality, done = polish.run(loop)
            sweeps, community = sweeps + done, contract(first, polish.c)[1]
    return Result({"community": community}, sweeps, timer.ms, graph.num_edges * sweeps,
                  {"modularity": quality, "levels": levels})


class Moves(Problem):
    """One level's local moves (made for each level's graph, not kept)."""
    name = "louvain"

    def __init__(self, graph, resolution, threshold, seed, community=None):
        """community: where the vertices start (default each alone)."""
        xp, n = graph.xp, graph.num_vertices
        self.graph = graph
        self.c = xp.arange(n, dtype=numpy.int32) if community is None else community.astype(numpy.int32)
        self.previous, self.next = xp.empty(n, dtype=numpy.int32), xp.empty(n, dtype=numpy.int32)
        self.sweep, self.quality = xp.zeros(1, numpy.int32), xp.zeros(4)
        self.modularity = modularity = Modularity(graph, self.c, resolution, threshold, PATIENCE)
        groups = NeighborGroups(graph, self.c, modularity.weight, loops=False)
        counts = dict(c=self.c, total=modularity.total, degree=modularity.degree)
        pick = Functor(PICK, filename="<louvain pick>", g=groups.view, next=self.next, quality=self.quality,
                       settings=modularity.settings, seed=numpy.uint64(seed % 2**64), sweep=self.sweep, **counts)
        undo = Functor(UNDO, filename="<louvain undo>", previous=self.previous, quality=self.quality, **counts)
        move = Functor(MOVE, filename="<louvain move>", previous=self.previous, next=self.next, **counts)

        def sweep():
            for step in (undo, modularity.add):
                transform(n, step)
            groups.fill()
            for step in (pick, move, modularity.add):
                transform(n, step)
            modularity.measure()
        self.measure = lambda: (transform(n, undo), transform(n, modularity.add), modularity.measure())
        self.start_loop(graph, sweep, Functor(BETTER, filename="<louvain better>", sums=modularity.sums,
                                              settings=modularity.settings, quality=self.quality, sweep=self.sweep))

    def run(self, loop):
        """The sweeps: (modularity before, after, sweeps); c holds the communities."""
        self.measure()
        start = self.modularity.wait_value()
        self.quality[...] = self.graph.xp.asarray(numpy.array([start, 0, 0, 0.5]))
        sweeps, _ = self.run_loop(loop, MAX_SWEEPS)
        if int(self.quality[1]):
            self.c[...] = self.previous
        return start, float(self.quality[0]), sweeps


APP = App(
    "louvain", louvain, "Louvain communities (modularity, networkx's levels and threshold)", ("community",),
    lambda graph, source, values, options: validate.check_louvain(graph, values["community"], **options),
    options=(Option("resolution", float, 1.0, "below 1 favours larger communities (default 1)", NON_NEGATIVE),
             Option("threshold", float, 1e-7, "levels stop when one gains no more modularity (default 1e-7)",
                    NON_NEGATIVE),
             Option("seed", int, 0, "draws which vertices move in each sweep (default 0)", SEED_WORD)),
    bench=(BenchCase("louvain", "community", (
        System("networkx (CPU)", "cpu", lambda i, trace=None: alt.louvain_networkx(i.networkx),
               skip=alt.too_big(2_000_000, "networkx")),), reference="networkx (CPU)",
        verify=lambda community, inputs: validate.check_louvain(inputs.graph, community, compare=False) == "ok",
        score=("modularity", lambda community, inputs: validate.modularity(inputs.graph, community))),))
