"""The `minigr` command. User mistakes end in a one-line message and a non-zero
exit code, never a traceback."""
import argparse
import errno
import functools
import json
import os
import stat
import statistics
import sys
import tempfile

import numpy as np

from . import __version__, apps, io
from .arguments import check_source
from .graph import to_host
from .reorder import METHODS
from .transforms.backend import gpu_unavailable_reason, resolve_device
from .transforms.errors import DeviceError, MinigrError
from .transforms.files import write_atomically

DEFAULT_GRAPH = "kron:scale=18,edge_factor=16,seed=1"
LOAD_DEFAULTS = dict(directed=None, symmetrize=False, remove_self_loops=False, remove_duplicates=False,
                     weights="keep", weight_seed=0, cache=True)


def _doctor(args):
    from . import doctor
    return doctor.clear_cache() if args.clear_cache else doctor.run()


def _bench(args):
    from . import bench
    return bench.run(args)


class _Parser(argparse.ArgumentParser):
    """argparse without abbreviated options: `--sourc 3` is a mistake, not --source (and stays
    one when a later option shares the prefix)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, allow_abbrev=False, **kwargs)


def parser():
    p = _Parser(prog="minigr", description="Transform-based GPU graph analytics.")
    p.add_argument("--version", action="version", version=f"minigr {__version__}")
    commands = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    doctor = commands.add_parser(
        "doctor", help="report GPU, NVRTC, compiler and cache; compile every built-in kernel")
    doctor.add_argument("--clear-cache", action="store_true",
                        help="remove minigr's compiled kernels from the kernel cache (nothing else) and exit")
    doctor.set_defaults(run=_doctor)
    from .bench import add_arguments
    add_arguments(commands.add_parser("bench", help="benchmarks, side by side with what users would do instead")
                  ).set_defaults(run=_bench)
    for app in apps.records().values():
        _add_primitive(commands, app)
    return p


def main(argv=None):
    args = parser().parse_args(argv)
    try:
        status = args.run(args)
        sys.stdout.flush()  # a closed or full stdout shows here, while a message can still be given
        return status
    except OSError as exc:
        if exc.errno not in (errno.EPIPE, errno.ENOSPC) or exc.filename is not None:
            raise
        _stdout_to_nowhere()
        print(f"minigr: error: cannot write to stdout ({exc.strerror})", file=sys.stderr)
        return 2
    except MinigrError as exc:
        print(f"minigr: error: {exc}", file=sys.stderr)
        return 2
    except MemoryError as exc:  # CuPy's OutOfMemoryError is one
        print(f"minigr: error: out of memory ({exc}); try a smaller graph or free GPU memory", file=sys.stderr)
        return 3
    except KeyboardInterrupt:
        print("minigr: interrupted", file=sys.stderr)
        return 130


def _stdout_to_nowhere():
    """Point stdout's file at /dev/null, so that what is left in its buffer is not written
    again (and fails again, with a traceback) when Python exits."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):  # a stdout with no file descriptor (under a test's capture)
        pass


def _add_primitive(commands, app):
    """`minigr NAME`: the primitive of an App record (see minigr.catalog)."""
    p = commands.add_parser(
        app.name, help=app.help, description=app.help + ".",
        epilog="Exit status: 0 done, 1 validation failed, 2 a usage or input error, 3 out of memory.")
    p.add_argument("graph", nargs="?", default=DEFAULT_GRAPH, metavar="GRAPH",
                   help=f"a graph file or generator spec (default {DEFAULT_GRAPH}); {io.ACCEPTED}")
    if app.sourced:
        p.add_argument("--source", type=int, metavar="V",
                       help="source vertex (default: the highest out-degree vertex, lowest id on ties)")
    p.add_argument("--runs", type=int, default=1, metavar="N",
                   help="timed runs after one warm-up run; the median is reported (default 1)")
    p.add_argument("--validate", action="store_true",
                   help="check every timed run against a CPU reference (SciPy, networkx); exit 1 if wrong")
    p.add_argument("--json", action="store_true",
                   help="print one JSON object per timed run on stdout instead of the summary")
    p.add_argument("--output", metavar="FILE",
                   help="write the last run's per-vertex results to FILE (a header line, then 'vertex value...')")
    p.add_argument("--device", choices=("cpu", "gpu"), help="where to run (default: the GPU if present)")
    if app.partitioned:
        p.add_argument("--gpus", type=int, metavar="N",
                       help="split the graph over N GPUs, one process each, talking through NCCL (under mpirun or "
                            "srun: the launcher's ranks); each builds its own part")
        p.add_argument("--reorder", choices=METHODS, default="auto",
                       help="with --gpus: renumber the vertices before cutting ranges, keeping the order that leaves "
                            "the fewest border vertices (auto: the user's, RCM's or METIS's; default auto)")
    group = p.add_argument_group(f"{app.name} options")
    for option in app.options:
        if option.kind is bool:  # --no-NAME too where it is on by default
            group.add_argument(option.flag, action=argparse.BooleanOptionalAction if option.default else "store_true",
                               default=option.default, help=option.help)
        else:
            group.add_argument(option.flag, type=option.kind, default=option.default, help=option.help)
    load = p.add_argument_group("loading the graph (see minigr.load)")
    load.add_argument("--symmetrize", action="store_true", help="add the reverse of every edge (undirected)")
    load.add_argument("--remove-self-loops", action="store_true", help="drop edges v -> v")
    load.add_argument("--remove-duplicates", action="store_true",
                      help="keep one copy of each edge, with its smallest weight")
    load.add_argument("--weights", choices=io.WEIGHT_MODES, default="keep",
                      help="keep the file's weights, ignore them, or draw random integers 1..64 (default keep)")
    load.add_argument("--weight-seed", type=int, default=0, metavar="K", help="seed of --weights random (default 0)")
    load.add_argument("--no-cache", dest="cache", action="store_false",
                      help="neither read nor write the binary cache <file>.mgr beside a text file")
    directed = load.add_mutually_exclusive_group()
    directed.add_argument("--directed", dest="directed", action="store_const", const=True,
                          help="treat the graph as directed")
    directed.add_argument("--undirected", dest="directed", action="store_const", const=False,
                          help="treat the graph as undirected (its edges must be symmetric; else --symmetrize)")
    p.set_defaults(run=functools.partial(_run_primitive, app))


def _run_primitive(app, args):
    """Check the input, then one warm-up and --runs timed runs of the app; report them.
    Returns 1 when a validation failed."""
    options = {option.name: getattr(args, option.name) for option in app.options}
    if getattr(args, "gpus", None) is not None:
        return _run_on_gpus(app, options, args)
    graph, source, complaint = _checked_input(app, options, args)
    if isinstance(complaint, DeviceError):
        raise complaint
    if complaint:
        print(complaint, file=sys.stderr)
    run = functools.partial(app.run, graph, *([source] if app.sourced else []), **options)
    if sys.stderr.isatty():  # as long as a timed run (minutes for some on the CPU): say what is going on
        print(f"{app.name}: a warm-up run, untimed (its kernels compile on first use)", file=sys.stderr, flush=True)
    run()  # warm-up: compiles and caches the kernels
    facts = _facts(graph, source)
    records = []
    for i in range(args.runs):
        result = run()
        verdict = app.check(graph, source, result.values, options) if args.validate else None
        records.append(_record(app.name, args.graph, facts, result, verdict))
        _report_run(records[-1], i, args)
    return _finish(app, records, result, facts, args)


def _run_on_gpus(app, options, args):
    """--gpus N: the app on the graph split over N GPUs (minigr.multi.run_gpus),
    reported as a single-GPU run is; validation loads the whole graph on the host."""
    from . import multi
    _check_numbers(app, options, args)
    if args.device == "cpu":
        raise MinigrError("--gpus runs on GPUs; leave out --device cpu (parts on the CPU backend: "
                          "minigr.multi.run_threads)")
    chosen = dict(directed=args.directed, symmetrize=args.symmetrize, remove_self_loops=args.remove_self_loops,
                  remove_duplicates=args.remove_duplicates, weights=args.weights, weight_seed=args.weight_seed,
                  cache=args.cache)
    load_options = {key: value for key, value in chosen.items() if value != LOAD_DEFAULTS[key]}
    if "weights" in app.needs and args.weights != "random" and io.specs.is_spec(args.graph):
        raise MinigrError(f"{app.name} needs edge weights and {args.graph} has none; pass --weights random")
    results = multi.run_gpus(args.graph, args.gpus, app.name, *([args.source] if app.sourced else []),
                             runs=args.runs, load_options=load_options, reorder=args.reorder, **options)
    if results is None:  # an MPI rank other than 0: rank 0 reports
        return 0
    facts = {key: value for key, value in results[0].extra.items() if key != "parts"}
    facts["device"] = f"{len(results[0].parts)} GPUs"
    graph = io.load(args.graph, device="cpu", **load_options) if args.validate else None
    records = []
    for i, result in enumerate(results):
        verdict = app.check(graph, facts["source"], result.values, options) if args.validate else None
        records.append(_record(app.name, args.graph, facts, result, verdict))
        _report_run(records[-1], i, args)
    return _finish(app, records, result, facts, args)


def _report_run(record, i, args):
    if args.json:
        print(json.dumps(record, default=lambda x: x.item()), flush=True)
    elif sys.stderr.isatty():
        print(f"run {i + 1}/{args.runs}: {record['ms']:.3f} ms" + (f", {record['validation']}" if
                                                                   record["validation"] else ""),
              file=sys.stderr, flush=True)


def _finish(app, records, result, facts, args):
    """Writes --output and the summary; 1 when a validation failed."""
    if args.output is not None:
        _write_output(args.output, app.columns, result.values, app.rows == "vertex")
    if not args.json:
        _summary(records, facts, args)
    return 1 if any((r["validation"] or "").startswith("FAILED") for r in records) else 0


def _checked_input(app, options, args):
    """(graph, source, complaint of _device): the graph loaded or generated on the device it runs
    on, after checking everything the user could have got wrong: numbers and --output before
    any work, then the file, source, weights, direction."""
    _check_numbers(app, options, args)
    device, complaint = _device(args.device)
    graph = io.load(args.graph, directed=args.directed, symmetrize=args.symmetrize,
                    remove_self_loops=args.remove_self_loops, remove_duplicates=args.remove_duplicates,
                    weights=args.weights, weight_seed=args.weight_seed, cache=args.cache, device=device)
    if "weights" in app.needs and graph.weights is None:
        raise MinigrError(f"{app.name} needs edge weights and {args.graph} has none; pass --weights random "
                          "(integers 1..64) or give a weighted file")
    if "undirected" in app.needs and graph.directed:
        raise MinigrError(f"{app.name} needs an undirected graph and {args.graph} is directed; pass --symmetrize "
                          "to add the reverse edges (or --undirected if its edges are symmetric already)")
    return graph, _source(graph, args) if app.sourced else None, complaint


def _check_numbers(app, options, args):
    """--runs, the app's options and --output checked, before any work."""
    if args.runs < 1:
        raise MinigrError(f"--runs must be at least 1, got {args.runs}")
    if getattr(args, "gpus", None) is not None and args.gpus < 1:
        raise MinigrError(f"--gpus must be at least 1, got {args.gpus}")
    app.check_options(options, cli=True)
    if args.output is not None:
        _check_writable(args.output, args.graph)


def _source(graph, args):
    """--source checked against the graph, or the highest out-degree vertex (lowest id on ties)."""
    if args.source is None:
        if graph.num_vertices == 0:
            raise MinigrError(f"{args.graph} has no vertices, so there is no source to start from")
        return int(to_host(graph.out_degrees()).argmax())  # CuPy's argmax compiles a cast on first use (0.08 s)
    return check_source(graph, args.source, "--source", args.graph)


def _device(choice):
    """(device, complaint): where to load and run, and what to tell the user once the input is
    known to be good. --device, else $MINIGR_DEVICE, else the GPU when present. Without a GPU:
    the CPU, with a note (none was asked for) or a DeviceError (one was), so that input errors
    read the same on machines with and without one."""
    try:
        device = resolve_device(choice)
    except DeviceError as exc:
        return "cpu", exc
    reason = gpu_unavailable_reason()
    if choice is None and not os.environ.get("MINIGR_DEVICE") and reason:
        return device, f"minigr: no GPU here ({reason}); running on the CPU"
    return device, None


RECORD_KEYS = ("graph", "primitive", "vertices", "edges", "source", "ms", "MTEPS", "iterations",
               "validation", "device")


def _facts(graph, source):
    """What the report says of the graph (as Part.facts says of a partitioned one)."""
    return dict(vertices=graph.num_vertices, edges=graph.num_edges, directed=graph.directed,
                weighted=graph.weights is not None, device=graph.device, source=source,
                source_degree=None if source is None else int(graph.out_degrees()[source]))


def _record(name, spec, facts, result, verdict):
    """One timed run as the JSON object --json prints."""
    mteps = result.edges_visited / result.ms / 1e3 if result.ms > 0 else None
    values = (spec, name, facts["vertices"], facts["edges"], facts["source"], result.ms, mteps, result.iterations,
              verdict, facts["device"])
    extra = {key: value for key, value in result.extra.items() if key not in facts}
    return {**dict(zip(RECORD_KEYS, values)), **extra}


def _count(n, noun):
    """'1 iteration', '5 iterations'."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _summary(records, facts, args):
    """The human-readable report of the runs, on stdout."""
    kind = ("directed" if facts["directed"] else "undirected") + (", weighted" if facts["weighted"] else "")
    where = facts["device"]
    lines = [f"graph: {args.graph}: {facts['vertices']} vertices, {facts['edges']} edges, {kind}, "
             f"on {'the ' + where.upper() if where in ('cpu', 'gpu') else where}"]
    if facts["source"] is not None:
        chosen = "" if args.source is not None else " (the highest; --source picks another)"
        degree = "" if facts.get("source_degree") is None else f", out-degree {facts['source_degree']}"
        lines.append(f"source: {facts['source']}{degree}{chosen}")
    ms = [r["ms"] for r in records]
    mteps = [r["MTEPS"] for r in records if r["MTEPS"] is not None]
    rate = f"{statistics.median(mteps):.1f} MTEPS" if mteps else "MTEPS not measurable (0 ms)"
    lines += [f"runs: {' '.join(f'{x:.3f}' for x in ms)} ms",
              f"median: {statistics.median(ms):.3f} ms, {rate}, {_count(records[-1]['iterations'], 'iteration')}"]
    lines += [f"{key}: {value}" for key, value in records[-1].items() if key not in RECORD_KEYS + ("parts",)]
    for i, part in enumerate(records[-1].get("parts", ())):
        lines.append(f"part {i}: {part['owned']} vertices, {part['part_edges']} edges, {part['proxies']} proxies, "
                     f"{part['mirrors']} mirrors, {part['ms']:.3f} ms")
    if args.validate:
        verdicts = [r["validation"] for r in records]
        lines.append("validation: " + (verdicts[0] if len(set(verdicts)) == 1 else
                                       "; ".join(f"run {i}: {v}" for i, v in enumerate(verdicts, 1))))
    print("\n".join(lines))


def _check_writable(path, graph):
    """Refuse an --output path that cannot be written, before any work: an empty name, the
    input graph's own file (graph: as the user gave it), a folder, a missing or read-only
    folder (tried with a temporary file), a special file (/dev/null, a FIFO) not writable."""
    if not path:
        raise MinigrError("--output needs a file name, got an empty one")
    if _standard_stream(path):
        return
    target = _output_target(path)
    if os.path.isfile(target) and os.path.isfile(graph) and os.path.samefile(target, graph):
        raise MinigrError(f"--output {path} is the input graph {graph}: writing the results there would destroy "
                          "it; give another file name")
    if os.path.isdir(target):
        raise MinigrError(f"--output {path} is a folder; give a file name")
    if os.path.exists(target) and not os.path.isfile(target):
        if not os.access(target, os.W_OK):
            raise MinigrError(f"--output {path}: {target} is a special file you cannot write")
        return
    folder = os.path.dirname(target)
    if not os.path.isdir(folder):
        raise MinigrError(f"--output {path}: the folder {folder} does not exist")
    try:
        fd, probe = tempfile.mkstemp(dir=folder, prefix=".minigr-output-check.")
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise MinigrError(f"--output {path}: cannot write in the folder {folder} ({exc.strerror or exc})") from None


def _output_target(path):
    """The file --output writes: a link's target (links are written through), else `path`."""
    return os.path.realpath(path) if os.path.islink(path) else os.path.abspath(path)


def _write_output(path, columns, values, per_vertex):
    """Results as text (a header "vertex col..." or, for rows of edges or pairs, "col...",
    then a line per row). A regular file is written to a temporary file beside it and
    renamed into place, keeping an existing file's mode: a failure never leaves a partial
    file nor harms an existing one. A link is written through; a special file (/dev/null,
    a FIFO with a reader) is written in place, and the file stdout or stderr writes to
    (/dev/stdout) through that stream."""
    arrays = [to_host(values[c]) for c in columns]
    index = [np.arange(len(arrays[0]))] if per_vertex else []
    table = np.column_stack(index + arrays)
    formats = ["%d"] * len(index) + ["%.9g" if a.dtype == np.float32 else "%.17g" if a.dtype.kind == "f" else "%d"
                        for a in arrays]  # floats with the digits that read back exactly

    def write(f):
        np.savetxt(f, table, fmt=formats, header=" ".join(("vertex",) * per_vertex + columns), comments="")
    target = _output_target(path)
    try:
        if stream := _standard_stream(path):
            write(stream)
            stream.flush()
        elif os.path.exists(target) and not os.path.isfile(target):
            with _open_special(target, path) as f:
                write(f)
        else:
            write_atomically(target, write, mode="w", permissions=_permissions(target))
    except OSError as exc:
        raise MinigrError(f"--output {path}: cannot write it ({exc.strerror or exc})") from None


def _standard_stream(path):
    """sys.stdout or sys.stderr when `path` is the file it writes to (/dev/stdout, or the
    file the shell redirected it to), so that --output goes after what was written there;
    else None."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    for stream in (sys.stdout, sys.stderr):
        try:
            own = os.fstat(stream.fileno())
        except (OSError, ValueError):  # a stream with no file descriptor (under a test's capture)
            continue
        if (own.st_dev, own.st_ino) == (info.st_dev, info.st_ino):
            return stream
    return None


def _open_special(target, path):
    """A special file open for writing text; a FIFO that no process reads is a MinigrError
    (opened without waiting: its open would block until a reader came)."""
    try:
        fd = os.open(target, os.O_WRONLY | os.O_NONBLOCK)
    except OSError as exc:
        if exc.errno == errno.ENXIO:
            raise MinigrError(f"--output {path}: a FIFO that no process reads; start its reader first") from None
        raise
    os.set_blocking(fd, True)
    return os.fdopen(fd, "w")


def _permissions(target):
    """The mode bits --output gives `target`: an existing file's own, else those a new file
    gets under the umask."""
    try:
        return stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask
