"""The catalog of primitives: the records they declare themselves with. Every
public module of minigr.apps ends with one `APP = App(...)` record (found by
minigr.apps.records()), the single place that says what the CLI, the
top-level functions (minigr.bfs, ...), validation, the benchmarks and doctor
need to know of it: its options, result columns, reference check, the
variants doctor runs and the alternatives the bench compares it with. So
adding a primitive touches its own file and its tests, nothing else."""
import argparse
import collections
import dataclasses
import functools
import inspect
import math
import numbers

import numpy

from .arguments import check_has_weights, check_no_self_loops, check_source, check_undirected, check_weights
from .generators import SEEDS
from .graph import check_flags
from .transforms.errors import MinigrError

# A way to compute a primitive that the bench times: name; device ("gpu" or
# "cpu"); run(inputs, trace=None) -> (values, ms, iterations), trace a list for
# per-level records or None; traced: whether run fills a trace; skip(inputs) ->
# a reason not to run it, or None; once: run once, with no warm-up, as CPU
# systems are (a GPU system that takes seconds).
System = collections.namedtuple("System", "name device run traced skip once", defaults=(False, None, False))
# Limits shared by options: (test, what the value must be).
POSITIVE = (lambda x: math.isfinite(x) and x > 0, "a positive number")
NON_NEGATIVE = (lambda x: x >= 0, "a number >= 0")
AT_LEAST_1 = (lambda x: x >= 1, "at least 1")
ITERATIONS = (lambda x: 1 <= x < 2**31, "from 1 to 2^31 - 1")  # a loop's iteration counter is 32-bit
SEED_WORD = (lambda x: 0 <= x < 2**64, SEEDS)  # a seed, as minigr.generators.seed_word takes it


def vertex_ids(text):
    """The CLI's text of vertex ids, "3,8,12", as a list of ints."""
    try:
        return [int(x) for x in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected vertex ids separated by commas (3,8,12), got {text!r}") from None


def vertex_pairs(text):
    """The CLI's text of vertex pairs, "0-1,2-7", as a list of (int, int)."""
    try:
        pairs = [tuple(int(x) for x in pair.split("-")) for pair in text.split(",")] if text else []
        if any(len(pair) != 2 for pair in pairs):
            raise ValueError
        return pairs
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected pairs of vertex ids like 0-1,2-7, got {text!r}") from None


def _integers(value, shape):
    """Whether value is an array or nested sequence of integers (NumPy or CuPy) of
    `shape`, where None stands for any length."""
    if isinstance(value, (str, bytes, bool)) or not hasattr(value, "__len__"):
        return False
    try:
        array = value if hasattr(value, "__cuda_array_interface__") else numpy.asarray(value)
    except ValueError:  # ragged
        return False
    fits = len(array.shape) == len(shape) and all(w is None or w == s for w, s in zip(shape, array.shape))
    return fits and (array.dtype.kind in "iu" or array.size == 0)


# List-valued options (kind: vertex_ids or vertex_pairs; checked against the graph by the app).
IDS = (lambda x: _integers(x, (None,)) and len(x) > 0, "a non-empty list of vertex ids")
PAIRS = (lambda x: _integers(x, (None, 2)) or _integers(x, (0,)), "a list of vertex pairs (u, v)")

KINDS = {bool: ((bool, numpy.bool_), "True or False"), int: (numbers.Integral, "an integer"),
         float: (numbers.Real, "a number")}


class PositiveOrWords:
    """An Option's kind that takes a positive number or a word standing for another
    value (SSSP's --delta: a width, 'auto' or 'none'). Called on the CLI's text, it
    gives the value; `valid` is the Option's limits, for Python's values too.

    Parameters
    ----------
    words : dict
        The CLI's words -> the values they stand for: {"auto": "auto", "none": None}.
    what : str
        What a value must be, as the Option's errors say it.

    Returns
    -------
    PositiveOrWords
        ``kind(text)``: the value of the CLI's text (an argparse error where it is
        neither a number nor a word); ``valid``: (test(value) -> bool, what).

    Examples
    --------
    >>> from minigr.catalog import Option, PositiveOrWords
    >>> width = PositiveOrWords({"auto": "auto", "none": None}, "a positive number, 'auto' or None")
    >>> width("2.5"), width("none")
    (2.5, None)
    >>> Option("delta", width, "auto", "a bucket's width", width.valid).check(-1)
    Traceback (most recent call last):
    ...
    minigr.transforms.errors.MinigrError: delta must be a positive number, 'auto' or None, got -1
    """

    def __init__(self, words, what):
        self.words, values = words, tuple(words.values())
        self.valid = (lambda x: x in values or isinstance(x, numbers.Real) and not isinstance(x, bool)
                      and POSITIVE[0](x), what)

    def __call__(self, text):
        if text in self.words:
            return self.words[text]
        try:
            return float(text)
        except ValueError:
            words = " or ".join(repr(word) for word in self.words)
            raise argparse.ArgumentTypeError(f"expected a positive number, {words}, got {text!r}") from None


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
        """value (a NumPy scalar as the Python number it holds: the apps take Python's), or a
        MinigrError naming the option (label: as the user wrote it)."""
        if value is None and self.default is None:
            return value
        if self.kind in KINDS:
            types, what = KINDS[self.kind]
            if not isinstance(value, types) or self.kind is not bool and isinstance(value, (bool, numpy.bool_)):
                raise MinigrError(f"{label or self.name} must be {what}, got {value!r}")
        if self.valid and not self.valid[0](value):
            raise MinigrError(f"{label or self.name} must be {self.valid[1]}, got {value!r}")
        return value.item() if isinstance(value, numpy.generic) else value


def needs(*, undirected=None, no_self_loops=None, weights=None, weighted=None):
    """What a primitive needs of its graph, declared on its function: every call is checked
    before any work (minigr.<name>, the CLI, doctor, the bench and a direct call alike),
    and its catalog record reads them (App.needs). Each value names, in the refusal, what
    needs it. A function that takes a `source` gets it checked first (check_source) and
    called with the vertex id as an int.

    Parameters
    ----------
    undirected : str, optional
        An undirected graph (who needs it: "coloring").
    no_self_loops : str, optional
        No self-loops (what is not defined with them, with its verb: "core numbers are").
    weights : str, optional
        Edge weights (who needs them: "SSSP"); only whether the graph has them is checked
        on each call: a primitive that needs their values non-negative checks them itself,
        once per graph (minigr.arguments.weight_summary).
    weighted : str, optional
        Non-negative edge weights where the call passes ``weighted=True`` (who needs them:
        "weighted PageRank").

    Returns
    -------
    callable
        The decorator: the function, its arguments checked before it runs (the source,
        then undirected, self-loops, weights), with its needs as ``.needs``: {need: what}.

    Examples
    --------
    >>> import minigr
    >>> from minigr.catalog import needs
    >>> @needs(undirected="counting")
    ... def count(graph):
    ...     return graph.num_edges
    >>> count.needs
    {'undirected': 'counting'}
    >>> count(minigr.Graph.from_edges([0], [1]))
    Traceback (most recent call last):
    ...
    minigr.transforms.errors.MinigrError: counting needs an undirected graph; symmetrize it first (--symmetrize)
    """
    declared = dict(undirected=undirected, no_self_loops=no_self_loops, weights=weights, weighted=weighted)

    def checked(run):
        sourced = "source" in inspect.signature(run).parameters

        @functools.wraps(run)
        def primitive(graph, *args, **options):
            if sourced and (args or "source" in options):  # as run(graph, source) takes it
                args = (check_source(graph, args[0] if args else options.pop("source")), *args[1:])
            if undirected:
                check_undirected(graph, undirected)
            if no_self_loops:
                check_no_self_loops(graph.has_self_loops(), no_self_loops)
            if weights:
                check_has_weights(graph, weights)
            if weighted and options.get("weighted"):
                check_weights(graph, weighted)
            return run(graph, *args, **options)
        primitive.needs = {need: what for need, what in declared.items() if what}
        return primitive
    return checked


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
    """A primitive: run(graph, [source,] **options) -> enactor.Result; run's
    docstring (numpydoc) documents its own parameters, Returns and Examples, and
    minigr.primitives adds graph, loop, device and the build options; what it
    needs of the graph it declares with `needs` (App.needs reads it).
    columns: the result arrays --output writes, in order. check(graph, source,
    values, options) -> "ok" or "FAILED: ...", an independent CPU reference.
    rows: "vertex" (each column holds a value per vertex; --output puts the
    vertex first) or "edge" (a row per edge or pair, columns naming its ends
    among them). variants: option sets doctor runs once each on its sample graphs.
    bench: BenchCases.
    partitioned: the private module of minigr.apps holding its form on a
    graph split over ranks (see minigr.apps.on_parts); "" where it has none."""
    name: str
    run: callable
    help: str
    columns: tuple
    check: callable
    options: tuple = ()
    rows: str = "vertex"
    variants: tuple = ({},)
    bench: tuple = ()
    partitioned: str = ""
    persistent: bool = False  # it takes loop="persistent" (one persistent kernel) and "auto"
    relaxes: bool = False  # it has loop="async", label correcting without levels (minigr.operators.Relax)

    @property
    def needs(self):
        """What the graph must have, as run declares it (see `needs`): {need: who needs it},
        needs among "undirected", "no_self_loops", "weights" and "weighted"."""
        return getattr(self.run, "needs", {})

    @functools.cached_property
    def parameters(self):
        """run's parameters (inspect's), read once: each call's option check reads them, and
        inspect.signature takes ~10 us, which a call on a small graph (~0.1 ms) would feel."""
        return inspect.signature(self.run).parameters

    @property
    def sourced(self):
        """Whether run takes a source vertex."""
        return "source" in self.parameters

    @property
    def loops(self):
        """Whether run takes loop="device"|"host" (it iterates)."""
        return "loop" in self.parameters

    @functools.cached_property
    def loop_modes(self):
        """The loop= values run takes: none where it does not loop, else "device" and "host";
        "persistent" and "auto" where its loop body runs as one persistent kernel on every graph
        (others' bodies launch kernels that need a grid of their own); "async" where it relaxes."""
        if not self.loops:
            return ()
        return ("device", "host") + ("persistent", "auto") * self.persistent + ("async",) * self.relaxes

    def check_options(self, options, cli=False):
        """The options checked (type and limits), before any work, as Option.check returns them;
        names as --flags for the CLI. run's other keywords with a True or False default (weighted,
        normalized: Python's only) must be True or False: "no" is truthy."""
        checked = dict(options)
        for option in self.options:
            if option.name in options:
                checked[option.name] = option.check(options[option.name], option.flag if cli else None)
        check_flags(**{p.name: options[p.name] for p in self.parameters.values()
                       if isinstance(p.default, bool) and p.name in options})
        loop = options.get("loop", "device")
        if self.loops and not (isinstance(loop, str) and loop in self.loop_modes):
            raise MinigrError(f"{self.name}: loop must be one of {self.loop_modes}, got {loop!r}")
        return checked

