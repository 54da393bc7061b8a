"""minigr.apps: graph primitives, each a problem (per-vertex data), CUDA C
functors and an enactor loop over the operators, ending with its catalog
record (see minigr.catalog)."""
import pkgutil


def names():
    """The primitives' names: the public modules of this package, found without importing them."""
    return sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))
