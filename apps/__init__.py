"""minigr.apps: graph primitives, each a problem (per-vertex data), CUDA C
functors and an enactor loop over the operators, ending with its catalog
record (`APP = App(...)`, see minigr.catalog). This package finds them: the
CLI, the top-level functions, doctor and the bench read the records through
names(), record(name) and records()."""
import functools
import importlib
import pkgutil


def names():
    """The primitives' names: the public modules of this package, found without importing them."""
    return sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))


@functools.cache
def record(name):
    """The App record of one primitive (only its module is imported)."""
    from ..catalog import App
    from ..transforms.errors import MinigrError
    app = getattr(importlib.import_module(f"{__name__}.{name}"), "APP", None)
    if not isinstance(app, App) or app.name != name:
        raise MinigrError(f"minigr.apps.{name} must end with APP = App({name!r}, ...), its catalog record")
    return app


def records():
    """name -> App of every primitive, in name order."""
    return {name: record(name) for name in names()}


def on_parts(app):
    """run(part, [source,] **options) -> Result: primitive `app` (an App) on
    one part of a graph split over ranks (minigr.partition), called by every
    rank at once, giving the part's own vertices' values (its module is
    imported now); None where it has no such form."""
    if not app.partitioned:
        return None
    return importlib.import_module(f"{__name__}.{app.partitioned}").run
