"""Operator benchmarks, per graph: (a) advance over every vertex against the
device's copy bandwidth for the bytes it must move; (b) advance over the
frontiers a BFS produces, level by level (MTEPS per level, as in Mini-Gunrock's
Figs 6-7); (c) neighbor_reduce over in-neighbours (one PageRank pull) against
cuSPARSE SpMV and against the same work composed from CuPy calls; (d) a level
loop of advance, decided on the device and on the host (us per level)."""
import numpy

from ..graph import to_host
from . import progress
from .timing import copy_bandwidth, gpu_ms

# Reads each edge's destination and weight; never true (weights are at most 64),
# but the compiler cannot know, so the reads stay.
READ_WEIGHT = dict(cond="return weights[edge] > 64.0f || dst < 0;", apply="hits[0] = 1;")
# A BFS level's advance: keep the destinations the BFS reached at the next level (read-only, so repeatable).
NEXT_LEVEL = dict(cond="return depth[dst] == iteration + 1;")
GATHER = "float operator()(int v, int u, long long edge) const { return x[u]; }"
CLAIM = dict(cond="return atomicCAS(&hops[dst], -1, iteration + 1) == -1;")


def advance_all(inputs, copy, runs, warmup):
    """(a) One row: advance over every vertex, frontier=None, no output."""
    from ..operators import AdvanceFunctor, advance
    graph = inputs.graph
    op = AdvanceFunctor(**READ_WEIGHT, filename="<bench read weight>", weights=graph.weights,
                 hits=graph.xp.zeros(1, numpy.int32))
    ms = gpu_ms(lambda: advance(graph, None, op), runs, warmup)
    nbytes = 8 * (graph.num_vertices + 1) + 4 * graph.num_edges + 4 * graph.num_edges  # offsets, columns, weights
    return {"operator": "advance (all vertices)", "ms": ms, "MB": nbytes / 1e6, "GBps": nbytes / ms / 1e6,
            "copy_GBps": copy, "fraction_of_copy": nbytes / ms / 1e6 / copy,
            "MTEPS": graph.num_edges / ms / 1e3}


def bfs_levels(inputs):
    """Each BFS level's vertex ids (int32), rebuilt on the device from minigr's
    BFS depths: level k = the vertices at depth k. Also returns the depths."""
    from ..apps.bfs import bfs
    xp = inputs.graph.xp
    depth = bfs(inputs.graph, inputs.source).values["depth"]
    order = xp.argsort(depth).astype(numpy.int32)
    levels = int(depth.max()) + 1
    bounds = [int(b) for b in to_host(xp.searchsorted(depth[order], xp.arange(levels + 1)))]
    return [order[bounds[k]:bounds[k + 1]] for k in range(levels)], depth


def advance_levels(inputs, runs, warmup):
    """(b) One row with a record per BFS level: frontier size, edges, ms, MTEPS."""
    from ..frontier import Frontier
    from ..operators import AdvanceFunctor, advance
    levels, depth = bfs_levels(inputs)
    op = AdvanceFunctor(**NEXT_LEVEL, filename="<bench next level>", depth=depth)
    frontier = Frontier(inputs.graph.num_vertices, inputs.graph.device)
    records = []
    for k, ids in enumerate(levels):
        edges = int(inputs.degrees[ids].sum())
        frontier.reset(ids)
        ms = gpu_ms(lambda k=k: advance(inputs.graph, frontier, op, iteration=k), runs, warmup)
        records.append({"level": k, "frontier": len(ids), "edges": edges, "ms": ms,
                        "MTEPS": edges / ms / 1e3 if ms else None})
    total_ms = sum(r["ms"] for r in records)
    total_edges = sum(r["edges"] for r in records)
    return {"operator": "advance (BFS levels)", "ms": total_ms, "MTEPS": total_edges / total_ms / 1e3,
            "peak_MTEPS": max(r["MTEPS"] or 0 for r in records), "iterations": len(records), "levels": records}


def advance_loop_rows(inputs, runs, warmup):
    """(d) A level loop of push advance (reachability: each vertex claimed once),
    its levels decided on the device and on the host: microseconds per level."""
    from ..enactor import Loop
    from ..frontier import Frontier
    from ..operators import AdvanceFunctor, advance
    graph, n = inputs.graph, inputs.graph.num_vertices
    hops = graph.xp.empty(n, dtype=numpy.int32)
    visit = AdvanceFunctor(**CLAIM, filename="<bench claim>", hops=hops)
    frontier = Frontier(n, graph.device, capacity=n)
    loop = Loop("bench reach", graph.device, lambda: advance(graph, frontier, visit, out=frontier,
                                                             iteration=loop.iteration), frontier.not_empty())

    def reach(where):
        hops.fill(-1)
        hops[inputs.source] = 0
        frontier.reset(inputs.source)
        loop.run(where, n)

    rows = []
    for where in ("persistent", "device", "host"):
        ms = gpu_ms(lambda: reach(where), runs, warmup)
        levels, _ = loop.wait_iterations()
        rows.append({"operator": "advance level loop", "system": f"minigr, {where} loop", "ms": ms,
                     "iterations": levels, "us_per_iteration": 1e3 * ms / levels,
                     "MTEPS": graph.num_edges / ms / 1e3,
                     "loop_build_ms": loop.build_ms if where != "host" else None})
    return rows


def reduce_systems(inputs):
    """(c) name -> run() for the pull of one PageRank iteration in float32: sum of
    x over each vertex's in-neighbours, minigr first."""
    import cupy
    from ..operators import neighbor_reduce
    from ..transforms import Functor
    graph = inputs.graph
    x = cupy.asarray(numpy.random.default_rng(7).random(graph.num_vertices, dtype=numpy.float32))
    gather = Functor(GATHER, filename="<bench gather>", x=x)
    in_adjacency = inputs.in_adjacency(numpy.float32)
    reverse = graph.reverse()

    def composed():
        sums = cupy.concatenate([cupy.zeros(1), cupy.cumsum(x[reverse.col_indices], dtype=numpy.float64)])
        return (sums[reverse.row_offsets[1:]] - sums[reverse.row_offsets[:-1]]).astype(numpy.float32)

    return {"minigr neighbor_reduce": lambda: neighbor_reduce(graph, gather, direction="in", dtype=numpy.float32),
            "cuSPARSE SpMV (cupyx)": lambda: in_adjacency @ x,
            "CuPy composed (gather + cumsum)": composed}


def neighbor_reduce_rows(inputs, runs, warmup):
    """(c) One row per system, each validated against the SpMV result."""
    import cupy
    systems = reduce_systems(inputs)
    reference = systems["cuSPARSE SpMV (cupyx)"]()
    rows = []
    for name, fn in systems.items():
        row = {"operator": "neighbor_reduce (in, sum)", "system": name}
        try:
            row["ms"] = gpu_ms(fn, runs, warmup)
            row["MTEPS"] = inputs.graph.num_edges / row["ms"] / 1e3
            row["validated"] = bool(cupy.allclose(fn(), reference, rtol=1e-4, atol=1e-5))
            row["check"] = ("ok" if row["validated"] else "MISMATCH") + " vs cuSPARSE SpMV"
        except Exception as exc:  # one system's failure must not stop the others
            row["error"] = f"{type(exc).__name__}: {exc}"
        rows.append(row)
    minigr_ms = rows[0].get("ms")
    for row in rows[1:]:
        if minigr_ms and row.get("ms"):
            row["minigr_speedup"] = row["ms"] / minigr_ms
    return rows


def run(args, graphs):
    """Rows for (a), (b), (c) on each graph (name -> spec); prints the tables."""
    import cupy
    copy = copy_bandwidth(1 << 30, args.runs, args.warmup)
    print(f"device-to-device copy {copy:.0f} GB/s (read + write)")
    rows = []
    for name, spec in graphs.items():
        try:
            rows += _graph_rows(name, spec, copy, args.runs, args.warmup)
        except Exception as exc:  # a graph that fails to load or run must not stop the others
            print(f"\n{name}: error: {type(exc).__name__}: {exc}")
            rows.append({"suite": "operators", "graph": name, "error": f"{type(exc).__name__}: {exc}"})
        cupy.get_default_memory_pool().free_all_blocks()
    return rows


def _graph_rows(name, spec, copy, runs, warmup):
    import cupy
    from .graphs import Inputs
    from .report import OPERATOR_COLUMNS, format_table
    progress(f"operators: loading {name} ...")
    inputs = Inputs(name, spec)
    rows = []
    for label, make in (("advance (all vertices)", lambda: [advance_all(inputs, copy, runs, warmup)]),
                        ("advance (BFS levels)", lambda: [advance_levels(inputs, runs, warmup)]),
                        ("advance level loop", lambda: advance_loop_rows(inputs, runs, warmup)),
                        ("neighbor_reduce", lambda: neighbor_reduce_rows(inputs, runs, warmup))):
        progress(f"operators: {name} {label} ...")
        try:
            made = make()
        except Exception as exc:  # report and go on with the next measurement
            made = [{"operator": label, "error": f"{type(exc).__name__}: {exc}"}]
            cupy.get_default_memory_pool().free_all_blocks()
        rows += [dict(suite="operators", graph=name, vertices=inputs.graph.num_vertices,
                      edges=inputs.graph.num_edges, system=r.pop("system", "minigr"), **r) for r in made]
    print(f"\n{name}: {inputs.graph.num_vertices} vertices, {inputs.graph.num_edges} directed edges")
    print(format_table(rows, OPERATOR_COLUMNS))
    for row in rows:
        if row.get("levels"):
            print(format_levels(row))
    return rows


def format_levels(row, shown=20):
    """The per-level table of a row with `levels`; above `shown` levels, the first
    and the peak ones only (all are in --json and --plot)."""
    from .report import LEVEL_COLUMNS, format_table
    levels = row["levels"]
    if len(levels) <= shown:
        return format_table(levels, LEVEL_COLUMNS)
    peak = sorted(sorted(levels, key=lambda r: -(r["MTEPS"] or 0))[: shown // 2], key=lambda r: r["level"])
    first = [r for r in levels[: shown // 2] if r not in peak]
    return (format_table(sorted(first + peak, key=lambda r: r["level"]), LEVEL_COLUMNS)
            + f"\n({len(levels)} levels: the first and the fastest shown; all in --json / --plot)")
