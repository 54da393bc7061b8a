"""Compiles generated kernel source, for the GPU with NVRTC and for the CPU with
the system C++ compiler, and caches the results on disk keyed by everything that
shapes them. Compiling needs no GPU."""
import ctypes
import functools
import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from .errors import CompileError, DeviceError, MinigrError
from .files import write_atomically

ENTRY = "minigr_kernel"
CUDA_OPTIONS = ("-std=c++17", "--device-as-default-execution-space")
CXX_OPTIONS = ("-std=c++17", "-O2", "-shared", "-fPIC", "-fno-strict-aliasing")


def cache_dir():
    """Where compiled kernels are kept: $MINIGR_CACHE_DIR, else the user's cache folder."""
    if os.environ.get("MINIGR_CACHE_DIR"):
        return Path(os.environ["MINIGR_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "minigr"


def _digest(data):
    return hashlib.sha256(data).hexdigest()


def cache_path(key, suffix):
    return cache_dir() / f"{key}{suffix}"


def cache_read(key, suffix):
    """The cached file's path if it exists and its checksum holds, else None."""
    path = cache_path(key, suffix)
    try:
        payload = path.read_bytes()
        recorded = path.with_name(path.name + ".sha256").read_text().strip()
    except OSError:
        return None
    return path if recorded == _digest(payload) else None


def cache_write(key, suffix, payload):
    """Stores payload atomically with its checksum; returns its path, or None if
    the cache folder cannot be written (the kernel is then kept in memory only)."""
    path = cache_path(key, suffix)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(path, payload)
        write_atomically(path.with_name(path.name + ".sha256"), _digest(payload).encode())
    except OSError:
        return None
    return path


# ---------------------------------------------------------------- GPU (NVRTC)

def _nvrtc():
    try:
        from cuda.bindings import nvrtc
    except ImportError:
        try:
            from cuda import nvrtc
        except ImportError as exc:
            raise MinigrError(f"cuda-python is not installed ({exc}); pip install cuda-bindings "
                              "nvidia-cuda-nvrtc") from None
    return nvrtc


def _call(what, fn, *args):
    """Calls an NVRTC function; returns its values, raising on an error code."""
    err, *values = fn(*args)
    if int(err) != 0:
        raise CompileError(f"NVRTC {what} failed: {err}")
    return values[0] if len(values) == 1 else tuple(values)


@functools.lru_cache(maxsize=None)
def nvrtc_version():
    """(major, minor) of the NVRTC library in use."""
    try:
        return _call("version", _nvrtc().nvrtcVersion)
    except RuntimeError as exc:  # the shared library itself could not be loaded
        raise MinigrError(f"NVRTC could not be loaded ({exc}); pip install nvidia-cuda-nvrtc") from None


def compile_cuda(source, arch, label="kernel"):
    """Cubin bytes for `source` on sm_<arch>, from the disk cache when present."""
    options = CUDA_OPTIONS + (f"--gpu-architecture=sm_{arch}",)
    version = nvrtc_version()
    key = _digest(repr((source, options, arch, version)).encode())
    cached = cache_read(key, ".cubin")
    if cached is not None:
        return cached.read_bytes()
    nvrtc = _nvrtc()
    prog = _call("create", nvrtc.nvrtcCreateProgram, source.encode(), b"minigr_kernel.cu", 0, [], [])
    try:
        err, = nvrtc.nvrtcCompileProgram(prog, len(options), [o.encode() for o in options])
        if int(err) != 0:
            log = b" " * _call("log size", nvrtc.nvrtcGetProgramLogSize, prog)
            _call("log", nvrtc.nvrtcGetProgramLog, prog, log)
            raise CompileError(f"{label} does not compile (NVRTC {version[0]}.{version[1]}, sm_{arch}):\n"
                               + log.decode(errors="replace").rstrip("\x00 \n"))
        cubin = b" " * _call("cubin size", nvrtc.nvrtcGetCUBINSize, prog)
        _call("cubin", nvrtc.nvrtcGetCUBIN, prog, cubin)
    finally:
        nvrtc.nvrtcDestroyProgram(prog)
    cache_write(key, ".cubin", cubin)
    return cubin


def load_cuda(cubin):
    """The entry point of a cubin, loaded into the current CUDA context by CuPy."""
    import cupy
    module = cupy.cuda.function.Module()
    try:
        module.load(cubin)
    except cupy.cuda.driver.CUDADriverError as exc:
        raise DeviceError(f"the GPU driver cannot load a kernel built by NVRTC {'.'.join(map(str, nvrtc_version()))} "
                          f"({exc}); update the driver, or install an NVRTC matching it") from None
    return module.get_function(ENTRY)


# ---------------------------------------------------------------- CPU (C++)

@functools.lru_cache(maxsize=None)
def cxx():
    """(path, version line) of the C++ compiler: $CXX, else g++ or clang++ on PATH."""
    name = os.environ.get("CXX") or shutil.which("g++") or shutil.which("clang++")
    path = name and shutil.which(name)
    if not path:
        raise MinigrError("the CPU backend needs a C++ compiler: install g++ or clang++, or set CXX")
    version = subprocess.run([path, "--version"], capture_output=True, text=True).stdout.splitlines()
    return path, (version[0] if version else "")


def compile_cpp(source, label="kernel"):
    """Path of a shared library built from `source`, from the disk cache when present."""
    path, version = cxx()
    key = _digest(repr((source, CXX_OPTIONS, path, version)).encode())
    cached = cache_read(key, ".so")
    if cached is not None:
        return cached
    with tempfile.TemporaryDirectory(prefix="minigr-") as tmp:
        src, lib = os.path.join(tmp, "minigr_kernel.cpp"), os.path.join(tmp, "minigr_kernel.so")
        with open(src, "w") as f:
            f.write(source)
        done = subprocess.run([path, *CXX_OPTIONS, src, "-o", lib], capture_output=True, text=True)
        if done.returncode != 0:
            raise CompileError(f"{label} does not compile for the CPU ({version}):\n"
                               + done.stderr.replace(src, "minigr_kernel.cpp").rstrip())
        payload = Path(lib).read_bytes()
    stored = cache_write(key, ".so", payload)
    if stored is None:  # no writable cache: keep a private copy for this process
        fd, private = tempfile.mkstemp(suffix=".so", prefix="minigr-")
        with os.fdopen(fd, "wb") as f:
            f.write(payload)
        stored = Path(private)
    return stored


def load_cpp(path):
    return getattr(ctypes.CDLL(str(path)), ENTRY)
