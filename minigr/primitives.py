"""The primitives as top-level functions that take any graph: minigr.bfs(graph, source),
minigr.sssp(graph, source), minigr.pagerank(graph), minigr.color(graph).

graph is a minigr.Graph, a SciPy sparse matrix or array (entry (i, j) is edge i -> j), a
networkx graph with nodes 0..n-1 in order, or a file path or generator spec (as for
minigr.load). Keywords are the primitive's own options (those of minigr.apps.<name>, which
the CLI also takes), device= ("gpu" or "cpu"; default: a Graph stays where it is, anything
else goes to the GPU when there is one), and options for building the graph: those of
minigr.load, Graph.from_scipy or Graph.from_networkx, by the kind of graph. Each returns the
primitive's Result: arrays by name (result.depth, result.rank, ...; CuPy on the GPU, NumPy
on the CPU), result.ms, result.iterations, and result.to_host() with NumPy copies.
"""
import importlib
import inspect
import numbers
import os
import sys

import numpy
import scipy.sparse

from . import cli, io
from .graph import Graph
from .transforms.errors import MinigrError

TYPES = {bool: ((bool, numpy.bool_), "True or False"), int: (numbers.Integral, "an integer"),
         float: (numbers.Real, "a number")}


def as_graph(graph, device=None, **options):
    """graph as a minigr.Graph, built with `options` where it is not one already."""
    if isinstance(graph, Graph):
        if options:
            raise MinigrError(f"{', '.join(options)}: options for building a graph, and graph is a minigr.Graph "
                              "already; pass them where it is built")
        return graph if device is None else graph.to(device)
    if isinstance(graph, (str, os.PathLike)):
        return io.load(graph, device=device, **options)
    if scipy.sparse.issparse(graph):
        return Graph.from_scipy(graph, device=device, **options)
    if "networkx" in sys.modules and isinstance(graph, sys.modules["networkx"].Graph):
        if list(graph) != list(range(len(graph))):
            raise MinigrError("graph: a networkx graph needs nodes 0..n-1 in order, since results are arrays "
                              "indexed by vertex; relabel it (networkx.convert_node_labels_to_integers), or keep "
                              "its labels through the networkx backend (nx.pagerank(G, backend='minigr'))")
        return Graph.from_networkx(graph, device=device, **options)
    raise MinigrError("graph must be a minigr.Graph, a SciPy sparse matrix or array, a networkx graph, "
                      f"or a file path or generator spec; got {type(graph).__name__}")


def _keywords(function):
    """The names of a function's parameters that have defaults."""
    return {p.name for p in inspect.signature(function).parameters.values() if p.default is not p.empty}


BUILD_OPTIONS = (_keywords(io.load) | _keywords(Graph.from_edges) | _keywords(Graph.from_scipy)
                 | _keywords(Graph.from_networkx)) - {"device", "num_vertices"}


def check_options(name, options):
    """Primitive options that the CLI also takes must be of its type (float, int, bool; None
    where that is the default) and within its limits (cli.LIMITS), checked before any work."""
    for flag, argparse_keywords in cli.PRIMITIVES[name].options:
        dest = flag[2:].replace("-", "_")
        if dest not in options or options[dest] is None and argparse_keywords.get("default") is None:
            continue
        value, kind = options[dest], argparse_keywords.get("type", bool)  # store_true flags are booleans
        if kind not in TYPES:  # a value of its own kind (sssp's delta): the app checks it
            continue
        types, what = TYPES[kind]
        if not isinstance(value, types) or kind is not bool and isinstance(value, bool):
            raise MinigrError(f"{dest} must be {what}, got {value!r}")
        if dest in cli.LIMITS and not cli.LIMITS[dest][0](value):
            raise MinigrError(f"{dest} must be {cli.LIMITS[dest][1]}, got {value!r}")


def _top_level(name):
    """minigr.<name>: the app minigr.apps.<name>.<name> on any graph (see the module docstring)."""
    app = getattr(importlib.import_module(f"{__package__}.apps.{name}"), name)
    parameters = list(inspect.signature(app).parameters.values())
    own = {p.name for p in parameters if p.kind is p.KEYWORD_ONLY}

    def primitive(graph, *args, device=None, **keywords):
        unknown = sorted(set(keywords) - own - BUILD_OPTIONS)
        if unknown:
            raise TypeError(f"{name}() got an unexpected keyword argument {unknown[0]!r}")
        options = {key: keywords.pop(key) for key in own & set(keywords)}
        check_options(name, options)
        return app(as_graph(graph, device, **keywords), *args, **options)

    device = inspect.Parameter("device", inspect.Parameter.KEYWORD_ONLY, default=None)
    build = inspect.Parameter("build_options", inspect.Parameter.VAR_KEYWORD)
    primitive.__signature__ = inspect.Signature(
        [p for p in parameters if p.kind is not p.KEYWORD_ONLY] + [device]
        + [p for p in parameters if p.kind is p.KEYWORD_ONLY] + [build])
    primitive.__name__ = primitive.__qualname__ = name
    primitive.__module__ = "minigr"
    primitive.__doc__ = f"{inspect.cleandoc(app.__doc__)}\n\nOn any graph: see minigr.primitives."
    return primitive


bfs, sssp, pagerank, color = (_top_level(name) for name in ("bfs", "sssp", "pagerank", "color"))
