"""`minigr doctor`: what this machine offers minigr, and whether every built-in
GPU kernel compiles (for the present GPU, or sm_90 without one)."""
import numpy

from .transforms import (Functor, compact_transform, lbs_transform, scan_transform, segreduce_transform,
                         transform)
from .transforms import compiler
from .transforms.backend import gpu_unavailable_reason
from .transforms.errors import MinigrError
from .transforms.launch import compile_check, current_gpu, gpu_arch

DEFAULT_ARCH = "90"


def transform_samples():
    """Each transform once on tiny CPU inputs, with int32 and int64 offsets."""
    deg = numpy.array([2, 0, 3], numpy.int32)
    transform(3, Functor("void operator()(long long i) const { d[i] += 1; }", d=deg))
    offsets, total = scan_transform(3, Functor("long long operator()(long long i) const { return d[i]; }", d=deg))
    compact_transform(3, Functor("bool operator()(long long i) const { return d[i] > 1; }", d=deg))
    out = numpy.zeros(total)
    for o in (offsets, offsets.astype(numpy.int32)):
        lbs_transform(o, Functor("void operator()(long long i, long long s, long long r) const { x[i] = s; }", x=out))
        for op in ("sum", "min", "max"):
            segreduce_transform(o, Functor("double operator()(long long i, long long s, long long r) const "
                                           "{ return x[i]; }", x=out), op=op)


# (name, workload run on the CPU while its GPU kernels are compiled)
WORKLOADS = [("transforms", transform_samples)]


def gpu_description():
    reason = gpu_unavailable_reason()
    if reason:
        return None, f"none ({reason})"
    import cupy
    props = cupy.cuda.runtime.getDeviceProperties(current_gpu())
    driver = cupy.cuda.runtime.driverGetVersion()
    arch = gpu_arch(current_gpu())
    return arch, (f"{props['name'].decode()} (sm_{arch}, {props['multiProcessorCount']} SMs, "
                  f"{props['totalGlobalMem'] / 2**30:.1f} GiB), driver supports CUDA {driver // 1000}.{driver % 1000 // 10}")


def run(out=print):
    """Prints the report; returns the exit code (0 when every kernel compiles)."""
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
    out(f"kernel cache: {compiler.cache_dir()}")
    failed = []
    for name, workload in WORKLOADS:
        try:
            with compile_check(arch) as compiled:
                workload()
            out(f"  {name:<12} {len(compiled)} GPU kernels compile for sm_{arch}; CPU run ok")
        except MinigrError as exc:
            failed.append(name)
            out(f"  {name:<12} FAILED: {exc}")
    out("all kernels compile" if not failed else f"kernels that fail: {', '.join(failed)}")
    return 1 if failed else 0
