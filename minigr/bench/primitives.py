"""Primitive benchmarks: minigr's BFS, SSSP, PageRank and coloring side by side
with what a Python user would write instead (alternatives.py), in one process,
every result validated.

Timing: GPU systems, the median of --runs runs after --warmup untimed ones,
CUDA events around the work (minigr: the app's Result.ms); CPU systems run once.
MTEPS is stored directed edges / time for every system (graph.num_edges / ms / 1000).
minigr runs with its loop on the device and on the host (us per iteration shows
what a level costs each way); its first call, which builds the device loop, is
reported apart. Traversals also get one extra run timed level by level.
"""
import collections
import time

import numpy

from ..graph import to_host
from . import alternatives as alt
from . import progress

NETWORKX_MAX_EDGES = 1_000_000
PAGERANK_TOL = 1e-9     # "to convergence": networkx's criterion, L1 change < n * tol
PAGERANK_MAX_ITER = 1000

# name; device ("gpu" or "cpu"); run(inputs, trace) -> (values, ms, iterations), trace None or a list
# for per-level records (only where traced); skip(inputs) -> a reason not to run, or None.
System = collections.namedtuple("System", "name device run traced skip", defaults=(False, None))


def _app(result, key):
    return result.values[key], result.ms, result.iterations


def _minigr_levels(inputs, trace, relax):
    """minigr's push advance run level by level, each level timed with CUDA
    events into `trace`: BFS (atomic visit) or, with relax, SSSP (relaxation,
    each vertex once a level). Returns (values, None, levels): only the trace is timed."""
    from ..apps.bfs import VISIT
    from ..apps.sssp import RELAX
    from ..frontier import Frontier
    from ..operators import advance
    from ..transforms import Functor
    graph, n = inputs.graph, inputs.graph.num_vertices
    if relax:
        values = graph.xp.full(n, numpy.inf, dtype=numpy.float32)
        op = Functor(RELAX, filename="<sssp relax>", dist=values, weights=graph.weights)
    else:
        values = graph.xp.full(n, -1, dtype=numpy.int32)
        op = Functor(VISIT, filename="<bfs visit>", depth=values, parent=graph.xp.full(n, -1, dtype=numpy.int32))
    values[inputs.source] = 0
    frontier, level = Frontier.from_ids(inputs.source, n, graph.device), 0
    while size := frontier.wait_size():
        edges = int(inputs.degrees[frontier.wait_ids()].sum())
        with alt.timed_level(trace, size, edges):
            advance(graph, frontier, op, out=frontier, iteration=level, unique=relax)
        frontier.next_level()
        level += 1
    return values, None, level


def _minigr(primitive, key, loop, **options):
    """run(inputs, trace=None) of a minigr primitive with its loop on the device
    or the host; traced runs go level by level (_minigr_levels)."""
    def run(inputs, trace=None):
        import importlib
        if trace is not None:
            return _minigr_levels(inputs, trace, relax=primitive == "sssp")
        app = getattr(importlib.import_module(f"minigr.apps.{primitive}"), primitive)
        source = (inputs.source,) if primitive in ("bfs", "sssp") else ()
        return _app(app(inputs.graph, *source, loop=loop, **options), key)
    return run


def _minigr_systems(primitive, key, **options):
    """minigr with its loop on the device (first: the row others compare with) and on the host."""
    return [System("minigr", "gpu", _minigr(primitive, key, "device", **options), traced=primitive != "pagerank"),
            System("minigr, host loop", "gpu", _minigr(primitive, key, "host", **options))]


def _too_big_for_networkx(inputs):
    m = inputs.graph.num_edges
    return f"skipped: {m} edges > {NETWORKX_MAX_EDGES} (networkx)" if m > NETWORKX_MAX_EDGES else None


def _pagerank_systems(tol, max_iter):
    options = dict(tol=tol, max_iter=max_iter)
    return _minigr_systems("pagerank", "rank", **options) + [
        System("CuPy SpMV (cuSPARSE)", "gpu", lambda i, trace=None: alt.pagerank_spmv(
            i.in_adjacency(numpy.float64), i.degrees, **options)),
        System("SciPy SpMV (CPU)", "cpu", lambda i, trace=None: alt.pagerank_spmv(
            i.scipy_in_ones, to_host(i.degrees), **options)),
        System("networkx (CPU)", "cpu", lambda i, trace=None: alt.pagerank_networkx(i.networkx, **options),
               skip=_too_big_for_networkx),
    ]


def _same(values, reference):
    return bool(numpy.array_equal(values, reference))


def _close(values, reference):
    return bool(numpy.allclose(values, reference, rtol=1e-5))


def _l1_close(values, reference):
    return bool(numpy.abs(values - reference).sum() < 1e-5)


def proper_coloring(colors, inputs):
    """Whether every vertex is colored and no edge (self-loops aside) joins two of one color."""
    graph = inputs.graph
    colors = graph.xp.asarray(colors)
    sources, targets = graph.edge_sources(), graph.col_indices
    clash = (colors[sources] == colors[targets]) & (sources != targets)
    return bool((colors >= 0).all()) and not bool(clash.any())


GREEDY = "largest-first greedy (CPU)"
# primitive -> (systems, name of the reference system, compare(values, reference)). The first
# system is minigr; colorings differ and need not match: proper_coloring checks each, and its
# colors are set against the greedy reference's.
PRIMITIVES = {
    "bfs": (_minigr_systems("bfs", "depth") + [
             System("CuPy SpMV (cuSPARSE)", "gpu", lambda i, trace=None: alt.bfs_spmv(
                 i.in_adjacency(numpy.float32), i.degrees, i.source, trace), traced=True),
             System("CuPy composed", "gpu", lambda i, trace=None: alt.bfs_cupy(
                 i.graph.row_offsets, i.graph.col_indices, i.source, trace), traced=True),
             System("SciPy csgraph (CPU)", "cpu", lambda i, trace=None: alt.bfs_scipy(i.scipy, i.source))],
            "SciPy csgraph (CPU)", _same),
    "sssp": (_minigr_systems("sssp", "distance") + [
              System("CuPy composed (scatter_min)", "gpu", lambda i, trace=None: alt.sssp_cupy(
                  i.graph.row_offsets, i.graph.col_indices, i.graph.weights, i.source, trace), traced=True),
              System("SciPy csgraph Dijkstra (CPU)", "cpu", lambda i, trace=None: alt.sssp_scipy(i.scipy, i.source))],
             "SciPy csgraph Dijkstra (CPU)", _close),
    # tol=inf stops after the first iteration
    "pagerank 1 iteration": (_pagerank_systems(numpy.inf, 1), "SciPy SpMV (CPU)", _l1_close),
    f"pagerank tol {PAGERANK_TOL:g}": (_pagerank_systems(PAGERANK_TOL, PAGERANK_MAX_ITER), "SciPy SpMV (CPU)",
                                       _l1_close),
    "color": (_minigr_systems("color", "color") + [
               System("CuPy composed JP (scatter_max)", "gpu", lambda i, trace=None: alt.color_cupy(
                   i.graph.row_offsets, i.graph.col_indices)),
               System(GREEDY, "cpu", lambda i, trace=None: alt.color_greedy(i.graph))],
              GREEDY, None),
}


def measure(fn, runs, warmup):
    """Calls fn() warmup + runs times: (values of the last run, median ms,
    iterations, host wall ms of the first call)."""
    times = []
    for i in range(warmup + runs):
        start = time.perf_counter()
        values, ms, iterations = fn()
        if i == 0:
            first_ms = (time.perf_counter() - start) * 1e3
        if i >= warmup:
            times.append(ms)
    return values, float(numpy.median(times)), iterations, first_ms


def _run_system(system, inputs, runs, warmup, traversal):
    """A row for one system (values kept aside for validation); errors go into the row."""
    row = {"system": system.name, "device": system.device}
    reason = system.skip(inputs) if system.skip else None
    if reason:
        return {**row, "error": reason}, None
    try:
        if system.device == "cpu":
            runs, warmup = 1, 0
        values, ms, iterations, first_ms = measure(lambda: system.run(inputs), runs, warmup)
        row.update(ms=ms, MTEPS=inputs.graph.num_edges / ms / 1e3 if ms else None, iterations=iterations,
                   us_per_iteration=1e3 * ms / iterations if iterations else None, runs=runs)
        if system.name == "minigr":  # its first call builds the loop: capture and instantiation, kernels loaded
            row.update(first_call_ms=first_ms, loop_build_ms=_loop_build_ms(inputs.graph))
        if traversal and system.traced:
            trace = []
            system.run(inputs, trace)
            row["levels"] = trace
            row["peak_MTEPS"] = max((r["MTEPS"] or 0 for r in trace), default=None)
        return row, to_host(values)
    except Exception as exc:  # one system's failure must not stop the others
        import cupy
        cupy.get_default_memory_pool().free_all_blocks()
        return {**row, "error": f"{type(exc).__name__}: {exc}"}, None


def _loop_build_ms(graph):
    """Host ms that the latest-built device loop on `graph` took to capture and instantiate."""
    built = [problem.loop.build_ms for problem in graph.problems.values() if problem.loop.build_ms is not None]
    return built[-1] if built else None


def validate(rows, values, reference_name, compare, inputs):
    """Fills validated/check on each row: against the reference system's result,
    else (it failed) against minigr's; coloring (compare None): each result must be
    proper, and its colors are counted, as a multiple of the reference's."""
    if compare is None:
        _check_colorings(rows, values, reference_name, inputs)
        return
    names = [row["system"] for row in rows]
    by_name = dict(zip(names, values))
    against = reference_name if by_name.get(reference_name) is not None else "minigr"
    reference = by_name.get(against)
    for row, v in zip(rows, values):
        if v is None:
            continue
        if row["system"] == against:
            row["validated"], row["check"] = against == reference_name, "reference"
        elif reference is None:
            row["validated"], row["check"] = False, "no reference result"
        else:
            row["validated"] = compare(v, reference)
            row["check"] = ("ok" if row["validated"] else "MISMATCH") + f" vs {against}"


def _check_colorings(rows, values, reference_name, inputs):
    """Each coloring's rows: its colors, whether it is proper, and its colors over the reference's."""
    colors = {row["system"]: int(v.max()) + 1 if len(v) else 0 for row, v in zip(rows, values) if v is not None}
    reference = colors.get(reference_name)
    for row, v in zip(rows, values):
        if v is None:
            continue
        row["colors"] = colors[row["system"]]
        row["validated"] = proper_coloring(v, inputs)
        row["check"] = "proper coloring" if row["validated"] else "NOT a proper coloring"
        if reference and row["validated"] and row["system"] != reference_name:
            row["check"] += f", {row['colors'] / reference:.2f}x the greedy colors"


def run(args, graphs):
    """Rows for every primitive and system on each graph (name -> spec); prints a table per graph."""
    import cupy
    rows = []
    for name, spec in graphs.items():
        try:
            rows += _graph_rows(name, spec, args.runs, args.warmup)
        except Exception as exc:  # a graph that fails to load or run must not stop the others
            print(f"\n{name}: error: {type(exc).__name__}: {exc}")
            rows.append({"suite": "primitives", "graph": name, "error": f"{type(exc).__name__}: {exc}"})
        cupy.get_default_memory_pool().free_all_blocks()
    return rows


def _graph_rows(name, spec, runs, warmup):
    from .graphs import Inputs
    from .report import PRIMITIVE_COLUMNS, format_table
    progress(f"primitives: loading {name} ...")
    inputs = Inputs(name, spec)
    rows = []
    for primitive, (systems, reference, compare) in PRIMITIVES.items():
        results = []
        for system in systems:
            progress(f"primitives: {name} {primitive} {system.name} ...")
            results.append(_run_system(system, inputs, runs, warmup, traversal=primitive in ("bfs", "sssp")))
        primitive_rows = [dict(suite="primitives", graph=name, vertices=inputs.graph.num_vertices,
                               edges=inputs.graph.num_edges, primitive=primitive, **row) for row, _ in results]
        validate(primitive_rows, [values for _, values in results], reference, compare, inputs)
        minigr_ms = primitive_rows[0].get("ms")
        for row in primitive_rows[1:]:
            if minigr_ms and row.get("ms"):
                row["minigr_speedup"] = row["ms"] / minigr_ms
        rows += primitive_rows
    print(f"\n{name}: {inputs.graph.num_vertices} vertices, {inputs.graph.num_edges} directed edges, "
          f"source {inputs.source}")
    print(format_table(rows, PRIMITIVE_COLUMNS))
    return rows
