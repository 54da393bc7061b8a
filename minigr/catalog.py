"""The catalog of primitives. Every public module of minigr.apps ends with one
`APP = App(...)` record, the single place that says what the CLI, the
top-level functions (minigr.bfs, ...), validation, the benchmarks and doctor
need to know of it: its options, result columns, reference check, the
variants doctor runs and the alternatives the bench compares it with. So
adding a primitive touches its own file and its tests, nothing else."""
import collections
import dataclasses
import functools
import importlib
import inspect
import math
import numbers

import numpy

from .apps import names
from .transforms.errors import MinigrError

# A way to compute a primitive that the bench times: name; device ("gpu" or
# "cpu"); run(inputs, trace=None) -> (values, ms, iterations), trace a list for
# per-level records or None; traced: whether run fills a trace; skip(inputs) ->
# a reason not to run it, or None; once: run once, with no warm-up, as CPU
# systems are (a GPU system that takes seconds).
System = collections.namedtuple("System", "name device run traced skip once", defaults=(False, None, False))
# Limits shared by options: (test, what the value must be).
POSITIVE = (lambda x: math.isfinite(x) and x > 0, "a positive number")
AT_LEAST_1 = (lambda x: x >= 1, "at least 1")

KINDS = {bool: ((bool, numpy.bool_), "True or False"), int: (numbers.Integral, "an integer"),
         float: (numbers.Real, "a number")}


@dataclasses.dataclass(frozen=True)
class Option:
    """One of a primitive's own options: the app's keyword `name`, the CLI's
    --name (dashes for underscores). kind: bool (a flag), int, float, or a
    function reading the CLI's text into a value of the option's own kind
    (then `valid` alone checks values). valid: (test(value) -> bool, what it
    must be), checked before any work."""
    name: str
    kind: type
    default: object
    help: str
    valid: tuple = None

    @property
    def flag(self):
        return "--" + "-".join(self.name.split("_"))

    def check(self, value, label=None):
        """value, or a MinigrError naming the option (label: as the user wrote it)."""
        if value is None and self.default is None:
            return value
        if self.kind in KINDS:
            types, what = KINDS[self.kind]
            if not isinstance(value, types) or self.kind is not bool and isinstance(value, (bool, numpy.bool_)):
                raise MinigrError(f"{label or self.name} must be {what}, got {value!r}")
        if self.valid and not self.valid[0](value):
            raise MinigrError(f"{label or self.name} must be {self.valid[1]}, got {value!r}")
        return value


@dataclasses.dataclass(frozen=True)
class BenchCase:
    """A group of bench rows: minigr (with options) and its alternatives on
    one task. The systems' `key` values (a result array, or an extra such as
    a total) are compared with the `reference`
    system's by compare(values, reference_values) -> bool; or, where results
    may differ, verify(values, inputs) -> bool checks each (e.g. a proper
    coloring) and score = (column, score(values, inputs)) rates each, as a multiple
    of the reference's (e.g. colors). traced(inputs, trace): minigr's run level
    by level, each level timed into trace (traversals)."""
    label: str
    key: str
    alternatives: tuple = ()
    reference: str = None
    compare: callable = None
    verify: callable = None
    score: tuple = None
    options: dict = dataclasses.field(default_factory=dict)
    traced: callable = None


@dataclasses.dataclass(frozen=True)
class App:
    """A primitive: run(graph, [source,] **options) -> enactor.Result.
    columns: the result arrays --output writes, in order. check(graph, source,
    values, options) -> "ok" or "FAILED: ...", an independent CPU reference.
    needs: "weights" or "undirected", what the graph must have. variants:
    option sets doctor runs once each on its sample graphs. bench: BenchCases.
    partitioned: the private module of minigr.apps holding its form on a
    graph split over ranks (see on_parts); "" where it has none."""
    name: str
    run: callable
    help: str
    columns: tuple
    check: callable
    options: tuple = ()
    needs: str = ""
    variants: tuple = ({},)
    bench: tuple = ()
    partitioned: str = ""
    persistent: bool = False  # its loop runs as one persistent kernel by default (loop="persistent")

    @property
    def sourced(self):
        """Whether run takes a source vertex."""
        return "source" in inspect.signature(self.run).parameters

    @property
    def loops(self):
        """Whether run takes loop="device"|"host" (it iterates)."""
        return "loop" in inspect.signature(self.run).parameters

    def on_parts(self):
        """run(part, [source,] **options) -> Result: the primitive on one part
        of a graph split over ranks (minigr.partition), called by every rank
        at once, giving the part's own vertices' values (its module is
        imported now); None where it has no such form."""
        if not self.partitioned:
            return None
        return importlib.import_module(f"{__package__}.apps.{self.partitioned}").run

    def check_options(self, options, cli=False):
        """The options checked (type and limits), before any work; names as --flags for the CLI."""
        for option in self.options:
            if option.name in options:
                option.check(options[option.name], option.flag if cli else None)
        return options


def apps():
    """name -> App of every primitive, in name order."""
    return {name: app(name) for name in names()}


@functools.cache
def app(name):
    """The App record of one primitive (only its module is imported)."""
    record = getattr(importlib.import_module(f"{__package__}.apps.{name}"), "APP", None)
    if not isinstance(record, App) or record.name != name:
        raise MinigrError(f"minigr.apps.{name} must end with APP = App({name!r}, ...), its catalog record")
    return record
