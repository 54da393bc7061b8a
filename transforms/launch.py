"""Compiled kernels: built once per (device, source shape), kept in memory, and
launched with captures marshalled for CuPy (GPU) or ctypes (CPU)."""
import contextlib
import ctypes
import functools
import threading

from . import codegen, compiler
from .backend import device_of, resolve_device
from .errors import MinigrError

CTYPES_SCALARS = {
    "bool": ctypes.c_bool, "int8_t": ctypes.c_int8, "uint8_t": ctypes.c_uint8, "int16_t": ctypes.c_int16,
    "uint16_t": ctypes.c_uint16, "int32_t": ctypes.c_int32, "uint32_t": ctypes.c_uint32,
    "int64_t": ctypes.c_int64, "uint64_t": ctypes.c_uint64, "long long": ctypes.c_longlong,
    "float": ctypes.c_float, "double": ctypes.c_double,
}

_kernels = {}
_building = threading.Lock()  # threads (a partitioned run's ranks, minigr.comm) may meet a new kernel at once


@functools.lru_cache(maxsize=None)
def gpu_arch(device_id):
    import cupy
    return cupy.cuda.Device(device_id).compute_capability


@functools.lru_cache(maxsize=None)
def multiprocessors(device_id):
    import cupy
    return cupy.cuda.Device(device_id).attributes["MultiProcessorCount"]


def current_gpu():
    import cupy
    return cupy.cuda.Device().id


def call_device(functors, arrays=()):
    """The one device that the functors' captures and the arrays live on."""
    devices = {f.device for f in functors if f.device} | {device_of(a) for a in arrays}
    if len(devices) > 1:
        raise MinigrError("a transform got NumPy and CuPy arrays together; keep its inputs on one device")
    return devices.pop() if devices else resolve_device()


class Kernel:
    """One compiled entry point and how to pass it arguments."""

    def __init__(self, device, function, params):
        self.device = device
        self.function = function
        self.pointer_params = [ctype.endswith("*") for ctype, _ in params]
        if device == "cpu":
            function.restype = None
            function.argtypes = [ctypes.c_void_p if ptr else CTYPES_SCALARS[ctype.replace("const ", "")]
                                 for ptr, (ctype, _) in zip(self.pointer_params, params)]

    def __call__(self, blocks, block, args):
        if self.device == "gpu":
            self.function((blocks,), (block,), args)
        else:
            self.function(*[a.ctypes.data if ptr else a.item() for ptr, a in zip(self.pointer_params, args)])


def kernel(device, fixed_params, functors, call, block, min_blocks=None):
    """The kernel for this source shape, compiled on first use."""
    gpu = current_gpu() if device == "gpu" else None  # a module is loaded into one GPU's context
    arch = gpu_arch(gpu) if device == "gpu" else None
    key = (device, gpu, arch, tuple(fixed_params), call, block, min_blocks, tuple(f.signature for f in functors))
    found = _kernels.get(key)
    if found is None:
        with _building:
            found = _kernels.get(key)
            if found is None:
                source = codegen.kernel_source(device, fixed_params, functors, call, block, min_blocks)
                label = "functor " + ", ".join(f.filename for f in functors)
                if device == "gpu":
                    function = compiler.load_cuda(compiler.compile_cuda(source, arch, label))
                else:
                    function = compiler.load_cpp(compiler.compile_cpp(source, label))
                params = list(fixed_params) + [p for f in functors for p in f.params]
                found = _kernels[key] = Kernel(device, function, params)
    return found


_compile_check = {"arch": None, "compiled": set()}


@contextlib.contextmanager
def compile_check(arch):
    """While active, every CPU launch also compiles its GPU twin for sm_<arch>
    with NVRTC, so running any workload on the CPU proves that all the GPU
    kernels it uses compile, on a machine without a GPU. Yields the set of
    kernel sources compiled."""
    previous = dict(_compile_check)
    _compile_check.update(arch=arch, compiled=set())
    try:
        yield _compile_check["compiled"]
    finally:
        _compile_check.update(previous)


def launch(device, fixed_params, fixed_args, functors, calls, blocks, block, min_blocks=None):
    """Runs calls[device] (a template call) over `blocks` blocks (one CPU thread
    on the CPU); calls["cpu"] is None for GPU-only helper kernels."""
    arch = _compile_check["arch"]
    if device == "cpu" and arch is not None:
        source = codegen.kernel_source("gpu", fixed_params, functors, calls["gpu"], block, min_blocks)
        if source not in _compile_check["compiled"]:
            compiler.compile_cuda(source, arch, "functor " + ", ".join(f.filename for f in functors))
            _compile_check["compiled"].add(source)
    if calls[device] is None:
        return
    k = kernel(device, fixed_params, functors, calls[device], block, min_blocks)
    k(blocks, block, list(fixed_args) + [v for f in functors for v in f.values])
