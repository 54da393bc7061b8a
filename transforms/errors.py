"""Errors raised by minigr; every one says what was wrong and what to do."""
import contextlib


class MinigrError(Exception):
    """Base class for minigr errors: user-facing, printed without a traceback."""


class CompileError(MinigrError):
    """A functor or kernel failed to compile; the message holds the compiler log."""


class DeviceError(MinigrError):
    """No usable GPU, a driver too old, or GPU memory exhausted."""


@contextlib.contextmanager
def naming_errors(name, doing):
    """Errors of the functors and kernels of the work of `name` (a loop, a
    primitive), with its name first: a MinigrError as it was, a CUDA error
    (a kernel failed) as a DeviceError saying that the GPU failed while `doing`."""
    try:
        yield
    except MinigrError as exc:
        raise type(exc)(f"{name}: {exc}") from None
    except Exception as exc:
        if type(exc).__module__.startswith("cupy"):
            raise DeviceError(f"{name}: the GPU failed while {doing}: {exc}") from exc
        raise
