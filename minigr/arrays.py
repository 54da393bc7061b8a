"""Array helpers written once for NumPy (host) and CuPy (device): `xp` is the array module.

Graph building and the generators run the same code on both, so the CPU tests exercise the
GPU path's logic and both devices give bit-identical results."""
import resource

import numpy as np

from .transforms.backend import array_module
from .transforms.errors import MinigrError

DLPACK_CPU, DLPACK_CUDA, DLPACK_CUDA_HOST, DLPACK_CUDA_MANAGED = 1, 2, 3, 13
ACCEPTED = ("a NumPy or CuPy array, an object with __cuda_array_interface__ or __dlpack__ "
            "(PyTorch, JAX, ...), or a sequence of numbers")


def to_host(array):
    """A NumPy view/copy of a NumPy or CuPy array (lists and scalars go through np.asarray)."""
    if type(array).__module__.startswith("cupy"):
        return array.get()
    return np.asarray(array)


def on_device(array, device):
    """`array` (NumPy or CuPy) on `device`: no copy when it is already there."""
    if array is None:
        return None
    if device == "cpu":
        return to_host(array)
    return array_module(device).asarray(array)


def from_any(obj, name):
    """A NumPy or CuPy array sharing memory with `obj` where it can: a NumPy or CuPy array as
    it is, a GPU array (__cuda_array_interface__, or __dlpack__ on a CUDA device) as CuPy, a
    host one (__dlpack__, __array__) or a sequence as NumPy; MinigrError for anything else."""
    module = type(obj).__module__
    if isinstance(obj, np.ma.MaskedArray) and np.ma.is_masked(obj):  # its hidden entries would count
        raise MinigrError(f"{name} is a masked array with masked entries, which minigr would read as values; "
                          f"pass {name}.compressed() (or .filled(...)) instead")
    if isinstance(obj, np.ndarray) or module.startswith("cupy"):
        return obj
    try:
        if hasattr(obj, "__cuda_array_interface__"):
            return array_module("gpu").asarray(obj)
        if hasattr(obj, "__dlpack__") and hasattr(obj, "__dlpack_device__"):
            kind = obj.__dlpack_device__()[0]
            if kind in (DLPACK_CPU, DLPACK_CUDA_HOST):
                return np.from_dlpack(obj)
            if kind in (DLPACK_CUDA, DLPACK_CUDA_MANAGED):
                return array_module("gpu").from_dlpack(obj)
            raise MinigrError(f"{name} lives on DLPack device type {kind}, which minigr cannot "
                              "read; move it to the host or a CUDA GPU first")
        if hasattr(obj, "__array__") or isinstance(obj, (list, tuple, range)):
            return np.asarray(obj)
    except MinigrError:
        raise
    except Exception as exc:  # e.g. a tensor that requires grad, or ragged nested lists
        raise MinigrError(f"{name}: cannot read it as an array ({type(exc).__name__}: "
                          f"{str(exc).splitlines()[0] if str(exc) else 'no message'})") from None
    raise MinigrError(f"{name} must be {ACCEPTED}; got {type(obj).__name__}")


def sort(xp, a):
    """`a` sorted. On the host an already sorted `a` (common in files written from a CSR) is
    returned as it is after one comparison pass, which NumPy's sort would take several times
    longer on; the GPU sorts in milliseconds, while CuPy compiles the check's reduction on
    first use (5 s on an H100)."""
    if len(a) < 2 or xp is np and bool((a[1:] >= a[:-1]).all()):
        return a
    return xp.sort(a)


def segments(xp, counts):
    """For the items of consecutive segments of `counts` items each: every item's segment and
    its rank within it (int64). NumPy repeats; CuPy, whose repeat takes no array of counts,
    searches the segment ends."""
    ends = xp.cumsum(counts, dtype=np.int64)
    total = int(ends[-1]) if len(ends) else 0
    if xp is np:
        segment = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
    else:
        segment = xp.searchsorted(ends, xp.arange(total, dtype=np.int64), side="right")
    return segment, xp.arange(total, dtype=np.int64) - (ends - counts)[segment]


def check_room(nbytes, device, what):
    """A MemoryError, before anything is allocated, when `what` needs about `nbytes` and
    `device` has less free: on the host an allocation past the memory there ends in the
    kernel killing the process, with no message. Free on the host: its available memory,
    within the process's address-space limit (ulimit -v); on a GPU: its free memory and
    CuPy's pool's. Nothing is checked where that is unknown."""
    free = _free_bytes(device)
    if free is not None and nbytes > free:
        raise MemoryError(f"{what} needs about {nbytes / 1e9:.3g} GB and the {device.upper()} has "
                          f"{max(free, 0) / 1e9:.3g} GB free")


def _free_bytes(device):
    if device == "gpu":
        import cupy
        return cupy.cuda.Device().mem_info[0] + cupy.get_default_memory_pool().free_bytes()
    free = _proc_kilobytes("/proc/meminfo", "MemAvailable:")
    limit = resource.getrlimit(resource.RLIMIT_AS)[0]
    mapped = _proc_kilobytes("/proc/self/status", "VmSize:")
    if free is not None and limit != resource.RLIM_INFINITY and mapped is not None:
        free = min(free, limit - mapped)
    return free


def _proc_kilobytes(path, key):
    """The size in bytes on the line of a /proc file that starts with `key` ("... kB"), or None."""
    try:
        with open(path) as f:
            return next((int(line.split()[1]) * 1024 for line in f if line.startswith(key)), None)
    except OSError:
        return None
