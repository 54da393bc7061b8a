"""Compiled kernels: built once per (device, source shape), kept in memory, and
launched with captures marshalled for CuPy (GPU) or ctypes (CPU)."""
import contextlib
import ctypes
import dataclasses
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


@functools.lru_cache(maxsize=None)
def l2_bytes(device_id):
    import cupy
    return cupy.cuda.Device(device_id).attributes["L2CacheSize"]


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
launches = 0  # kernels launched so far in this process (a persistent loop counts once): for tests


def compile_checking():
    """The architecture that compile_check compiles GPU twins for, or None when inactive."""
    return _compile_check["arch"]


def compile_twin(source, label):
    """Under compile_check, compiles a GPU kernel's source (once) and records it."""
    if source not in _compile_check["compiled"]:
        compiler.compile_cuda(source, _compile_check["arch"], label)
        _compile_check["compiled"].add(source)


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


@dataclasses.dataclass
class Stage:
    """A launch recorded from a persistent loop's body instead of run: its
    GPU call, its arguments, and the count (a DeviceCount, or None) that
    leaves it nothing to do when 0."""
    fixed_params: list
    fixed_args: list
    functors: list
    call: str
    serial: bool  # a one-thread launch: run by one thread of the grid
    one_item: bool  # work for one thread (serial, or one item), as a loop's steps are: it may change counts
    count: object  # the DeviceCount of its items, or None


_recording = threading.local()  # .stages: the list a thread's launches are recorded into, or None; .block


@contextlib.contextmanager
def recording(block):
    """While active, this thread's launches are recorded as Stages (yielded
    list) and not run, for a kernel of `block` threads a block (see
    recording_block). A launch that needs its own grid (blocks that split the
    work among them by their index) cannot be a stage: a MinigrError names it."""
    previous = getattr(_recording, "stages", None), getattr(_recording, "block", None)
    _recording.stages, _recording.block = [], block
    try:
        yield _recording.stages
    finally:
        _recording.stages, _recording.block = previous


_huge_lists = threading.local()  # .by_gpu: the huge lists segment_transform uses now (see huge_lists)


def huge_lists():
    """The {GPU: list} that segment_transform's lists of huge segments come from now (see
    api.huge_list): the calling thread's own, or while a loop's body is captured or recorded
    the loop's (huge_lists_of). Two threads' calls, which may interleave on one stream, and two
    loops, which may run at once, each have their own: a call's second kernel walks and empties
    the list its first filled."""
    lists = getattr(_huge_lists, "by_gpu", None)
    if lists is None:
        lists = _huge_lists.by_gpu = {}
    return lists


@contextlib.contextmanager
def huge_lists_of(lists):
    """While active, this thread's segment_transforms take their huge lists from `lists`,
    which the loop being captured or recorded keeps with its graph or kernel."""
    previous = getattr(_huge_lists, "by_gpu", None)
    _huge_lists.by_gpu = lists
    try:
        yield
    finally:
        _huge_lists.by_gpu = previous


def recording_launches():
    """Whether this thread's launches are being recorded (see recording)."""
    return getattr(_recording, "stages", None) is not None


def recording_block(block):
    """The threads a block of the kernel that this thread's launches are being
    recorded for, or `block` (a launch's own) when they are not."""
    return getattr(_recording, "block", None) or block


def launch(device, fixed_params, fixed_args, functors, calls, blocks, block, min_blocks=None, *,
           any_grid=False, count=None):
    """Runs calls[device] (a template call) over `blocks` blocks (one CPU thread
    on the CPU); calls["cpu"] is None for GPU-only helper kernels. any_grid:
    the kernel does all its work with any number of blocks (it strides over
    the grid), so a persistent loop may run it; count: its items, an int or
    a DeviceCount (with 0, it has nothing to do)."""
    stages = getattr(_recording, "stages", None)
    if stages is not None:
        on_device = count if hasattr(count, "cell") else None  # a DeviceCount
        serial = blocks * block == 1
        if not (any_grid or serial):
            raise MinigrError("a persistent loop's body may only run transforms that stride over any grid "
                              "(transform, segment_transform); this one launches "
                              + (", ".join(f.filename for f in functors) or calls["gpu"].split("(")[0]))
        one_item = serial or on_device is None and count is not None and int(count) == 1
        stages.append(Stage(list(fixed_params), list(fixed_args), list(functors), calls["gpu"], serial, one_item,
                            on_device))
        return
    global launches
    launches += 1
    if device == "cpu" and compile_checking():
        compile_twin(codegen.kernel_source("gpu", fixed_params, functors, calls["gpu"], block, min_blocks),
                     "functor " + ", ".join(f.filename for f in functors))
    if calls[device] is None:
        return
    k = kernel(device, fixed_params, functors, calls[device], block, min_blocks)
    k(blocks, block, list(fixed_args) + [v for f in functors for v in f.values])
