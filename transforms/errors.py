"""Errors raised by minigr; every one says what was wrong and what to do."""


class MinigrError(Exception):
    """Base class for minigr errors: user-facing, printed without a traceback."""


class CompileError(MinigrError):
    """A functor or kernel failed to compile; the message holds the compiler log."""


class DeviceError(MinigrError):
    """No usable GPU, a driver too old, or GPU memory exhausted."""
