"""`minigr doctor`: what this machine offers minigr, the state of the kernel
cache, and whether every built-in GPU kernel compiles (for the present GPU, or
sm_90 without one); `--clear-cache` empties the kernel cache instead."""
import functools
import sys

import numpy

from .progress import Progress
from .transforms import (DeviceCount, Functor, compact_transform, intersect_transform, lbs_transform, scan_transform,
                         segment_transform, segreduce_transform, transform)
from .transforms import compiler
from .transforms.backend import gpu_unavailable_reason
from .transforms.errors import MinigrError
from .transforms.launch import compile_check, current_gpu, gpu_arch

DEFAULT_ARCH = "90"


def transform_samples():
    """Each transform once on tiny CPU inputs, with int32 and int64 offsets."""
    deg = numpy.array([2, 0, 3], numpy.int32)
    increment = Functor("void operator()(long long i) const { d[i] += 1; }", d=deg)
    transform(3, increment)
    transform(DeviceCount(numpy.array([3]), 3), increment)
    segment_transform(3, Functor("void operator()(long long s, long long& b, long long& e) const { b = 0; e = d[s]; }",
                                 d=deg), Functor("void operator()(long long i, long long s, long long r) const {}"))
    offsets, total = scan_transform(3, Functor("long long operator()(long long i) const { return d[i]; }", d=deg))
    compact_transform(3, Functor("bool operator()(long long i) const { return d[i] > 1; }", d=deg))
    out = numpy.zeros(total)
    for o in (offsets, offsets.astype(numpy.int32)):
        lbs_transform(o, Functor("void operator()(long long i, long long s, long long r) const { x[i] = s; }", x=out))
        value = Functor("double operator()(long long i, long long s, long long r) const { return x[i]; }", x=out)
        for op in ("sum", "min", "max"):
            segreduce_transform(o, value, op=op)
        segreduce_transform(o, value, dtype=numpy.float32)  # 4-byte values take twice the items per thread
    rows = numpy.array([0, 3, 5])  # two sorted rows, intersected with each other
    pairs = Functor("void operator()(long long p, long long& a0, long long& a1, long long& b0, long long& b1) "
                    "const { a0 = r[p]; a1 = r[p + 1]; b0 = r[1 - p]; b1 = r[2 - p]; }", r=rows)
    common = Functor("void operator()(long long p, long long ia, long long ib) const { x[p] += 1; }", x=out)
    intersect_transform(2, pairs, numpy.array([1, 2, 3, 2, 3], numpy.int32), common, numpy.zeros(2, numpy.int64))


def operator_samples():
    """Each operator and each of its variants once, on a tiny CPU graph."""
    from .frontier import Frontier
    from .io import load
    from .operators import (Buckets, advance, advance_pull, compute, filter_frontier, neighbor_reduce,
                            reduce_vertices)
    graph = load("kron:scale=6,edge_factor=4,seed=1", device="cpu")
    n = graph.num_vertices
    edge_op = Functor("bool cond(int s, int d, long long e, long long r, long long o, int it) const "
                      "{ return d % 2; }\nvoid apply(int s, int d, long long e, long long r, long long o, int it) "
                      "const {}")
    frontier = Frontier.from_ids([0, 1, 2], n, "cpu")
    out = Frontier(n, "cpu", capacity=graph.num_edges)
    for output in (None, out):
        for unique in (False, True):
            advance(graph, None, edge_op, out=output, unique=unique)
            advance(graph, frontier, edge_op, out=output, unique=unique, iteration=numpy.zeros(1, numpy.int32))
    advance_pull(graph, edge_op, Functor("bool operator()(int v) const { return v > 2; }"), out=out)
    keep = Functor("bool cond(int v, int it) const { return v > 0; }")
    for unique in (False, True):
        filter_frontier(frontier, keep, out=out, unique=unique)
    vertex_value = Functor("double operator()(int v, int u, long long e) const { return u; }")
    for direction in ("out", "in"):
        for strategy in ("lbs", "thread_mapped"):
            neighbor_reduce(graph, vertex_value, direction=direction, strategy=strategy)
        neighbor_reduce(graph, vertex_value, frontier=frontier, direction=direction, reduce="max")
    compute(graph, frontier, Functor("void operator()(int v, int it) const {}"))
    reduce_vertices(graph, Functor("double operator()(int v) const { return v; }"), out=numpy.zeros(1), reduce="max")
    buckets = Buckets(n, "cpu")
    transform(1, Functor("void operator()(long long) const { buckets.reset(0, 1.0); buckets.next(); }",
                         buckets=buckets.view))
    buckets.split(Functor("double operator()(int v) const { return v; }"))


# Tiny CPU graphs every primitive runs on: skewed (load-balanced operators),
# low-degree (thread-mapped ones), and the skewed one taken as directed.
# (the ordered grid's halves share few vertices: BFS and SSSP on them run apart)
SAMPLE_GRAPHS = (("kron:scale=8,edge_factor=8,seed=1", {}), ("grid:scale=8,seed=1", {}),
                 ("kron:scale=8,edge_factor=8,seed=1", {"directed": True}), ("grid:scale=12,seed=1,permute=0", {}))


def primitive_samples(stage=lambda text: None):
    """Every primitive of the catalog in each of its record's variants, on each
    sample graph it takes (weighted; sourced ones from the highest-degree
    vertex), and on the graph split in two where it has a partitioned form;
    stage(text) is told each primitive and graph as it starts."""
    from . import apps
    from .io import load
    from .multi import run_threads
    for spec, options in SAMPLE_GRAPHS:
        graph = load(spec, weights="random", device="cpu", **options)
        source = int(graph.out_degrees().argmax())
        for app in apps.records().values():
            if "undirected" in app.needs and graph.directed:
                continue
            arguments = [source] if app.sourced else []
            stage(f"{app.name} on {spec}")
            for variant in app.variants:
                app.run(graph, *arguments, **variant)
                if app.partitioned:
                    run_threads(graph, 2, app.name, *arguments, **variant)


# (name, workload run on the CPU while its GPU kernels are compiled)
WORKLOADS = [("transforms", transform_samples), ("operators", operator_samples), ("primitives", primitive_samples)]


def gpu_description():
    reason = gpu_unavailable_reason()
    if reason:
        return None, f"none ({reason})"
    import cupy
    props = cupy.cuda.runtime.getDeviceProperties(current_gpu())
    driver = cupy.cuda.runtime.driverGetVersion()
    arch = gpu_arch(current_gpu())
    return arch, (f"{props['name'].decode()} (sm_{arch}, {props['multiProcessorCount']} SMs, "
                  f"{props['totalGlobalMem'] / 2**30:.1f} GiB), "
                  f"driver supports CUDA {driver // 1000}.{driver % 1000 // 10}")


def clear_cache(out=print):
    """`minigr doctor --clear-cache`: removes minigr's own files from the kernel cache."""
    folder, removed = compiler.clear_cache()
    out(f"kernel cache: removed {removed} files from {folder}")
    return 0


def run(out=functools.partial(print, flush=True)):
    """Prints the report; returns the exit code (0 when every kernel compiles). On a
    terminal, stderr follows the work, which takes a minute with an empty kernel cache."""
    arch, gpu = gpu_description()
    arch = arch or DEFAULT_ARCH
    out(f"GPU:          {gpu}")
    try:
        major, minor = compiler.nvrtc_version()
        out(f"NVRTC:        {major}.{minor}")
    except MinigrError as exc:
        out(f"NVRTC:        unavailable ({exc})")
        return 1
    try:
        out(f"C++ compiler: {compiler.cxx()[1]} (CPU backend)")
    except MinigrError as exc:
        out(f"C++ compiler: unavailable ({exc})")
        return 1
    folder, problem = compiler.cache_folder()
    out(f"kernel cache: {compiler.cache_dir()} refused: {problem}; this run keeps its kernels in {folder}"
        if problem else f"kernel cache: {folder} (private: only you can write it)")
    failed = []
    for name, workload in WORKLOADS:
        try:
            with compile_check(arch) as compiled, Progress(f"doctor: {name}", sys.stderr.isatty()) as progress:
                progress.stage("compiling and running")
                if workload is primitive_samples:  # the long one: a stage per primitive and graph
                    workload(progress.stage)
                else:
                    workload()
            out(f"  {name:<12} {len(compiled)} GPU kernels compile for sm_{arch}; CPU run ok")
        except MinigrError as exc:
            failed.append(name)
            out(f"  {name:<12} FAILED: {exc}")
    out("all kernels compile" if not failed else f"kernels that fail: {', '.join(failed)}")
    return 1 if failed else 0
