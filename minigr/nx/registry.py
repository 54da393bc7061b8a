"""The functions minigr's networkx backend runs, each registered beside its implementation by
@networkx_function: its networkx name, the parameters it accepts (its signature), when it
declines (its checks) and its docs for networkx's backend_info (its docstring). can_run and
should_run, which networkx asks before each call, read this registry.

This module imports neither networkx nor minigr's primitives: networkx reads the backend's
info while it starts up.
"""
import ast
import dataclasses
import inspect
import numbers
import pathlib

FUNCTIONS = {}  # networkx name -> Function, filled as the modules of minigr.nx are imported

# networkx runs a call itself, unconverted, on a graph of fewer edges than this, where its own
# run costs less than converting the graph for minigr: the median, over the functions where
# minigr with the conversion overtakes networkx at all, of the size where it does, measured by
# `python -m minigr.bench.networkx --crossover` on the CPU backend (README, networkx backend).
SMALLEST_EDGES = 400


@dataclasses.dataclass(frozen=True)
class Function:
    """A networkx function minigr runs. checks(a) gives (declined, why) pairs for its bound
    arguments a (defaults applied); docs: what minigr runs and what it declines."""
    implementation: callable
    checks: callable
    docs: str

    @property
    def signature(self):
        return inspect.signature(self.implementation)


def networkx_function(checks=None):
    """Registers the decorated function as the backend's form of the networkx function of
    the same name, which it must match parameter for parameter; its docstring is what
    networkx's backend_info shows of it.

    Parameters
    ----------
    checks : callable, optional
        checks(a) -> (declined, why) pairs for the call's bound arguments a (defaults
        applied), beyond those every function shares (see `declines`); can_run declines the
        call with the first `why` whose `declined` is true.

    Returns
    -------
    callable
        The decorator, which returns the function unchanged.

    Example
    -------
    >>> @networkx_function(checks=lambda a: [(a["k"] < 0, "k is negative")])
    ... def k_core(G, k=None, core_number=None):
    ...     "Runs minigr.kcore; declines negative k."
    """
    def register(implementation):
        FUNCTIONS[implementation.__name__] = Function(implementation, checks or (lambda a: ()),
                                                      inspect.cleandoc(implementation.__doc__))
        return implementation
    return register


def can_run(name, args, kwargs):
    """True when minigr gives networkx's answer for these arguments; else why not."""
    try:
        arguments = FUNCTIONS[name].signature.bind(*args, **kwargs)
    except TypeError:
        return "the arguments do not fit the function; networkx reports the error"
    arguments.apply_defaults()
    a = arguments.arguments
    for declined, why in [*declines(a), *FUNCTIONS[name].checks(a)]:
        if declined:
            return why
    return True


def should_run(name, args, kwargs):
    """True unless the graph is so small that networkx's own run costs less than converting it."""
    G = args[0] if args else kwargs.get("G")
    if getattr(G, "__networkx_backend__", "networkx") == "networkx" and G.number_of_edges() < SMALLEST_EDGES:
        return f"fewer than {SMALLEST_EDGES} edges: converting the graph costs more than networkx's own run"
    return True


def declines(a):
    """(declined, why) for the parameters several functions share, by name."""
    G = a["G"]
    return [
        ("source" in a and a["source"] not in G, "the source is not in the graph; networkx raises the error"),
        (callable(a.get("weight")), "weight functions are networkx's only"),
        (not optional_number(a.get("cutoff")), "cutoff is not a number (or is NaN, which networkx ignores)"),
    ]


def optional_number(x):
    """Whether x is None or a real number other than NaN (and not a bool)."""
    return x is None or isinstance(x, numbers.Real) and not isinstance(x, bool) and x == x


def info():
    """The backend's description, in the form networkx asks of an entry point
    networkx.backend_info. networkx asks while it starts up, so the functions and their docs
    are read from the source of minigr.nx's modules (the functions @networkx_function
    decorates, and their docstrings), not imported: that would import NumPy into every
    program that imports networkx."""
    return {
        "backend_name": "minigr",
        "project": "minigr",
        "package": "minigr",
        "url": None,
        "short_summary": "Transform-based GPU graph analytics (Mini-Gunrock style); a C++ CPU backend without a GPU.",
        "functions": {name: {"additional_docs": docs} for name, docs in sorted(_registered_in_source())},
        "default_config": {},
    }


def _registered_in_source():
    """(name, docstring) of each function decorated by @networkx_function in minigr.nx's modules."""
    for path in sorted(pathlib.Path(__file__).parent.glob("*.py")):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.FunctionDef) and any(
                    isinstance(d, ast.Call) and getattr(d.func, "id", None) == networkx_function.__name__
                    for d in node.decorator_list):
                yield node.name, inspect.cleandoc(ast.get_docstring(node))
