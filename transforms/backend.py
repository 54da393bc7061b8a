"""Backend choice: every array lives on one device, "gpu" (CuPy) or "cpu" (NumPy)."""
import ctypes
import functools
import os
import threading

import numpy

from .errors import DeviceError, MinigrError

DEVICES = ("gpu", "cpu")
DRIVER_LIBRARY = "nvcuda.dll" if os.name == "nt" else "libcuda.so.1"  # the driver's, not the toolkit's


@functools.lru_cache(maxsize=None)
def gpu_unavailable_reason():
    """Why no GPU can be used here, or None when one can."""
    try:
        import cupy
    except ImportError as exc:
        return f"CuPy is not installed ({exc}); install minigr[cuda13] or minigr[cuda12]"
    if not _driver_installed():
        return f"no NVIDIA driver installed: {DRIVER_LIBRARY} not found"
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:  # CUDARuntimeError: a driver too old for CuPy's runtime, no device, ...
        return f"no usable CUDA device ({exc})"
    if count == 0:
        return "no CUDA device found"
    return None


def _driver_installed():
    """Whether the NVIDIA driver's library loads: without it, CUDA's runtime says that the driver
    version is insufficient, which misleads on a machine that has none."""
    try:
        ctypes.CDLL(DRIVER_LIBRARY)
    except OSError:
        return False
    return True


def gpu_available():
    """Whether a GPU can be used here: CuPy is installed, the NVIDIA driver's library loads
    and CUDA finds a device (gpu_unavailable_reason says why not). Found once a process."""
    return gpu_unavailable_reason() is None


def resolve_device(device=None):
    """The device to use, "gpu" or "cpu": `device` when given, else $MINIGR_DEVICE, else the
    GPU when one can be used. An unknown name is a MinigrError, and "gpu" where none can be
    used a DeviceError that says why."""
    device = device or os.environ.get("MINIGR_DEVICE") or ("gpu" if gpu_available() else "cpu")
    if device not in DEVICES:
        raise MinigrError(f"unknown device {device!r}: use 'gpu' or 'cpu'")
    if device == "gpu" and not gpu_available():
        raise DeviceError(f"device 'gpu' asked for, but {gpu_unavailable_reason()}; "
                          "use device='cpu' (or MINIGR_DEVICE=cpu, --device cpu)")
    return device


def array_module(device):
    """The array module of a device: CuPy for "gpu", NumPy for "cpu" (and for anything else,
    None included)."""
    if device == "gpu":
        import cupy
        return cupy
    return numpy


def device_of(array):
    """The device an array lives on: "cpu" for a NumPy array, "gpu" for a CuPy one; a
    TypeError for anything else."""
    if isinstance(array, numpy.ndarray):
        return "cpu"
    if type(array).__module__.startswith("cupy"):
        return "gpu"
    raise TypeError(f"expected a NumPy or CuPy array, got {type(array).__name__}")


_pinned = threading.local()  # .memory: this thread's pinned host memory for read_waiting


def read_waiting(*arrays):
    """NumPy copies of small arrays of one device, a list, read with one wait: on the GPU each
    (contiguous, else a MinigrError) is copied into pinned host memory on the current stream,
    which is then waited for once (CuPy's .get() costs ~15 us an array on an H100's host, this
    ~5 us and one wait). Waits for the work queued before it. Example: ``flag, sizes =
    read_waiting(state[1:2], sizes)``.
    """
    if not arrays or device_of(arrays[0]) == "cpu":
        return [numpy.array(a) for a in arrays]
    import cupy
    runtime, stream = cupy.cuda.runtime, cupy.cuda.get_current_stream().ptr
    offsets = numpy.cumsum([0] + [-(-a.nbytes // 8) * 8 for a in arrays])
    memory = getattr(_pinned, "memory", None)
    if memory is None or memory.size() < offsets[-1]:
        memory = _pinned.memory = cupy.cuda.alloc_pinned_memory(max(256, int(offsets[-1])))
    for a, at in zip(arrays, offsets):
        if not a.flags.c_contiguous:
            raise MinigrError("read_waiting takes contiguous arrays")
        runtime.memcpyAsync(memory.ptr + int(at), a.data.ptr, a.nbytes, runtime.memcpyDeviceToHost, stream)
    runtime.streamSynchronize(stream)
    return [numpy.frombuffer(memory, a.dtype, a.size, int(at)).reshape(a.shape).copy()
            for a, at in zip(arrays, offsets)]


def copied(array):
    """A copy of an array on its device, queued on the current stream.

    On the GPU a contiguous array is copied by one memcpy: under half the host time of
    CuPy's copy() (a kernel) and of its empty_like. Other arrays are copied by their own
    ``copy()``.

    Parameters
    ----------
    array : array
        A NumPy or CuPy array.

    Returns
    -------
    array
        The copy, of the same shape and dtype: NumPy for NumPy, and for CuPy, on the
        current GPU (the array's where that is current).

    Examples
    --------
    >>> from minigr.transforms import array_module, copied, resolve_device
    >>> x = array_module(resolve_device()).asarray([1, 2, 3])
    >>> y = copied(x)
    >>> y[0] = 7
    >>> x.tolist(), y.tolist()
    ([1, 2, 3], [7, 2, 3])
    """
    if device_of(array) == "cpu" or not array.flags.c_contiguous:
        return array.copy()
    import cupy
    runtime, out = cupy.cuda.runtime, cupy.empty(array.shape, array.dtype)
    if array.nbytes:
        runtime.memcpyAsync(out.data.ptr, array.data.ptr, array.nbytes, runtime.memcpyDeviceToDevice,
                            cupy.cuda.get_current_stream().ptr)
    return out
