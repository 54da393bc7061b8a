"""minigr: transform-based GPU graph analytics for Python.

    import minigr
    result = minigr.bfs("grid:scale=10", 0)   # or a Graph, a SciPy matrix, a networkx graph, a file
    result.depth, result.parent, result.ms    # CuPy arrays on the GPU, NumPy on the CPU

Names are imported on first use, so `import minigr` stays cheap: networkx imports
it at its own start-up to read the backend's info (see minigr.nx.registry).
"""
from importlib import import_module as _import_module

from .apps import names as _primitive_names

__version__ = "0.1.0"  # the one place: pyproject.toml reads it

# name -> the module (under minigr) that defines it; each primitive of the catalog is a function of
# minigr.primitives.
_EXPORTS = {
    "Graph": "graph", "load": "io", "Result": "enactor",
    "MinigrError": "transforms.errors", "CompileError": "transforms.errors", "DeviceError": "transforms.errors",
    **{name: "primitives" for name in _primitive_names()},
}
__all__ = list(_EXPORTS)


def __getattr__(name):
    """The exported name, imported on its first use and kept: later uses skip this (a call of
    minigr.bfs on a small graph costs tens of microseconds; an import lookup each time was ~5)."""
    if name not in _EXPORTS:
        raise AttributeError(f"module 'minigr' has no attribute {name!r}")
    value = globals()[name] = getattr(_import_module(f"{__name__}.{_EXPORTS[name]}"), name)
    return value


def __dir__():
    return sorted({name for name in globals() if not name.startswith("_") or name.startswith("__")} | {*_EXPORTS})
