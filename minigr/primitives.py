"""The primitives as top-level functions that take any graph: minigr.bfs(graph, source),
minigr.pagerank(graph), ..., one for each primitive in the catalog (minigr.catalog).

graph is a minigr.Graph, a SciPy sparse matrix or array (entry (i, j) is edge i -> j), a
networkx graph with nodes 0..n-1 in order, or a file path or generator spec (as for
minigr.load). Keywords are the primitive's own options (those of minigr.apps.<name>, which
the CLI also takes), device= ("gpu" or "cpu"; default: a Graph stays where it is, anything
else goes to the GPU when there is one), and options for building the graph: those of
minigr.load, Graph.from_scipy or Graph.from_networkx, by the kind of graph. networkx's names
for the same options are taken too (NETWORKX_NAMES: minigr.pagerank(g, alpha=0.9)). The
primitive's options are checked against its record (type and limits) before any work. Each returns the
primitive's Result: arrays by name (result.depth, result.rank, ...; CuPy on the GPU, NumPy
on the CPU), result.ms, result.iterations, and result.to_host() with NumPy copies. Threads may
share a graph: a call holds the graph's lock for its run, since the buffers it works in are
kept with the graph.
"""
import functools
import inspect
import os
import sys

from . import apps, io
from .graph import Graph
from .transforms.errors import MinigrError
from .transforms.loop import build_ms_total


def as_graph(graph, device=None, **options):
    """graph as a minigr.Graph, built with `options` where it is not one already."""
    if isinstance(graph, Graph):
        if options:
            raise MinigrError(f"{', '.join(options)}: options for building a graph, and graph is a minigr.Graph "
                              "already; pass them where it is built")
        return graph if device is None else graph.to(device)
    if isinstance(graph, (str, os.PathLike)):
        return io.load(graph, device=device, **options)
    if "scipy.sparse" in sys.modules and sys.modules["scipy.sparse"].issparse(graph):
        return Graph.from_scipy(graph, device=device, **options)
    if _is_networkx(graph):
        if list(graph) != list(range(len(graph))):
            raise MinigrError("graph: a networkx graph needs nodes 0..n-1 in order, since results are arrays "
                              "indexed by vertex; relabel it (networkx.convert_node_labels_to_integers), or keep "
                              "its labels through the networkx backend (nx.pagerank(G, backend='minigr'))")
        return Graph.from_networkx(graph, device=device, **options)
    raise MinigrError("graph must be a minigr.Graph, a SciPy sparse matrix or array, a networkx graph, "
                      f"or a file path or generator spec; got {type(graph).__name__}")


# networkx's names for options a primitive names otherwise: name -> (the option, its value from
# networkx's). A networkx graph is still built with its `weight` attribute (Graph.from_networkx).
NETWORKX_NAMES = {"alpha": ("damping", lambda alpha: alpha),
                  "weight": ("weighted", lambda weight: weight is not None)}


def _own_names(name, own, graph, keywords):
    """keywords with networkx's names of the primitive's options (NETWORKX_NAMES) as its own."""
    keywords = dict(keywords)
    for alias, (option, value) in NETWORKX_NAMES.items():
        if alias in keywords and option in own:
            if option in keywords:
                raise TypeError(f"{name}() got {alias!r} and {option!r}, networkx's name and minigr's for one option")
            keywords[option] = value(keywords[alias])
            if alias not in BUILD_OPTIONS or not _is_networkx(graph):
                del keywords[alias]
    return keywords


def _is_networkx(graph):
    return "networkx" in sys.modules and isinstance(graph, sys.modules["networkx"].Graph)


def _keywords(function):
    """The names of a function's parameters that have defaults."""
    return {p.name for p in inspect.signature(function).parameters.values() if p.default is not p.empty}


BUILD_OPTIONS = (_keywords(io.load) | _keywords(Graph.from_edges) | _keywords(Graph.from_scipy)
                 | _keywords(Graph.from_networkx)) - {"device", "num_vertices"}


def _top_level(name):
    """minigr.<name>: the app of catalog record `name` on any graph (see the module docstring)."""
    record = apps.record(name)
    parameters = list(record.parameters.values())
    own = {p.name for p in parameters if p.kind is p.KEYWORD_ONLY}

    def primitive(graph, *args, device=None, **keywords):
        options = {}
        if keywords:  # (a call without any takes a few microseconds less)
            keywords = _own_names(name, own, graph, keywords)
            unknown = sorted(set(keywords) - own - BUILD_OPTIONS)
            if unknown:
                raise TypeError(f"{name}() got an unexpected keyword argument {unknown[0]!r}")
            options = record.check_options({key: keywords.pop(key) for key in own & set(keywords)})
        graph = as_graph(graph, device, **keywords)
        built = build_ms_total()
        with graph.on_its_gpu(), graph.lock:  # one run at a time on its buffers (see enactor.problem)
            result = record.run(graph, *args, **options)
        result.build_ms = build_ms_total() - built
        return result

    device = inspect.Parameter("device", inspect.Parameter.KEYWORD_ONLY, default=None)
    build = inspect.Parameter("build_options", inspect.Parameter.VAR_KEYWORD)
    primitive.__signature__ = inspect.Signature(
        [p for p in parameters if p.kind is not p.KEYWORD_ONLY]
        + [p for p in parameters if p.kind is p.KEYWORD_ONLY] + [device, build])
    primitive.__name__ = primitive.__qualname__ = name
    primitive.__module__ = "minigr"
    primitive.__doc__ = _docstring(record)
    return primitive


GRAPH = """graph : Graph, SciPy sparse matrix or array, networkx graph, str or path
    The graph: entry (i, j) of a matrix is edge i -> j, its value the weight; a networkx
    graph needs nodes 0..n-1 in order; a str or path is a file or generator spec, read by
    `minigr.load`."""
# loop's modes -> what each does (persistent ones: the first four, the others the first two; async where it relaxes).
LOOP_MODES = {"device": "the GPU decides, in a CUDA graph captured on the first call on a graph",
              "host": "the host decides each iteration",
              "persistent": "one GPU kernel runs every iteration",
              "auto": "persistent or device (or async), by the graph (see `minigr.enactor.loop_mode`)",
              "async": "one kernel relaxes through a queue, without levels (see `minigr.operators.Relax`)"}
DEVICE = """device : {'gpu', 'cpu'}, optional
    Where it runs. By default a Graph stays where it is, and anything else goes to the GPU
    when there is one.
**build_options
    Options for building the graph: those of `minigr.load`, `Graph.from_scipy` or
    `Graph.from_networkx`, by the kind of graph."""


def _docstring(record):
    """The top-level function's docstring: the app's (numpydoc), its Parameters led by
    graph and followed by loop (where it iterates and does not say itself), device and
    the build options."""
    summary, _, rest = inspect.cleandoc(record.run.__doc__).partition("\nReturns\n-------\n")
    summary, _, own = summary.partition("\nParameters\n----------\n")
    loop = ""
    if record.loops and not own.startswith("loop :") and "\nloop :" not in own:
        modes = record.loop_modes
        default = record.parameters["loop"].default
        loop = "\n".join([f"loop : {{{', '.join(map(repr, modes))}}}, default {default!r}",
                          *(f"    {mode!r}: {LOOP_MODES[mode]}." for mode in modes)])
    parameters = [GRAPH, own.strip(), loop, DEVICE]
    return "\n".join([summary.rstrip(), "", "Parameters", "----------", *filter(None, parameters), "",
                      "Returns", "-------", rest])


@functools.cache
def __getattr__(name):
    """minigr.primitives.<name> for every primitive in the catalog, built on first use."""
    if name not in apps.names():
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return _top_level(name)
