"""Weakly connected components: every vertex labelled with the smallest vertex
id of its component, a directed graph's edges taken both ways. Lock-free
union-find (minigr.operators.UnionFind) in the way of Afforest (Sutton,
Ben-Nun and Barak, 2018): each vertex hooks to its first two neighbours (a
root always goes under a smaller one, so a tree's root is its smallest id),
the trees are compressed, the component most of 1024 sampled vertices share
is taken as the giant one, and only vertices outside it hook along their
remaining edges (and, directed, their in-edges). A last pass points every
vertex at its root. A fixed handful of launches, whatever the graph's
diameter: nothing to loop over, so on the GPU they run as one CUDA graph (a
Replay), captured on the first call and launched once by each (ten launches
cost ~120 us of host time a call)."""
import numpy

from minigr import alternatives as alt
from minigr.catalog import App, BenchCase, System
from minigr.enactor import Problem, Result, Timer, problem
from minigr.operators import UnionFind
from minigr.transforms import Functor, copied, segment_transform, transform
from minigr.transforms.loop import Replay

from ._wcc_references import check_wcc, wcc_cupy, wcc_scipy

SAMPLES = 1024      # vertices sampled to find the giant component
VOTE_PARTS = 32     # runs of the samples that a sample's count is split into (SAMPLES a multiple)
NEIGHBOUR_ROUNDS = 2  # neighbours each vertex hooks to before the sampling

HOOK_NEIGHBOUR = """void operator()(long long v) const {
    const long long at = row_offsets[v] + nth;
    if (at < row_offsets[v + 1]) sets.hook((int)v, col_indices[at]);
}"""
# The most frequent component among the sampled vertices, smallest on ties:
# best = count << 32 | (2^31 - 1 - its name). component[v] names v's (here its root).
# An item counts one sample's name over one of `parts` runs of the samples, and adds that to
# the sample's tally (count << 16 | runs added); the run that completes it votes, and zeroes
# the tally for the next call. (One sample an item took 290 us on kron:scale=12, H100.)
VOTE = """void operator()(long long item) const {
    const long long sample = item / parts, run = samples / parts, first = item % parts * run;
    const int name = component[sampled(sample)];
    const long long step = STRIDE % n;  // sampled(j + 1) - sampled(j), mod n: no division in the loop
    long long count = 0;
    for (long long j = 0, at = sampled(first); j < run; ++j, at = at + step < n ? at + step : at + step - n)
        count += component[at] == name;
    const unsigned long long done = atomicAdd(&tally[sample], (unsigned long long)count << 16 | 1);
    if ((long long)(done & 0xffff) < parts - 1) return;
    tally[sample] = 0;
    atomicMax(&best[0], (long long)((done >> 16) + count) << 32 | (2147483647 - name));
}
static constexpr unsigned long long STRIDE = 2654435761ull;
int sampled(long long i) const { return (int)((unsigned long long)i * STRIDE % (unsigned long long)n); }"""
# The edges of a vertex outside the giant component, after the first `skip`.
OUTSIDE = """void operator()(long long v, long long& begin, long long& end) const {
    const int giant = 2147483647 - (int)(best[0] & 0xffffffff);
    begin = end = 0;
    if (component[v] != giant) {
        begin = min(row_offsets[v] + skip, row_offsets[v + 1]);
        end = row_offsets[v + 1];
    }
}"""
HOOK_EDGE = "void operator()(long long edge, long long v, long long) const { sets.hook((int)v, col_indices[edge]); }"


def wcc(graph):
    """Weakly connected components, a directed graph's edges taken both ways.

    Returns
    -------
    Result
        ``component`` (int32): the smallest vertex id in each vertex's component.

    Examples
    --------
    >>> import minigr
    >>> graph = minigr.Graph.from_edges([0, 2], [1, 3], num_vertices=5)
    >>> minigr.wcc(graph).component.tolist()
    [0, 0, 2, 2, 4]
    """
    run = problem(graph, ("wcc",), lambda: WCC(graph))
    with Timer(graph.device) as timer:
        run.labelling.run()
    return Result({"component": copied(run.root[:graph.num_vertices])}, 1, timer.ms, graph.num_edges)


class WCC(Problem):
    name = "wcc"

    def __init__(self, graph, component=None):
        """component: what names a vertex's component for the giant's vote and
        skip (default: parent, the roots once compressed)."""
        xp, self.n = graph.xp, graph.num_vertices
        self.sets, self.root = UnionFind(self.n, graph.device), xp.empty(max(self.n, 1), dtype=numpy.int32)
        component = self.sets.parent if component is None else component
        self.best = xp.zeros(1, dtype=numpy.int64)
        self.tally = xp.zeros(SAMPLES, dtype=numpy.uint64)  # zero between votes (VOTE)
        sets = self.sets.view
        self.hook_neighbour = [Functor(HOOK_NEIGHBOUR, filename="<wcc hook neighbour>", sets=sets,
                                       row_offsets=graph.row_offsets, col_indices=graph.col_indices,
                                       nth=numpy.int64(r)) for r in range(NEIGHBOUR_ROUNDS)]
        self.vote = Functor(VOTE, filename="<wcc vote>", component=component, best=self.best, tally=self.tally,
                            samples=numpy.int64(SAMPLES), parts=numpy.int64(VOTE_PARTS),
                            n=numpy.int64(max(self.n, 1)))
        # out-edges past the sampled ones; a directed graph's in-edges too, all of them
        self.rest = [(Functor(OUTSIDE, filename="<wcc outside>", component=component, best=self.best,
                              row_offsets=g.row_offsets, skip=numpy.int64(skip)),
                      Functor(HOOK_EDGE, filename="<wcc hook edge>", sets=sets, col_indices=g.col_indices))
                     for g, skip in [(graph, NEIGHBOUR_ROUNDS)] + [(graph.reverse(), 0)] * graph.directed]
        self.labelling = Replay("wcc", graph.device, self.label_components)

    def label_components(self):
        """root[v] becomes v's component (queued; nothing waits)."""
        if self.n:
            self.hook_sampled()
            self.vote_giant()
            self.hook_rest()

    def hook_sampled(self):
        """Each vertex hooked to its first neighbours, the trees compressed."""
        self.sets.reset()
        for hook in self.hook_neighbour:
            transform(self.n, hook)
            self.sets.compress()

    def vote_giant(self):
        """best names the component most sampled vertices are in (0 without vertices)."""
        self.best.fill(0)
        if self.n:
            transform(SAMPLES * VOTE_PARTS, self.vote)

    def hook_rest(self):
        """Vertices outside the giant component that best names hook along
        their other edges (best 0: none is giant); root[v] becomes v's root."""
        for bounds, hook in self.rest:
            segment_transform(self.n, bounds, hook)
        self.sets.roots(self.root)


APP = App(
    "wcc", wcc, "weakly connected components: the smallest vertex id of each vertex's component", ("component",),
    lambda graph, source, values, options: check_wcc(graph, values["component"]),
    bench=(BenchCase("wcc", "component", (
        System("CuPy composed (scatter_min, pointer jumping)", "gpu",
               lambda i, trace=None: wcc_cupy(i.graph.row_offsets, i.graph.col_indices)),
        System("SciPy csgraph (CPU)", "cpu", lambda i, trace=None: wcc_scipy(i.scipy))),
        "SciPy csgraph (CPU)", alt.same),), partitioned="_wcc_parts")
