"""Backend choice: every array lives on one device, "gpu" (CuPy) or "cpu" (NumPy)."""
import functools
import os

import numpy

from .errors import DeviceError, MinigrError

DEVICES = ("gpu", "cpu")


@functools.lru_cache(maxsize=None)
def gpu_unavailable_reason():
    """Why no GPU can be used here, or None when one can."""
    try:
        import cupy
    except ImportError as exc:
        return f"CuPy is not installed ({exc}); install minigr[cuda13] or minigr[cuda12]"
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:  # CUDARuntimeError without a driver or device
        return f"no CUDA driver or device ({exc})"
    if count == 0:
        return "no CUDA device found"
    return None


def gpu_available():
    return gpu_unavailable_reason() is None


def resolve_device(device=None):
    """The device to use: explicit, else $MINIGR_DEVICE, else the GPU when present."""
    device = device or os.environ.get("MINIGR_DEVICE") or ("gpu" if gpu_available() else "cpu")
    if device not in DEVICES:
        raise MinigrError(f"unknown device {device!r}: use 'gpu' or 'cpu'")
    if device == "gpu" and not gpu_available():
        raise DeviceError(f"device 'gpu' asked for, but {gpu_unavailable_reason()}; "
                          "use device='cpu' (or MINIGR_DEVICE=cpu, --device cpu)")
    return device


def array_module(device):
    """CuPy for "gpu", NumPy for "cpu"."""
    if device == "gpu":
        import cupy
        return cupy
    return numpy


def device_of(array):
    """The device an array lives on."""
    if isinstance(array, numpy.ndarray):
        return "cpu"
    if type(array).__module__.startswith("cupy"):
        return "gpu"
    raise TypeError(f"expected a NumPy or CuPy array, got {type(array).__name__}")
