"""Benchmark output: plain-text tables, JSON lines with the environment, and
plots (matplotlib, imported only when --plot asks for them)."""
import collections
import json
import os
import re

from ..transforms.errors import MinigrError

# header; row key; format of a value; left-aligned. A row's "error" takes the last column.
Column = collections.namedtuple("Column", "header key format left", defaults=(False,))

PRIMITIVE_COLUMNS = [Column("primitive", "primitive", "{}", True), Column("system", "system", "{}", True),
                     Column("ms", "ms", "{:.3f}"), Column("MTEPS", "MTEPS", "{:.0f}"),
                     Column("iters", "iterations", "{}"), Column("us/iter", "us_per_iteration", "{:.1f}"),
                     Column("colors", "colors", "{}"), Column("first call ms", "first_call_ms", "{:.1f}"),
                     Column("loop build ms", "loop_build_ms", "{:.1f}"),
                     Column("peak level MTEPS", "peak_MTEPS", "{:.0f}"),
                     Column("minigr speedup", "minigr_speedup", "{:.1f}x"), Column("check", "check", "{}", True)]
OPERATOR_COLUMNS = [Column("operator", "operator", "{}", True), Column("system", "system", "{}", True),
                    Column("ms", "ms", "{:.3f}"), Column("MTEPS", "MTEPS", "{:.0f}"),
                    Column("MB moved", "MB", "{:.0f}"), Column("GB/s", "GBps", "{:.0f}"),
                    Column("of copy", "fraction_of_copy", "{:.0%}"),
                    Column("levels", "iterations", "{}"), Column("us/level", "us_per_iteration", "{:.1f}"),
                    Column("loop build ms", "loop_build_ms", "{:.1f}"),
                    Column("peak level MTEPS", "peak_MTEPS", "{:.0f}"),
                    Column("minigr speedup", "minigr_speedup", "{:.1f}x"), Column("check", "check", "{}", True)]
LEVEL_COLUMNS = [Column("level", "level", "{}"), Column("frontier", "frontier", "{}"), Column("edges", "edges", "{}"),
                 Column("ms", "ms", "{:.4f}"), Column("MTEPS", "MTEPS", "{:.0f}")]


def format_table(rows, columns):
    """Rows (dicts) as an aligned text table; a missing value shows as '-', and a
    row's error in place of its last column."""
    cells = []
    for row in rows:
        line = ["-" if row.get(c.key) is None else c.format.format(row[c.key]) for c in columns]
        if row.get("error"):
            line[-1] = f"error: {row['error']}" if not row["error"].startswith("skipped") else row["error"]
        cells.append(line)
    widths = [max([len(c.header)] + [len(line[i]) for line in cells]) for i, c in enumerate(columns)]

    def join(values):
        return "  ".join(v.ljust(w) if c.left else v.rjust(w) for v, w, c in zip(values, widths, columns)).rstrip()

    return "\n".join([join([c.header for c in columns])] + [join(line) for line in cells])


def environment():
    """Device name, driver and CUDA runtime versions, CuPy and minigr versions."""
    import cupy

    from .. import __version__
    runtime = cupy.cuda.runtime
    return {"device_name": runtime.getDeviceProperties(cupy.cuda.Device().id)["name"].decode(),
            "driver_version": runtime.driverGetVersion(), "runtime_version": runtime.runtimeGetVersion(),
            "cupy_version": cupy.__version__, "minigr_version": __version__}


def write_json(path, rows, env):
    """Appends one JSON object per row, with the environment, to `path`."""
    with open(path, "a") as f:
        for row in rows:
            f.write(json.dumps({**env, **row}) + "\n")


def require_matplotlib():
    """matplotlib.pyplot with a file-only backend, or a MinigrError saying how to get it."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as pyplot
    except ImportError as exc:
        raise MinigrError(f"--plot needs matplotlib ({exc}); install minigr[plot]") from None
    return pyplot


def _filename(*parts):
    return "_".join(re.sub(r"[^A-Za-z0-9.-]+", "_", part).strip("_") for part in parts) + ".png"


def plot(rows, directory):
    """Writes PNGs to `directory`: per-level MTEPS against the share of edges
    visited so far, one per traversal (or BFS-level advance) and graph with a
    line per system (as Mini-Gunrock's Figs 6-7); and a bar chart of minigr's
    speedups over the alternatives. Returns the paths written."""
    pyplot = require_matplotlib()
    os.makedirs(directory, exist_ok=True)
    written = []
    groups = collections.defaultdict(list)
    for row in rows:
        if row.get("levels"):
            groups[(row["suite"], row["graph"], row.get("primitive") or row.get("operator"))].append(row)
    for (suite, graph, what), group in groups.items():
        fig, ax = pyplot.subplots(figsize=(7, 4))
        for row in group:
            levels = row["levels"]
            total = sum(r["edges"] for r in levels) or 1
            visited, shares = 0, []
            for r in levels:
                visited += r["edges"]
                shares.append(100 * visited / total)
            ax.plot(shares, [r["MTEPS"] or 0 for r in levels], marker="." if len(levels) < 50 else None,
                    label=row["system"])
        ax.set(xlabel="edges visited so far (%)", ylabel="MTEPS of the level", title=f"{what} per level, {graph}")
        ax.legend()
        written.append(_save(fig, pyplot, directory, _filename(suite, what, graph)))
    speedups = [r for r in rows if r.get("minigr_speedup")]
    if speedups:
        labels = [f"{r['graph']} {r.get('primitive') or r.get('operator')}: {r['system']}" for r in speedups]
        fig, ax = pyplot.subplots(figsize=(8, 0.3 * len(speedups) + 1.5))
        ax.barh(range(len(speedups)), [r["minigr_speedup"] for r in speedups])
        ax.set_yticks(range(len(speedups)), labels, fontsize=7)
        ax.invert_yaxis()
        ax.set_xscale("log")
        ax.axvline(1, color="black", linewidth=0.8)
        ax.set(xlabel="minigr speedup (alternative ms / minigr ms, log scale)", title="minigr over the alternatives")
        written.append(_save(fig, pyplot, directory, "speedups.png"))
    return written


def _save(fig, pyplot, directory, name):
    path = os.path.join(directory, name)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    pyplot.close(fig)
    return path
