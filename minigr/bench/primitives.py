"""Primitive benchmarks: each primitive of the catalog (minigr.catalog) side by
side with what a Python user would write instead, as its record's BenchCases
list them (the alternatives live in minigr/alternatives.py or in the app's own
file), in one process, every result validated.

Timing: GPU systems, the median of --runs runs after --warmup untimed ones,
CUDA events around the work (minigr: the app's Result.ms); CPU systems, and GPU
ones marked `once` (those taking seconds), run once.
MTEPS is stored directed edges / time for every system (graph.num_edges / ms / 1000).
minigr runs with its loop on the device and, for primitives that loop, on the
host (us per iteration shows what a level costs each way); its first call,
which builds the device loop, is reported apart. Traversals also get one
extra run timed level by level.
"""
import time

import numpy

from ..catalog import System
from ..graph import to_host
from . import progress


def minigr_systems(app, case):
    """minigr on a case: its default loop (first: the row others compare
    with) and, for a primitive that loops, every other mode of its loop."""
    def system(name, loop):
        def run(inputs, trace=None):
            if trace is not None:
                return case.traced(inputs, trace)
            source = (inputs.source,) if app.sourced else ()
            result = app.run(inputs.graph, *source, **case.options, **({"loop": loop} if loop else {}))
            return {**result.values, **result.extra}[case.key], result.ms, result.iterations
        return System(name, "gpu", run, traced=case.traced is not None)
    if not app.loops:
        return [system("minigr", None)]
    default = app.parameters["loop"].default
    return [system("minigr", default)] + [system(f"minigr, {mode} loop", mode) for mode in app.loop_modes
                                          if mode != default]


def cases():
    """(app, case, systems) of every BenchCase in the catalog: minigr first, then the alternatives."""
    from .. import apps
    return [(app, case, minigr_systems(app, case) + list(case.alternatives))
            for app in apps.records().values() for case in app.bench]


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


def _run_system(system, inputs, runs, warmup, app, traversal):
    """A row for one system (values kept aside for validation); errors go into the row."""
    row = {"system": system.name, "device": system.device}
    reason = system.skip(inputs) if system.skip else None
    if reason:
        return {**row, "error": reason}, None
    try:
        if system.device == "cpu" or system.once:
            runs, warmup = 1, 0
        values, ms, iterations, first_ms = measure(lambda: system.run(inputs), runs, warmup)
        row.update(ms=ms, MTEPS=inputs.graph.num_edges / ms / 1e3 if ms else None, iterations=iterations,
                   us_per_iteration=1e3 * ms / iterations if iterations else None, runs=runs)
        if system.name == "minigr":  # its first call builds the loop: capture and instantiation, kernels loaded
            row.update(first_call_ms=first_ms, loop_build_ms=_loop_build_ms(inputs.graph, app.name))
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


def _loop_build_ms(graph, name):
    """Host ms that the latest-built device loop of primitive `name` on `graph` took to capture and
    instantiate; None for a primitive that does not loop."""
    loops = [problem.loop for problem in graph.problems.values() if problem.name == name and hasattr(problem, "loop")]
    built = [loop.build_ms for loop in loops if loop.build_ms is not None]
    return built[-1] if built else None


def validate(rows, values, case, inputs):
    """Fills validated/check on each row: against the reference system's result,
    else (it failed) against minigr's; with case.verify, each is checked, and
    scored against the reference where case.score says how."""
    reference_name, compare = case.reference, case.compare
    if case.verify is not None:
        _verify_each(rows, values, case, inputs)
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


def _verify_each(rows, values, case, inputs):
    """Rows whose results may differ: each verified, its score (case.score) noted and
    set against the reference system's."""
    column, score = case.score or (None, None)
    scores = {row["system"]: score(v, inputs) for row, v in zip(rows, values) if v is not None and score}
    reference = scores.get(case.reference)
    for row, v in zip(rows, values):
        if v is None:
            continue
        row["validated"] = case.verify(v, inputs)
        row["check"] = "verified" if row["validated"] else "FAILED verification"
        if score:
            row[column] = scores[row["system"]]
            if reference and row["validated"] and row["system"] != case.reference:
                row["check"] += f", {row[column] / reference:.2f}x the {column} of {case.reference}"


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
    for app, case, systems in cases():
        if "undirected" in app.needs and inputs.graph.directed:
            continue
        results = []
        for system in systems:
            progress(f"primitives: {name} {case.label} {system.name} ...")
            results.append(_run_system(system, inputs, runs, warmup, app, traversal=case.traced is not None))
        primitive_rows = [dict(suite="primitives", graph=name, vertices=inputs.graph.num_vertices,
                               edges=inputs.graph.num_edges, primitive=case.label, **row) for row, _ in results]
        validate(primitive_rows, [values for _, values in results], case, inputs)
        minigr_ms = primitive_rows[0].get("ms")
        for row in primitive_rows[1:]:
            if minigr_ms and row.get("ms"):
                row["minigr_speedup"] = row["ms"] / minigr_ms
        rows += primitive_rows
    print(f"\n{name}: {inputs.graph.num_vertices} vertices, {inputs.graph.num_edges} directed edges, "
          f"source {inputs.source}")
    print(format_table(rows, PRIMITIVE_COLUMNS))
    return rows
