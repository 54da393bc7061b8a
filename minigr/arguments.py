"""A primitive's arguments checked before any work: a source vertex in range, an
undirected graph, no self-loops, non-negative edge weights, per-vertex arrays of the
right shape. Each failure is a MinigrError that names what was wrong and what to do,
so that a user's mistake never reaches a kernel."""
import collections.abc
import numbers
import operator

import numpy

from .transforms import Functor, transform
from .transforms.errors import MinigrError


def check_source(graph, source, what="source", where="the graph"):
    """The source vertex as an int, or a MinigrError saying the valid range
    (what: the parameter as the user wrote it; where: the graph, as named to them)."""
    try:
        if isinstance(source, (bool, numpy.bool_)):
            raise TypeError
        source = operator.index(source)  # an int, a NumPy integer or a 0-d integer array; not [1]
    except TypeError:
        raise MinigrError(f"{what} must be a vertex id, got {source!r}") from None
    n = graph.num_vertices
    if not 0 <= source < n:
        ids = f"ids 0 to {n - 1}" if n else "no ids at all"
        raise MinigrError(f"{what} {source} is out of range: {where} has {n} vertices ({ids})")
    return source


def check_undirected(graph, what):
    """A MinigrError unless the graph is undirected (what: who needs it)."""
    if graph.directed:
        raise MinigrError(f"{what} needs an undirected graph; symmetrize it first (--symmetrize)")


def check_no_self_loops(self_loops, what):
    """A MinigrError where a graph has self-loops (self_loops: whether it has; what: what is
    not defined on such a graph, with its verb: "core numbers are"), as networkx refuses them."""
    if self_loops:
        raise MinigrError(f"{what} not defined on a graph with self-loops (networkx refuses them too); "
                          "drop them with remove_self_loops=True (--remove-self-loops)")


def check_has_weights(graph, what):
    """A MinigrError unless the graph has edge weights (what: who needs them), whatever their values."""
    if graph.weights is None:
        raise MinigrError(f"{what} needs edge weights and the graph has none: load a weighted file, "
                          "or pass weights='random' (--weights random)")


def check_weights(graph, what):
    """A MinigrError unless the graph has edge weights, none negative (what: who needs
    them); else the lowest weight as a float (None without edges)."""
    check_has_weights(graph, what)
    lowest = float(graph.weights.min()) if graph.num_edges else None
    if lowest is not None and lowest < 0:
        raise MinigrError(f"{what} needs non-negative weights; this graph has negative ones")
    return lowest


_WEIGHT = "minigr::Sums<1> operator()(long long edge) const { return {weights[edge]}; }"


def weight_summary(graph, what):
    """check_weights(graph, what), then (lowest, largest, mean) of the graph's edge weights
    as floats, (1, 0, 0) without edges. The mean by a pass of minigr's (CuPy's mean took
    35-55 ms on the first call of each process, on an H100: a one-time SSSP took 147 ms, 28 later)."""
    lowest = check_weights(graph, what)
    if lowest is None:
        return 1.0, 0.0, 0.0
    total = graph.xp.zeros(1)
    transform(graph.num_edges, Functor(_WEIGHT, filename="<weight sum>", weights=graph.weights), sums=total)
    return lowest, float(graph.weights.max()), float(total[0]) / graph.num_edges


def per_vertex(graph, name, value):
    """A per-vertex array (NumPy or CuPy; or networkx's form, a dict {vertex: value}, 0 where
    missing) as float64 on the graph's device, or None for None; a MinigrError naming it when
    it has the wrong shape."""
    if value is None:
        return None
    if isinstance(value, collections.abc.Mapping):
        value = _dense(name, value, graph.num_vertices)
    array = graph.xp.asarray(value, dtype="float64")
    if array.shape != (graph.num_vertices,):
        raise MinigrError(f"{name} must have one entry per vertex ({graph.num_vertices}), got shape {array.shape}")
    return array


def distribution(graph, name, value):
    """A per-vertex array (NumPy or CuPy) on the graph's device, normalized to sum
    1, or None for None; a MinigrError naming it when it is not one."""
    array = per_vertex(graph, name, value)
    if array is None:
        return None
    total = float(array.sum())
    if not total < float("inf") or float(array.min()) < 0 or total <= 0:
        raise MinigrError(f"{name} must be finite and non-negative with a positive sum")
    return array / total


def _dense(name, values, n):
    """A dict {vertex: value} as a NumPy array of n values, 0 where missing."""
    array = numpy.zeros(n)
    for vertex, value in values.items():
        if not (isinstance(vertex, numbers.Integral) and 0 <= vertex < n):
            raise MinigrError(f"{name}: {vertex!r} is not a vertex id (0..{n - 1})")
        if not isinstance(value, numbers.Real):
            raise MinigrError(f"{name}: the value of vertex {vertex} is not a real number, got {value!r}")
        array[vertex] = value
    return array


__all__ = ["check_has_weights", "check_no_self_loops", "check_source", "check_undirected", "check_weights",
           "distribution", "per_vertex", "weight_summary"]
