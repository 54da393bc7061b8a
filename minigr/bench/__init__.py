"""`minigr bench`: benchmarks that print numbers (median of runs after warm-up,
timed with CUDA events), side by side with what a Python user would do instead.

Suites: transforms (transforms.py), operators (operators.py), primitives
(primitives.py, alternatives.py), load (load.py), all, and scaling over
several GPUs (scaling.py; not in all). Tables go to stdout, progress to stderr
when it is a terminal, --json appends JSON lines, --plot writes PNGs."""
import os
import sys

from ..transforms.backend import resolve_device
from ..transforms.errors import MinigrError

SUITES = ("transforms", "operators", "primitives", "load", "all", "scaling")
QUICK_MAX_LOG2 = 22


def add_arguments(p):
    p.add_argument("suite", choices=SUITES, help="what to measure (all: each suite in turn)")
    p.add_argument("--graph", action="append", metavar="GRAPH",
                   help="a graph file or generator spec (repeatable); default: kron_s21_e16, rgg_n22, grid_22")
    p.add_argument("--quick", action="store_true",
                   help=f"a first try: small graphs (scale 16), transforms up to 2^{QUICK_MAX_LOG2}, 3 runs, 1 warm-up")
    p.add_argument("--runs", type=int, help="timed runs per measurement, median reported (default 10)")
    p.add_argument("--warmup", type=int, help="untimed runs first (default 3)")
    p.add_argument("--max-log2", type=int, help="largest size, as a power of two (transforms; default 27, "
                   f"{QUICK_MAX_LOG2} with --quick)")
    p.add_argument("--gpus", type=int, metavar="N", help="scaling: the GPUs to split over (default: all)")
    p.add_argument("--json", metavar="FILE", help="append one JSON object per measurement to FILE")
    p.add_argument("--plot", metavar="DIR", help="write PNG plots to DIR (needs minigr[plot])")
    return p


def check_arguments(args):
    """The arguments' problems as a MinigrError, before any GPU work; returns
    the graphs (name -> spec) the graph suites run on."""
    from .graphs import selected
    if args.runs is None:
        args.runs = 3 if args.quick else 10
    if args.warmup is None:
        args.warmup = 1 if args.quick else 3
    if args.runs < 1 or args.warmup < 0:
        raise MinigrError("--runs must be at least 1 and --warmup at least 0")
    if args.gpus is not None and args.gpus < 1:
        raise MinigrError(f"--gpus must be at least 1, got {args.gpus}")
    if args.max_log2 is None:
        args.max_log2 = QUICK_MAX_LOG2 if args.quick else 27
    if not 20 <= args.max_log2 <= 31:
        raise MinigrError("--max-log2 must lie between 20 and 31")
    if args.json:
        _check_appendable(args.json)
    if args.plot:
        if os.path.exists(args.plot) and not os.path.isdir(args.plot):
            raise MinigrError(f"--plot {args.plot} is a file; give a folder for the plots")
        from .report import require_matplotlib
        require_matplotlib()
    return selected(args.graph, args.quick)


def _check_appendable(path):
    """A MinigrError where --json cannot take lines, found before an hour of measuring would
    be lost at its end: the file is opened for appending now (made, empty, where missing)."""
    if os.path.isdir(path):
        raise MinigrError(f"--json {path} is a folder; give a file name")
    try:
        open(path, "a").close()
    except OSError as exc:
        raise MinigrError(f"--json {path}: cannot write it ({exc.strerror or exc})") from None


def run(args):
    graphs = check_arguments(args)
    if resolve_device() != "gpu":
        raise MinigrError("benchmarks time the GPU, and there is none here (minigr doctor says why)")
    from . import report
    suites = ("transforms", "operators", "primitives", "load") if args.suite == "all" else (args.suite,)
    env = report.environment()
    print(f"{env['device_name']}, driver {env['driver_version']}, CuPy {env['cupy_version']}, "
          f"minigr {env['minigr_version']}")
    rows = []
    for suite in suites:
        print(f"\n== {suite} ==")
        if suite == "transforms":
            from . import transforms
            suite_rows = transforms.run(args)
        elif suite == "operators":
            from . import operators
            suite_rows = operators.run(args, graphs)
        elif suite == "load":
            from . import load
            suite_rows = load.run(args, graphs)
        elif suite == "scaling":
            from . import scaling
            suite_rows = scaling.run(args, graphs)
        else:
            from . import primitives
            suite_rows = primitives.run(args, graphs)
        if args.json:
            report.write_json(args.json, suite_rows, env)
        rows += suite_rows
    if args.plot:
        for path in report.plot(rows, args.plot):
            print(f"wrote {path}")
    return 0


def progress(message):
    """A progress line on a terminal; nothing when piped."""
    if sys.stderr.isatty():
        print(message, file=sys.stderr, flush=True)
