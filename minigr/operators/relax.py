"""relax: asynchronous label correcting over out-edges. From the sources,
labels[dst] = min(labels[dst], candidate(src, dst, edge, labels[src])) along
every edge until nothing changes, by one kernel that works through a queue of
improved vertices (worklist_transform): a chain of improvements runs at the
latency of its own loads, with no level, barrier or launch between its steps.
Labels are uint32, and smaller is better: an int32 or a non-negative float32
array viewed as uint32 orders the same. It wins where levels are many and
small (road maps), and loses where a vertex has many edges: one thread walks
a vertex's edges. With `above`, it relaxes in buckets of labels, as
delta-stepping does, each worked without levels: fewer labels corrected
again where paths of many hops are not the shortest (road maps' distances);
the buckets may widen or narrow by the work each queued."""
import numpy

from ..transforms import Functor, Worklist, transform, worklist_transform
from ..transforms.errors import MinigrError, naming_errors
from ..transforms.loop import Loop
from ..transforms.worklist import workers

# A pair (src, label) whose label src has since bettered is stale: the better
# one is queued too, and relaxes instead. A thread goes on along one neighbour
# it bettered (below the bucket's bound), up to CHASE vertices, and queues the
# others: a chain of improvements then skips the queue's round trips. Edges go
# BATCH at a time, their loads and atomics issued together, and each
# destination's edge range is loaded beside its atomic: a hop of a chain
# waits on two round trips to memory, whatever the degree (the stale check
# only where a pair is taken: a chased vertex just got its label). H100,
# 2026-11-26, async BFS / SSSP against one edge at a time with a check every
# hop: USA-road-d.NY 1.6 / 4.2 ms against 2.9 / 6.3, luxembourg_osm 2.0 / 3.0
# against 2.7 / 3.8, grid_22 12.9 / 47 against 29-33 / 72
# (.devrun/batchprobe.py, staleprobe.py). Rows padded to 4 or 8 columns, so that
# a destination's columns load beside its atomic (a hop one round trip): slower,
# H100, 2026-11-27, async BFS / SSSP grid_22 11.4 / 22.8 ms against 10.1 / 18.2,
# USA-road-d.NY 1.25 / 2.7 against 1.07 / 2.0: a hop's round trips do not bound it.
EDGES = """static constexpr int BATCH = 4;  // edges whose round trips overlap: road maps have 2-4 a vertex
__device__ void operator()(int src, unsigned label, const minigr::Worklist& queue) const {
    long long first = row_offsets[src], last = row_offsets[src + 1];
    if (*(volatile const uint32_t*)&labels[src] < label) return;  // stale (a chase's next vertex just got its label)
    for (int chased = 1;; ++chased) {
        int next = -1;
        unsigned next_label = 0;
        long long next_first = 0, next_last = 0;
        for (long long base = first; base < last; base += BATCH) {
            int dst[BATCH];
            unsigned better[BATCH], old[BATCH];
            long long begin[BATCH], end[BATCH];
            for (int k = 0; k < BATCH && base + k < last; ++k) {  // unrolled: the arrays stay in registers
                dst[k] = col_indices[base + k];
                better[k] = candidate(src, dst[k], base + k, label);
            }
            for (int k = 0; k < BATCH && base + k < last; ++k) {
                old[k] = atomicMin(&labels[dst[k]], better[k]);
                begin[k] = row_offsets[dst[k]];
                end[k] = row_offsets[dst[k] + 1];
            }
            for (int k = 0; k < BATCH && base + k < last; ++k) {
                if (better[k] >= old[k]) continue;
                if (next < 0 && chased < chase && better[k] < queue.bound) {
                    next = dst[k];
                    next_label = better[k];
                    next_first = begin[k];
                    next_last = end[k];
                } else {
                    queue.push(dst[k], better[k]);
                }
            }
        }
        if (next < 0) return;
        src = next;
        label = next_label;
        first = next_first;
        last = next_last;
    }
}"""
# H100, 2026-11-26: with chains of up to 64, BFS on luxembourg_osm 2.6 ms against 3.3 without, SSSP 3.7 against
# 4.6-5.1; pushes a vertex 0.2-1.0 against 1.7-6.2 (.devrun/asyncprobe.py, asyncmodes.py).
CHASE = 64
# The queue publishes its pairs relaxed (worklist_transform's ordered=False): a worker needs nothing its
# pusher wrote but the pair. Labels change only through atomics, and the stale check's load only saves
# work where it sees a newer label; the graph and the candidate's captures were written before the run.
# A hop then skips a release fence: H100, 2026-11-27, async BFS / SSSP USA-road-d.NY 1.75 / 2.9 ms
# against 1.35-1.46 / 2.1-2.3, luxembourg_osm 0.9-1.05 / 1.3-1.54 against 0.8-0.97 / 1.0-1.2, grid_22
# 12.7 / 22.5-22.9 against 10.7-11.4 / 19.1-19.5, three runs each (.devrun/abr.py).
PUSHES_PER_VERTEX = 8  # room in the queue: BFS on road maps and grids pushed 1.5-6.5 per vertex
QUEUE_SPARE = 65536  # and room beyond, for small graphs
# Buckets that adapt (run(adapt=True)): each as wide as makes it queue about BUCKET_PAIRS pairs for each
# worker, from half to twice the last: wide where few vertices settle at each label (one bucket for
# SSSP on luxembourg_osm), narrow where many do, lest they be corrected again. SSSP, H100, 2026-11-26,
# against the best fixed width: USA-road-d.NY 4.2 ms (128 mean weights 4.1, 32 5.1), luxembourg_osm
# 2.5-2.9 (2.8), grid_22 23.1 (32: 23.6, 128: 47.2), grid_20 10.5 (11.0); 8 to 24 pairs even, and on
# 2026-11-27 3 / 6 / 12 / 24 / 48 pairs NY 3.96 / 3.91 / 3.88 / 3.79 / 3.75 ms, grid_22 24.8 / 23.8 /
# 23.4 / 24.3 / 27.7. widths = [the width, the pairs a bucket aims at: 0, the width stays].
BUCKET_PAIRS = 12
NEXT_BOUND = """unsigned operator()(unsigned smallest, unsigned long long queued) const {
    double width = widths[0];
    if (widths[1] > 0) {
        width *= fmin(2.0, fmax(0.5, widths[1] / fmax((double)queued, 1.0)));
        widths[0] = width;
    }
    const unsigned bound = above(smallest, width);
    return bound > smallest ? bound : smallest + 1;  // each bound above the last, however narrow the width
}"""
WIDTHS = "void operator()(long long) const { widths[0] = width; widths[1] = target; }"
# Lone workers (worklist_transform's lone: 8 an SM, a warp each) on graphs of fewer vertices than these,
# without buckets and with: their queues hold little at once, and a lane's chase of up to CHASE hops held
# up the pairs its warp-mates had taken. H100, 2026-11-27, BFS / SSSP ms, 64 workers an SM in whole warps
# against 8 lone (.devrun/wlab4.py): luxembourg_osm (115k vertices) 1.91 / 2.65 against 0.89 / 1.31,
# grid_16 1.26 / 2.25 against 0.74 / 1.57, grid_18 2.48 / 4.44 against 1.56 / 3.45, USA-road-d.NY (264k)
# 1.72 / 4.16 against 2.10 / 3.02, grid_20 5.3 / 10.7 against 10.8 / 9.4, grid_22 12.7 / 23.1 against
# 224 / 31. A bucket holds less than a run without buckets does, so SSSP goes lone on larger graphs than BFS.
LONE_BELOW, LONE_BELOW_IN_BUCKETS = 2**17, 2**21


def lone_in_buckets_only(graph):
    """Whether Relax's workers on `graph` are lone where it relaxes in buckets (`above`),
    but whole warps where it does not: GPU graphs of 2^17 to 2^21 vertices.

    Parameters
    ----------
    graph : Graph
        The graph relaxed over.

    Returns
    -------
    bool

    Examples
    --------
    >>> import minigr
    >>> from minigr.operators.relax import lone_in_buckets_only
    >>> lone_in_buckets_only(minigr.Graph.from_edges([0], [1]))  # lone either way
    False
    """
    return graph.device == "gpu" and LONE_BELOW <= graph.num_vertices < LONE_BELOW_IN_BUCKETS


class Relax:
    """Asynchronous label correcting over a graph's out-edges, through a queue of improved vertices.

    From the sources, labels[dst] = min(labels[dst], candidate(src, dst, edge,
    labels[src])) along every edge until nothing changes, by one kernel that works
    through a queue (`minigr.transforms.worklist_transform`): a chain of improvements runs
    at the latency of its own loads, with no level, barrier or launch between its steps
    (BFS's and SSSP's ``loop="async"``). It wins where levels are many and small (road
    maps), and loses where a vertex has many edges: one thread walks a vertex's edges.
    With `above` it runs in buckets of labels, as delta-stepping does: a run corrects the
    labels below a bound and defers the others, and the next bucket's bound is
    above(the smallest deferred, the width), in a loop of runs on the device.

    Parameters
    ----------
    graph : Graph
        The graph, over whose out-edges labels are corrected.
    labels : array
        The labels (uint32), one per vertex; smaller is better (an int32 or a non-negative
        float32 array viewed as uint32 orders the same).
    candidate : str
        The body of ``unsigned candidate(int src, int dst, long long edge, unsigned
        label)``: dst's label through that edge; it sees the captures by name.
    filename : str, default "<relax candidate>"
        The name compile errors give the bodies.
    above : str, optional
        The body of ``unsigned above(unsigned label, double width)``, the label `width`
        above `label` (same captures): relax in buckets. Each run gives the first width,
        and may let the width follow the pairs each bucket queued (see `run`).
    name : str, default "relax"
        The name errors give.
    **captures
        Arrays, scalars and functors that the bodies use, by name.

    Attributes
    ----------
    lone : bool
        Whether each worker is a warp of its own (graphs of under 2^17 vertices, 2^21 in
        buckets, where queues hold little at once).
    workers : int
        Threads that work the queue at once.

    Notes
    -----
    Keeps its queue, made on the first run, of PUSHES_PER_VERTEX (8) pushes per vertex;
    where a run needs more, `wait_pushes` says so and the labels are void.

    Examples
    --------
    Hops from vertex 0:

    >>> import minigr
    >>> from minigr.operators import Relax
    >>> graph = minigr.Graph.from_edges([0, 1, 2, 0], [1, 2, 3, 2])
    >>> depth = graph.xp.full(4, -1, dtype="int32")  # -1 as uint32: the largest label
    >>> depth[0] = 0
    >>> hops = Relax(graph, depth.view("uint32"), "return label + 1;")
    >>> hops.run([0], [0])
    >>> hops.wait_pushes(), depth.tolist()  # the source's pair, and 2's (1 and 3 went on a chain)
    (2, [0, 1, 1, 2])
    """

    def __init__(self, graph, labels, candidate, filename="<relax candidate>", *, above=None, name="relax",
                 **captures):
        if labels.dtype != numpy.uint32 or labels.shape != (graph.num_vertices,):
            raise MinigrError(f"relax: labels must be uint32, one per vertex ({graph.num_vertices}); got "
                              f"{labels.dtype} of shape {labels.shape}")
        op = Functor(f"unsigned operator()(int src, int dst, long long edge, unsigned label) const {{ {candidate}\n}}",
                     filename=filename, **captures)
        self.edges = Functor(EDGES, filename="<relax>", labels=labels, candidate=op, row_offsets=graph.row_offsets,
                             col_indices=graph.col_indices, chase=numpy.int32(CHASE))
        self.widths, self.bound = graph.xp.zeros(2), None  # see NEXT_BOUND
        if above is not None:
            above = Functor(f"unsigned operator()(unsigned label, double width) const {{ {above}\n}}",
                            filename=f"{filename} above", **captures)
            self.bound = Functor(NEXT_BOUND, filename="<relax next bound>", widths=self.widths, above=above)
        self.start_widths = Functor(WIDTHS, filename="<relax widths>", widths=self.widths, width=numpy.float64(0),
                                    target=numpy.float64(0))
        self.graph, self.name = graph, name
        self.lone = graph.num_vertices < (LONE_BELOW if above is None else LONE_BELOW_IN_BUCKETS)
        self.workers = workers(graph.device, self.lone)  # threads that work the queue at once
        self.queue = self.loop = None  # made on the first run: 8 bytes a push (24 with buckets)

    def run(self, sources, labels, width=None, adapt=False):
        """Queue a run from the sources, whose labels are stored already.

        Queued on the current stream; nothing waits (`wait_pushes` reads its outcome).

        Parameters
        ----------
        sources : sequence of int
            The vertices the run starts from (host values).
        labels : sequence of int
            Their labels, as stored in the labels array (host values).
        width : float, optional
            The first bucket's width: required in buckets (with `above`), refused without.
        adapt : bool, default False
            In buckets: make each next bucket as wide as makes it queue about BUCKET_PAIRS
            (12) pairs for each worker, from half to twice the last.

        Examples
        --------
        Distances from vertex 0, in buckets 2 wide:

        >>> import minigr
        >>> from minigr.operators import Relax
        >>> graph = minigr.Graph.from_edges([0, 0, 1, 2], [1, 2, 3, 3], weights=[1, 5, 1, 1])
        >>> distance = graph.xp.full(4, -1, dtype="int32")
        >>> distance[0] = 0
        >>> sssp = Relax(graph, distance.view("uint32"), "return label + (unsigned)weights[edge];",
        ...              above="return label + (unsigned)width;", weights=graph.weights)
        >>> sssp.run([0], [0], width=2)
        >>> sssp.wait_pushes() is not None, distance.tolist()
        (True, [0, 1, 5, 2])
        """
        if (width is None) != (self.bound is None):
            raise MinigrError(f"{self.name}: relax takes a bucket width exactly where it runs in buckets (above=)")
        with naming_errors(self.name, "relaxing"):
            if width is not None:
                transform(1, self.start_widths.with_values(width=width, target=BUCKET_PAIRS * self.workers * adapt))
            self._run(sources, labels)

    def _run(self, sources, labels):
        if self.queue is None:
            capacity = min(PUSHES_PER_VERTEX * self.graph.num_vertices + QUEUE_SPARE, 2**31 - 1)
            self.queue = Worklist(capacity, self.graph.device, buckets=self.bound is not None)
            if self.bound is not None:
                self.loop = Loop(self.name, self.graph.device,
                                 lambda: (worklist_transform(self.queue, self.edges, self.lone, ordered=False),
                                          self.queue.split(self.bound)), self.queue.holds_pairs())
        if self.loop is None:
            self.queue.reset(sources, labels)
            worklist_transform(self.queue, self.edges, self.lone, ordered=False)
            return
        self.queue.reset(sources, labels, bound=0)  # the sources' run defers all it finds: the first split bounds it
        self.loop.run("device", 2**31 - 1)

    def wait_pushes(self):
        """The last run's pushes, or None where its queue overflowed: waits for the run.

        Returns
        -------
        int or None
            The pairs the run pushed, its sources' included (over all its buckets); None
            where a push found the queue full: the labels are then void.

        Examples
        --------
        >>> import minigr
        >>> from minigr.operators import Relax
        >>> graph = minigr.Graph.from_edges([0, 1, 2], [1, 2, 3])
        >>> depth = graph.xp.asarray([0, -1, -1, -1], dtype="int32")
        >>> hops = Relax(graph, depth.view("uint32"), "return label + 1;")
        >>> hops.run([0], [0])
        >>> hops.wait_pushes(), depth.tolist()  # the source's pair: 1, 2 and 3 went on its chain
        (1, [0, 1, 2, 3])
        """
        with naming_errors(self.name, "relaxing"):
            return self.queue.wait_pushes()
