"""What every primitive shares: its result type, the timer of its run, and the
cache of its buffers and loop per graph, so that the loop's CUDA graph is
captured once per graph and primitive and relaunched by later calls."""
import dataclasses
import threading
import time

import numpy

from .transforms import Functor, scan_transform, transform
from .transforms.errors import MinigrError
from .transforms.loop import Loop, build_ms_total


@dataclasses.dataclass(repr=False)
class Result:
    """A primitive's per-vertex arrays (on the graph's device) and run statistics: the arrays
    and extras by name (``result.depth``, ``result.num_colors``), ``ms`` (the run: CUDA events
    on the GPU, a host clock on the CPU), ``build_ms`` (the one-time capture of its loop on
    the GPU, on the first call on a graph; left out of ms), ``iterations``."""
    values: dict            # name -> array, e.g. {"depth": ..., "parent": ...}
    iterations: int
    ms: float               # elapsed time of the run, without building its device loop
    edges: object           # edges the operators touched (for MTEPS): an int, or a function counting them
    extra: dict = dataclasses.field(default_factory=dict)  # e.g. {"num_colors": 7}
    build_ms: float = 0.0   # host ms this call spent building device loops (minigr.<name> sets it)

    def __repr__(self):
        arrays = ", ".join(f"{name}={a.dtype}[{len(a)}]" for name, a in self.values.items())
        extras = "".join(f", {name}={value!r}" for name, value in self.extra.items())
        return (f"Result({arrays}{extras}, iterations={self.iterations}, ms={self.ms:.3f}, "
                f"build_ms={self.build_ms:.1f})")

    def __dir__(self):
        return sorted({*super().__dir__(), *self.values, *self.extra})

    @property
    def edges_visited(self):
        """Edges the operators touched; counted when first asked where that waits for the GPU."""
        if callable(self.edges):
            self.edges = self.edges()
        return self.edges

    def __getattr__(self, name):
        """The arrays and extras by name: result.depth, result.rank, result.num_colors."""
        named = {**self.__dict__.get("values", {}), **self.__dict__.get("extra", {})}
        if name in named:
            return named[name]
        raise AttributeError(f"this result has no {name!r}; it has {', '.join(named)}")

    def to_host(self):
        """This result with its arrays copied to NumPy on the host and its edges
        counted: nothing of it stays on the device, so it pickles (a spawned rank sends it)."""
        from .graph import to_host
        return dataclasses.replace(self, values={name: to_host(a) for name, a in self.values.items()},
                                   edges=self.edges_visited)


_REACHED_EDGES = """long long operator()(long long v) const {
    return label[v] != unreached ? row_offsets[v + 1] - row_offsets[v] : 0;
}"""


def wait_reached_edges(graph, label, unreached, vertices=None):
    """The out-edges of the vertices a traversal reached: its Result's edges (for MTEPS).
    Counted by a functor's scan, not by CuPy calls, which CuPy would compile on their
    first use (0.1 s each on an H100).

    Parameters
    ----------
    graph : Graph
        The graph traversed.
    label : array
        The traversal's label of each vertex (of the first `vertices`): a depth, a distance.
    unreached : number
        The label of a vertex not reached (BFS's -1, SSSP's inf).
    vertices : int, optional
        Count the first this many vertices (a part's own); default every vertex.

    Returns
    -------
    int
        The sum of the reached vertices' out-degrees; waits for it.

    Examples
    --------
    >>> import minigr
    >>> from minigr.enactor import wait_reached_edges
    >>> graph = minigr.Graph.from_edges([0, 0, 1, 2], [1, 2, 2, 0])
    >>> depth = graph.xp.asarray([0, 1, -1], dtype="int32")
    >>> wait_reached_edges(graph, depth, -1)
    3
    """
    count = Functor(_REACHED_EDGES, filename="<reached edges>", label=label, unreached=label.dtype.type(unreached),
                    row_offsets=graph.row_offsets)
    return scan_transform(graph.num_vertices if vertices is None else vertices, count)[1]


def reached_edges_later(graph, label, unreached, vertices=None):
    """A traversal's Result's edges, counted when first asked (see Result.edges_visited), so
    that its run returns without waiting for them.

    Parameters
    ----------
    graph, label, unreached, vertices
        As `wait_reached_edges` takes them; the count runs on the graph's GPU, which by
        then may not be the current one.

    Returns
    -------
    callable
        ``count()``: `wait_reached_edges`'s count; waits for it.

    Examples
    --------
    >>> import minigr
    >>> from minigr.enactor import Result, reached_edges_later
    >>> graph = minigr.Graph.from_edges([0, 0, 1, 2], [1, 2, 2, 0])
    >>> depth = graph.xp.asarray([0, 1, -1], dtype="int32")
    >>> Result({"depth": depth}, 2, 0.0, reached_edges_later(graph, depth, -1)).edges_visited
    3
    """
    def on_its_gpu():
        with graph.on_its_gpu():
            return wait_reached_edges(graph, label, unreached, vertices)
    return on_its_gpu


_spare_events = threading.local()  # .pairs: {GPU id: [(start, stop) CUDA events a Timer may take]}


class Timer:
    """Elapsed milliseconds of a `with` block on a device, less the host time spent in it
    building device loops (a one-time cost; see transforms.loop.build_ms_total). Its CUDA
    events are taken from the thread's spares and given back (making two costs ~3 us)."""

    def __init__(self, device):
        self.device = device
        self.ms = None

    def __enter__(self):
        self._built = build_ms_total()
        if self.device == "gpu":
            import cupy
            pairs = vars(_spare_events).setdefault("pairs", {}).setdefault(cupy.cuda.Device().id, [])
            self._spares = pairs
            self._start, self._stop = pairs.pop() if pairs else (cupy.cuda.Event(), cupy.cuda.Event())
            self._start.record()
        else:
            self._start = time.perf_counter()
        return self

    def __exit__(self, *exc):
        if self.device == "gpu":
            import cupy
            self._stop.record()
            self._stop.synchronize()
            elapsed = cupy.cuda.get_elapsed_time(self._start, self._stop)
            self._spares.append((self._start, self._stop))
        else:
            elapsed = (time.perf_counter() - self._start) * 1e3
        # A device loop built in the block (on the host, the GPU idle) is a one-time cost, not the run's.
        self.ms = max(elapsed - (build_ms_total() - self._built), 0.0)


class Problem:
    """A primitive's buffers and its Loop on one graph, made once (see
    `problem`) and reset by each call. Subclasses make their buffers and
    functors, then call start_loop(graph, body, condition, unroll, checks) (see Loop)."""

    name = "primitive"
    last_iterations = None  # of run_mode's last level-synchronous run, for loop_mode's last=

    def start_loop(self, graph, body, condition, unroll=1, checks=()):
        """The Loop of this Problem's iterations on `graph`, its persistent kernel as wide as the graph wants."""
        self.loop = Loop(self.name, graph.device, body, condition, unroll, checks, persistent_block(graph))

    def run_loop(self, where, max_iterations, before=None):
        """Runs the loop, after `before` (see Loop.run); returns (iterations, limit reached): waits for it."""
        self.loop.run(where, max_iterations, before)
        return self.loop.wait_iterations()

    def run_mode(self, where, max_iterations, relaxed=None, before=None):
        """Runs the primitive as `where` says (see queue_mode); returns (iterations,
        limit reached): waits."""
        return self.queue_mode(where, max_iterations, relaxed, before)()

    def queue_mode(self, where, max_iterations, relaxed=None, before=None):
        """Queues the primitive's run as `where` says, after `before` ((items, functor), a
        transform: the run's reset): "async" by relaxed() (its iterations, or None where
        its queue overflowed: then the persistent loop, reset again), else by its loop
        (see Loop.run). Returns wait(), which waits for the run: (iterations, limit
        reached); a run by the loop keeps its iterations in last_iterations. What the
        caller queues before it (its results' copies) follows the loop on the GPU with
        no host round trip between. Without relaxed (a part of a partitioned graph),
        "async" is refused."""
        if where == "async" and relaxed is None:
            raise MinigrError("loop='async' runs on one device; a partitioned graph loops with 'device', "
                              "'persistent' or 'host'")
        if where == "async":
            if before is not None:
                transform(*before)
            iterations = relaxed()
            if iterations is not None:
                return lambda: (iterations, False)
            where = "persistent"
        self.loop.run(where, max_iterations, before)
        return self._wait_loop

    def _wait_loop(self):
        """The loop's wait (see queue_mode)."""
        iterations, exhausted = self.loop.wait_iterations()
        self.last_iterations = iterations
        return iterations, exhausted

    def finish_loop(self, where, max_iterations, unfinished):
        """Runs a loop that its algorithm ends within max_iterations (see run_loop): its
        iterations, waited for; reaching the limit is a bug, raised as "internal error:
        <unfinished> in <iterations> rounds"."""
        rounds, exhausted = self.run_loop(where, max_iterations)
        if exhausted:
            raise MinigrError(f"internal error: {unfinished} in {rounds} rounds")
        return rounds


# Each fragment numbered from its own first line, as compile errors name it ("<bfs start> each:2").
_START = """void operator()(long long v) const {{
    if (v == 0) {{
#line 1 "{name} first"
{first}
    }}
    if (v < vertices) {{
#line 1 "{name} each"
{each}
    }}
}}"""


class Start:
    """A run's start in one transform over max(n, 1) items: item 0 sets the run's scalars
    (sizes, settings, a frontier's first vertex), and every vertex its own state; one
    launch where a fill or copy each would take one (a step of the persistent kernel
    where Loop.run takes it as before=), and none of the CuPy calls that CuPy would
    compile on their first use (0.1 s each on an H100). A graph of no vertices still
    sets the scalars.

    Parameters
    ----------
    name : str
        The primitive's name, for the functor's ("<name start>").
    n : int
        The vertices.
    first : str
        C++ statements of item 0. Nothing in `each` may read what they write. Compile
        errors name them ``<name start> first`` and their line.
    each : str
        C++ statements on vertex ``v`` (long long), for v < n (``<name start> each``).
    **captures
        The functor's captures (see Functor), ``vertices`` (n) given; scalars a run
        sets get their values from each call.

    Returns
    -------
    Start
        Called with scalars' values (as Functor.with_values takes them), ``(items, functor)``:
        the transform of one run's start, for ``transform(*start(...))`` or Loop.run's before=.

    Examples
    --------
    >>> import numpy
    >>> from minigr.enactor import Start
    >>> from minigr.transforms import array_module, resolve_device, transform
    >>> xp = array_module(resolve_device())
    >>> depth, size = xp.empty(4, dtype="int32"), xp.empty(1, dtype="int64")
    >>> start = Start("demo", 4, "size[0] = 1;", "depth[v] = v == root ? 0 : -1;", depth=depth, size=size,
    ...               root=numpy.int32(0))
    >>> transform(*start(root=2))
    >>> depth.tolist(), size.tolist()
    ([-1, -1, 0, -1], [1])
    """

    def __init__(self, name, n, first, each, **captures):
        self.items = max(n, 1)
        filename = f"<{name} start>"
        self.functor = Functor(_START.format(name=filename, first=first, each=each), filename=filename,
                               vertices=numpy.int64(n), **captures)

    def __call__(self, **values):
        return self.items, self.functor.with_values(**values)


# loop="auto" takes the async form (minigr.operators.Relax) of a primitive that has one where no
# vertex has over ASYNC_MAX_DEGREE out-edges, up to ASYNC_MAX_VERTICES vertices; the persistent
# kernel on any graph of under SMALL_EDGES edges, or where the last run settled fewer than
# SMALL_ITERATION vertices an iteration.
ASYNC_MAX_DEGREE, ASYNC_MAX_VERTICES, SMALL_EDGES, SMALL_ITERATION = 8, 1 << 22, 1 << 22, 4096


def loop_mode(graph, loop, dense="device", relaxes=False, last=None):
    """The mode of a traversal's loop (see Loop.run): "auto" is the persistent
    kernel on sparse graphs (mean out-degree under 8: road maps, grids), whose
    small levels it runs 10-20% faster, and on small ones (under SMALL_EDGES
    edges), and `dense` on denser ones (kron, rgg): by default the CUDA-graph
    loop, for large levels that want more blocks than the persistent kernel's
    barriers afford (SSSP on kron scale 12 / 14 / 16 / 18 / 20 / 21, 131k to
    64M edges: 0.31 / 0.57 / 0.84 / 2.1 / 6.4 / 12.5 ms against 0.49 / 0.59 /
    1.0 / 1.3 / 3.4 / 6.3). BFS passes "persistent": its dense levels are few
    and pulled (kron_s21_e16 0.27 ms against 0.33, 2026-11-27; a 4k-vertex
    graph's whole call 0.13 ms of wall time against 0.18). relaxes: the
    primitive has an async form, which "auto" takes on graphs of small degree
    (ASYNC_MAX_DEGREE), where levels are many and small (up to
    ASYNC_MAX_VERTICES, the largest measured): BFS / SSSP on USA-road-d.NY
    1.3 / 2.0 ms against 1.9 / 6.0 persistent, luxembourg_osm 0.94 / 1.2
    against 4.3 / 6.7, grid_22 10.9 / 19.1 against 17.1 / 28.9; one thread
    walks a vertex's edges, so hubs are slow (kron_s21_e16 BFS 84 ms against
    0.27), and where a vertex has many paths of a few hops it is corrected
    again and again (rgg_n22, at most 37 edges: BFS 74 ms against 10.4).
    last: the iterations of the primitive's last level-synchronous run on this
    graph, where there was one (its Problem's last_iterations): the size of its
    levels, which the degrees only guess at, then decides: the persistent kernel
    where they settled under SMALL_ITERATION (4096) vertices an iteration on
    average, else `dense`.
    SSSP, persistent against CUDA graph, ms (vertices an iteration): rgg_n22
    28.7 / 33.6 (1497), rgg_20 10.9 / 13.8 (726), kron scale 14 0.32 / 0.36
    (1489); kron scale 16 0.55 / 0.43 (6554), kron_s21_e16 6.3 / 4.8 (161k),
    uniform random graphs of mean degree 8 on 2^22 / 2^20 vertices 26.4 /
    20.4 (131k), 4.0 / 2.6 (39k), of 16 on 2^18 1.26 / 1.28 (10k).
    H100, 2026-11-27: `minigr bench primitives` shows every mode."""
    if loop != "auto":
        return loop
    if relaxes and graph.max_out_degree <= ASYNC_MAX_DEGREE and graph.num_vertices <= ASYNC_MAX_VERTICES:
        return "async"
    if last is not None:
        return "persistent" if graph.num_vertices < SMALL_ITERATION * last else dense
    sparse = graph.num_edges < 8 * graph.num_vertices or graph.num_edges < SMALL_EDGES
    return "persistent" if sparse else dense


def persistent_block(graph):
    """Threads a block of a persistent loop's kernel on graph (one block an
    SM, two of 1024): 1024 where levels are big (mean out-degree 8 or more, 2^20 edges or
    more), whose edges more threads take at once (segment_transform's groups
    widen into them); else 256, where a level is a chain of round trips that
    wider blocks only slow. H100, 2026-11-27, persistent BFS / SSSP ms with 256,
    512 and 1024 threads: rgg_n22 13.4 / 40.9, 11.2 / 33.8, 10.4 / 31.5;
    kron_s21_e16 0.49 / 11.6, 0.31 / 7.5, 0.26 / 6.4; but grid_22 16.8 / 29.2,
    17.5 / 29.9, 20.2 / 32.5; USA-road-d.NY 1.95 / 5.9, 1.94 / 5.8, 2.51 / 6.0;
    kron scale 12 (131k edges) 0.09 / 0.22, 0.08 / 0.20, 0.09 / 0.25."""
    return 1024 if graph.num_edges >= max(8 * graph.num_vertices, 1 << 20) else 256


def problem(graph, key, make):
    """The Problem that make() builds, once per graph and key (a primitive's
    name and the options that shape its loop); kept with the graph, so one
    run at a time may use it: callers that may share a graph between threads
    hold graph.lock for the run (as minigr.bfs, ... do). The transpose is made
    first, since a loop captured on the device may not allocate."""
    found = graph.problems.get(key)
    if found is None:
        graph.reverse()
        found = graph.problems[key] = make()
    return found


__all__ = ["Loop", "Problem", "Result", "Start", "Timer", "loop_mode", "problem", "reached_edges_later",
           "wait_reached_edges"]
