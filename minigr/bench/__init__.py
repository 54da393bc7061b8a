"""`minigr bench`: benchmarks that print numbers (median of runs after warm-up,
timed with CUDA events), side by side with what a Python user would do instead."""
import json
import sys

from ..transforms.backend import resolve_device
from ..transforms.errors import MinigrError


def add_arguments(p):
    p.add_argument("suite", choices=["transforms"], help="what to measure")
    p.add_argument("--runs", type=int, default=10, help="timed runs per measurement (median reported)")
    p.add_argument("--warmup", type=int, default=3, help="untimed runs first")
    p.add_argument("--max-log2", type=int, default=27, help="largest size, as a power of two (transforms)")
    p.add_argument("--json", metavar="FILE", help="append one JSON object per measurement to FILE")
    return p


def run(args):
    if resolve_device() != "gpu":
        raise MinigrError("benchmarks time the GPU, and there is none here (minigr doctor says why)")
    if args.runs < 1 or args.warmup < 0:
        raise MinigrError("--runs must be at least 1 and --warmup at least 0")
    from . import transforms
    rows = transforms.run(args)
    if args.json:
        with open(args.json, "a") as f:
            for row in rows:
                f.write(json.dumps(row) + "\n")
    return 0


def progress(message):
    """A progress line on a terminal; nothing when piped."""
    if sys.stderr.isatty():
        print(message, file=sys.stderr, flush=True)
