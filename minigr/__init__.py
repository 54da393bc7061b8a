"""minigr: transform-based GPU graph analytics for Python."""
from .graph import Graph
from .io import load
from .transforms.errors import CompileError, DeviceError, MinigrError

__all__ = ["Graph", "load", "MinigrError", "CompileError", "DeviceError"]
