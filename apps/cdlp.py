"""Community detection by label propagation, as LDBC Graphalytics defines it:
labels start as the vertex ids; each iteration every vertex takes the label
most frequent among its neighbours' labels of the previous iteration, the
smallest on ties, and keeps its own when it has no neighbours; a directed
graph counts in- and out-neighbours (one on both counts twice); a fixed
number of iterations. Every stored edge counts once per copy.

Each vertex counts its neighbours' labels in a hash table of its own (twice
its degree in slots, each slot a label and its count in one 64-bit word):
advance over every edge inserts the label at the far end; a segmented max
over the tables (which also empties them) picks count first, smallest label
next; a last pass adopts the pick. The iterations loop on the device."""
import numpy

from minigr import alternatives as alt
from minigr import validate
from minigr.catalog import ITERATIONS, App, BenchCase, Option, System
from minigr.enactor import Problem, Result, Timer, problem
from minigr.operators import AdvanceFunctor, advance
from minigr.transforms import Functor, Partition, copied, segreduce_transform, transform
from minigr.transforms.errors import MinigrError

from ._cdlp_references import cdlp_cupy, cdlp_numpy, cdlp_reference

EMPTY = numpy.uint64(2**64 - 1)  # a slot no label holds: labels are below 2^31
# src counts the label of its neighbour dst: claim an empty slot, or add one to the slot holding it.
COUNT = dict(cond="""
    const uint64_t l = (uint32_t)label[dst];
    uint64_t* slots = table + offsets[src];
    const uint64_t size = offsets[src + 1] - offsets[src];
    uint64_t i = (l * 0x9E3779B97F4A7C15ull >> 32) % size;
    for (;;) {
        uint64_t seen = slots[i];
        if (seen == empty) {
            seen = atomicCAS(&slots[i], empty, l << 32 | 1);
            if (seen == empty) return false;
        }
        if (seen >> 32 == l) {
            atomicAdd(&slots[i], 1ull);
            return false;
        }
        i = i + 1 == size ? 0 : i + 1;
    }""")
# A slot as count << 32 | (2^31 - 1 - label), so that the max has the highest count, then the smallest label;
# 0 for an empty slot, which it leaves empty for the next iteration.
PICK = """long long operator()(long long slot, long long v, long long) const {
    const uint64_t seen = table[slot];
    if (seen == empty) return 0;
    table[slot] = empty;
    return (long long)(seen << 32 >> 32) << 32 | (2147483647 - (long long)(seen >> 32));
}"""
ADOPT = "void operator()(long long v) const { if (best[v] > 0) label[v] = 2147483647 - (int)(best[v] & 0xffffffff); }"
ALWAYS = "bool operator()() const { return true; }"


def cdlp(graph, *, iterations=10, loop="device"):
    """Community detection by label propagation, as LDBC Graphalytics defines it: each
    round, every vertex takes the label most frequent among its neighbours (the smallest
    on ties).

    Parameters
    ----------
    iterations : int, default 10
        Rounds of propagation.

    Returns
    -------
    Result
        ``label`` (int32, a vertex id) of every vertex.

    Examples
    --------
    >>> import minigr
    >>> two_triangles = minigr.Graph.from_edges([0, 1, 2, 3, 4, 5], [1, 2, 0, 4, 5, 3], symmetrize=True)
    >>> minigr.cdlp(two_triangles).label.tolist()
    [0, 0, 0, 3, 3, 3]
    """
    if not ITERATIONS[0](iterations):
        raise MinigrError(f"iterations must be {ITERATIONS[1]}, got {iterations!r}")
    n = graph.num_vertices
    if n == 0:
        return Result({"label": graph.xp.zeros(0, dtype=numpy.int32)}, 0, 0.0, 0)
    run = problem(graph, ("cdlp",), lambda: CDLP(graph))
    with Timer(graph.device) as timer:
        run.reset()
        done, _ = run.run_loop(loop, iterations)
    return Result({"label": copied(run.label)}, done, timer.ms, run.neighbours * done)


class CDLP(Problem):
    name = "cdlp"

    def __init__(self, graph):
        xp = self.xp = graph.xp
        n = graph.num_vertices
        sides = [graph, graph.reverse()] if graph.directed else [graph]  # out-neighbours, then in-neighbours
        degrees = sum(side.out_degrees() for side in sides)
        self.neighbours = int(degrees.sum())
        self.label = xp.empty(n, dtype=numpy.int32)
        self.best = xp.empty(n, dtype=numpy.int64)
        offsets = xp.concatenate([xp.zeros(1, dtype=numpy.int64), xp.cumsum(2 * degrees)])
        self.table = xp.full(max(2 * self.neighbours, 1), EMPTY, dtype=numpy.uint64)
        slots = Partition(offsets)
        count = AdvanceFunctor(**COUNT, filename="<cdlp count>", label=self.label, table=self.table, offsets=offsets,
                        empty=EMPTY)
        pick = Functor(PICK, filename="<cdlp pick>", table=self.table, empty=EMPTY)
        adopt = Functor(ADOPT, filename="<cdlp adopt>", label=self.label, best=self.best)

        def iteration():
            for side in sides:
                advance(side, None, count)
            segreduce_transform(offsets, pick, op="max", identity=0, total=slots.total, partition=slots,
                                out=self.best)
            transform(n, adopt)

        self.start_loop(graph, iteration, Functor(ALWAYS, filename="<cdlp always>"))

    def reset(self):
        self.label[...] = self.xp.arange(len(self.label), dtype=numpy.int32)


@validate.verdict_on_misshapen
def check_cdlp(graph, label, iterations=10):
    """Labels against cdlp_reference, exactly (the definition is deterministic)."""
    (label,) = validate.Edges(graph).per_vertex(label=label)
    expected = cdlp_reference(graph, iterations)
    return validate.verdict([validate.mismatch(label, expected, "with a wrong label")])


APP = App(
    "cdlp", cdlp, "community detection by label propagation (LDBC Graphalytics): a label per vertex", ("label",),
    lambda graph, source, values, options: check_cdlp(graph, values["label"], **options),
    options=(Option("iterations", int, 10, "label propagation rounds (default 10)", ITERATIONS),),
    bench=(BenchCase("cdlp 10 iterations", "label", (
        System("CuPy composed (sort, run lengths, scatter_max)", "gpu", lambda i, trace=None: cdlp_cupy(i.graph, 10)),
        System("NumPy (CPU)", "cpu", lambda i, trace=None: cdlp_numpy(i.graph, 10), skip=alt.too_big(2_000_000))),
        "CuPy composed (sort, run lengths, scatter_max)", alt.same, options={"iterations": 10}),))
