"""Compiles generated kernel source, for the GPU with NVRTC and for the CPU with
the system C++ compiler, and caches the results on disk keyed by everything that
shapes them. Compiling needs no GPU.

Loading a kernel runs its code, so the disk cache is trusted only where no one
else can write: a folder of this user's, not group- or world-writable, holding
files of this user's that no one else can write. A folder that fails this is
refused (once, on stderr) for a private per-process one. Kernels are loaded from
the bytes that were checked: CUDA binaries directly, shared libraries through a
private copy written after the check."""
import atexit
import ctypes
import functools
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from .errors import CompileError, DeviceError, MinigrError
from . import files
from .files import open_own_file, writable_by_others, write_atomically

ENTRY = "minigr_kernel"
CUDA_OPTIONS = ("-std=c++17", "--device-as-default-execution-space")
CXX_OPTIONS = ("-std=c++17", "-O2", "-shared", "-fPIC", "-fno-strict-aliasing")


def cache_dir():
    """Where compiled kernels are kept: $MINIGR_CACHE_DIR, else the user's cache folder."""
    if os.environ.get("MINIGR_CACHE_DIR"):
        return Path(os.environ["MINIGR_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "minigr"


# The cache's own file names: <sha256 key>.<cubin|so>, its checksum, and write_atomically's temporaries.
ENTRY_NAME = re.compile(r"\.?[0-9a-f]{64}\.(?:cubin|so)(?:\.sha256)?(?:\.\w+\.tmp)?")

_folders = {}     # configured cache folder -> (folder this process uses, why the configured one was refused)
_warned = set()   # what was said on stderr already


def _warn_once(topic, message):
    if topic not in _warned:
        _warned.add(topic)
        print(f"minigr: warning: {message}", file=sys.stderr, flush=True)


def folder_problem(folder):
    """Why `folder` cannot hold kernels that this process will run, and how to fix
    it; None when only this user can write it. Creates it, mode 0700, if missing."""
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = os.stat(folder)
    except OSError as exc:
        return f"it cannot be created ({exc.strerror or exc}); set MINIGR_CACHE_DIR to a folder of yours"
    why = writable_by_others(info)
    if why is None:
        return None
    fix = f"chmod 700 {folder}" if files.owner_of(info) == os.geteuid() else "set MINIGR_CACHE_DIR to a folder of your own"
    return f"{why}, so others could plant kernels in it; {fix}"


@functools.lru_cache(maxsize=None)
def private_folder():
    """A folder of this process's own (mode 0700, under $TMPDIR), removed when it
    exits: it holds the copies of the shared libraries this process loads, and its
    kernels when the cache folder is refused."""
    folder = tempfile.mkdtemp(prefix="minigr-")
    atexit.register(_remove_private_folder, folder, os.getpid())
    return Path(folder)


def _remove_private_folder(folder, creator):
    if os.getpid() == creator:  # a forked child that exits leaves its parent's folder alone
        shutil.rmtree(folder, ignore_errors=True)


def cache_folder():
    """(folder, problem): the configured cache folder, resolved, and None when only
    this user can write it; else this process's private folder and why the
    configured one was refused, said once on stderr. Never fails."""
    configured = cache_dir()
    if configured not in _folders:
        folder = Path(os.path.realpath(configured))
        problem = folder_problem(folder)
        if problem:
            _warn_once(configured, f"not using the kernel cache {folder}: {problem}. Kernels are kept in "
                                   f"{private_folder()} for this process only, and removed when it ends")
        _folders[configured] = (private_folder() if problem else folder, problem)
    return _folders[configured]


def _digest(data):
    return hashlib.sha256(data).hexdigest()


def _read_own_file(path):
    """The bytes of `path` if it is a regular file that only this user can write,
    else None (see files.open_own_file)."""
    f, why = open_own_file(path)
    if why:
        _warn_once("file", f"ignoring the cached kernel {path}: {why}; it is rebuilt")
    if f is None:
        return None
    with f:
        return f.read()


def cache_read(key, suffix):
    """The cached bytes if the entry and its checksum are files only this user can
    write and the checksum holds, else None. Callers load these very bytes, never
    the file again, so a file swapped after this check is never what runs."""
    path = cache_folder()[0] / f"{key}{suffix}"
    payload = _read_own_file(path)
    if payload is None:
        return None
    recorded = _read_own_file(path.with_name(path.name + ".sha256"))
    return payload if recorded is not None and recorded.strip() == _digest(payload).encode() else None


def cache_write(key, suffix, payload):
    """Stores payload atomically with its checksum; if the folder cannot be written
    the kernel is simply not cached."""
    path = cache_folder()[0] / f"{key}{suffix}"
    try:
        write_atomically(path, payload)
        write_atomically(path.with_name(path.name + ".sha256"), _digest(payload).encode())
    except OSError:
        pass


def clear_cache():
    """Removes the cache's own entries (kernels, checksums, unfinished temporaries)
    that this user owns from the configured cache folder; returns (folder, how many).
    Nothing else there is touched, and a link is removed, never followed."""
    folder = Path(os.path.realpath(cache_dir()))
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except FileNotFoundError:
        return folder, 0
    except OSError as exc:
        raise MinigrError(f"cannot clear the kernel cache {folder}: {exc.strerror or exc}") from None
    try:
        names = [e.name for e in os.scandir(fd) if ENTRY_NAME.fullmatch(e.name) and
                 not e.is_dir(follow_symlinks=False) and files.owner_of(e.stat(follow_symlinks=False)) == os.geteuid()]
        for name in names:
            os.unlink(name, dir_fd=fd)
    except OSError as exc:
        raise MinigrError(f"cannot clear the kernel cache {folder}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    return folder, len(names)


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
        return cached
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
    """The entry point of a cubin, loaded into the current CUDA context by CuPy from
    these bytes (cuModuleLoadData): the very bytes that were compiled or verified."""
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
    """Shared library bytes built from `source`, from the disk cache when present."""
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
        library = Path(lib).read_bytes()
    cache_write(key, ".so", library)
    return library


def load_cpp(library):
    """The entry point of a shared library given as its bytes. ctypes loads only
    files, so the bytes are written to a file in this process's private folder,
    which no one else can write, loaded from it, and the file removed: what runs is
    what was compiled or verified, never a cache file that could have been swapped
    since. The file is named by the bytes' digest because the dynamic loader hands
    back the library it loaded before under the same name."""
    copy = private_folder() / f"loaded-{_digest(library)}.so"
    write_atomically(copy, library)
    try:
        return getattr(ctypes.CDLL(str(copy)), ENTRY)
    except OSError as exc:
        raise MinigrError(f"cannot load a CPU kernel from {copy} ({exc}); if {private_folder()} is on a "
                          "file system mounted noexec, set TMPDIR to a folder of yours where programs may run"
                          ) from None
    finally:
        os.unlink(copy)
