"""networkx's shortest paths by minigr.bfs (unweighted) and minigr.sssp (Dijkstra's forms):
the same distances, their types (int or float), the same paths where several are shortest
and the same order, replayed from minigr's distances as traversal.visit_order says."""
import collections.abc

import networkx as nx
import numpy

import minigr

from . import traversal
from .registry import networkx_function

EXACT_INTEGERS = 2 ** 24  # float32 holds every integer below this, so sums of them are exact


def dijkstra(G, sources, weight, cutoff):
    """(order, parent, distance, number): minigr's SSSP distances from vertex ids `sources`, the
    order and tree networkx's Dijkstra gives (the sources, then the vertices within cutoff),
    and the type (int or float) networkx's distances have. Declines weights that are not
    positive integers, or distances float32 would round. Several sources start from a vertex
    added for them, joined to each by an edge of weight 1 (so distances from it are 1 more)."""
    values, integral = G.weights(weight)
    if not ((values > 0) & (values == numpy.floor(values)) & (values < EXACT_INTEGERS)).all():
        raise NotImplementedError(f"edge attribute {weight!r} has values that are not positive integers below 2^24")
    n = len(G)
    if len(sources) == 1:
        distance = minigr.sssp(G.minigr_graph(weight), sources[0]).to_host().distance.astype(numpy.float64)
    else:
        joined = minigr.Graph.from_edges(numpy.concatenate([G.src, numpy.full(len(sources), n)]),
                                         numpy.concatenate([G.dst, sources]),
                                         numpy.concatenate([values, numpy.ones(len(sources))]),
                                         num_vertices=n + 1)
        distance = minigr.sssp(joined, n).to_host().distance.astype(numpy.float64)[:n] - 1
    reached = numpy.isfinite(distance)
    if len(values) and distance[reached].max() + values.max() >= EXACT_INTEGERS:
        raise NotImplementedError("distances reach 2^24, beyond which float32 sums round")
    tight = reached[G.src] & (G.src != G.dst) & (distance[G.src] + values == distance[G.dst])
    level = numpy.full(n, -1)
    level[reached] = numpy.unique(distance[reached], return_inverse=True)[1]
    order, parent = traversal.visit_order(sources, level, G.src, G.dst, tight)
    if cutoff is not None:
        order = order[(distance[order] <= cutoff) | (numpy.arange(len(order)) < len(sources))]
    return order, parent, distance, int if integral else float


def _distances(G, order, distance, number, sources=1):
    """{node: distance} in `order`, the sources' an int 0 as networkx gives it."""
    values = list(map(number, distance[order].tolist()))
    values[:sources] = [0] * min(sources, len(values))
    return dict(zip(G.nodes_of(order), values))


def _sources(G, sources):
    """The vertex ids of `sources` (nodes), each once, in networkx's order."""
    return G.vertices(dict.fromkeys(sources))


def _from_sources(G, sources, cutoff, weight, *, lengths=True, paths=True):
    """networkx.multi_source_dijkstra's (distances, paths) from vertex ids `sources`; None for
    those not asked for."""
    order, parent, distance, number = dijkstra(G, sources, weight, cutoff)
    return (_distances(G, order, distance, number, len(sources)) if lengths else None,
            traversal.paths(G, order, parent, len(sources)) if paths else None)


def _to_target(G, sources, target, cutoff, weight):
    """networkx.multi_source_dijkstra's (distance, path) from vertex ids `sources` to `target`."""
    t = G.index[target] if target in G else None
    if t in sources:
        return 0, [target]
    _, parent, distance, number = dijkstra(G, sources, weight, cutoff)
    if t is None or not numpy.isfinite(distance[t]) or cutoff is not None and distance[t] > cutoff:
        raise nx.NetworkXNoPath(f"No path to {target}.")
    path = [t]
    while path[-1] not in sources:
        path.append(parent[path[-1]])
    return number(distance[t]), G.nodes_of(path[::-1])


def _sources_checks(a):
    sources, G = a["sources"], a["G"]
    ok = isinstance(sources, collections.abc.Collection) and sources and all(s in G for s in sources)
    return [(not ok, "sources is empty, not a collection or names a node not in the graph; networkx raises "
                     "the error")]


@networkx_function(checks=_sources_checks)
def multi_source_dijkstra(G, sources, target=None, cutoff=None, weight="weight"):
    """Runs minigr.sssp (from a vertex joined to the sources), then picks the paths networkx
    picks where several are shortest. Declines weight functions, weights that are not
    positive integers (float32 sums are exact for those, up to 2^24), a NaN cutoff."""
    if target is None:
        return _from_sources(G, _sources(G, sources), cutoff, weight)
    return _to_target(G, _sources(G, sources), target, cutoff, weight)


@networkx_function(checks=_sources_checks)
def multi_source_dijkstra_path(G, sources, cutoff=None, weight="weight"):
    """Runs minigr.sssp; declines as multi_source_dijkstra does."""
    return _from_sources(G, _sources(G, sources), cutoff, weight, lengths=False)[1]


@networkx_function(checks=_sources_checks)
def multi_source_dijkstra_path_length(G, sources, cutoff=None, weight="weight"):
    """Runs minigr.sssp; declines as multi_source_dijkstra does."""
    return _from_sources(G, _sources(G, sources), cutoff, weight, paths=False)[0]


@networkx_function()
def single_source_dijkstra(G, source, target=None, cutoff=None, weight="weight"):
    """Runs minigr.sssp, then picks the path networkx picks where several are shortest.
    Declines weight functions, weights that are not positive integers (float32 sums are exact
    for those, up to 2^24), a NaN cutoff."""
    return multi_source_dijkstra(G, [source], target, cutoff, weight)


@networkx_function()
def single_source_dijkstra_path(G, source, cutoff=None, weight="weight"):
    """Runs minigr.sssp; declines as single_source_dijkstra does."""
    return multi_source_dijkstra_path(G, [source], cutoff, weight)


@networkx_function()
def single_source_dijkstra_path_length(G, source, cutoff=None, weight="weight"):
    """Runs minigr.sssp; declines as single_source_dijkstra does."""
    return multi_source_dijkstra_path_length(G, [source], cutoff, weight)


@networkx_function()
def dijkstra_path(G, source, target, weight="weight"):
    """Runs minigr.sssp; declines as single_source_dijkstra does."""
    return _to_target(G, _sources(G, [source]), target, None, weight)[1]


@networkx_function()
def dijkstra_path_length(G, source, target, weight="weight"):
    """Runs minigr.sssp; declines as single_source_dijkstra does."""
    if source == target:
        return 0
    return _to_target(G, _sources(G, [source]), target, None, weight)[0]


def _target_checks(a):
    return [(a["target"] is not None and a["target"] not in a["G"],
             "the target is not in the graph; networkx raises the error")]


def _generic_checks(a):
    return [(a["source"] is None, "minigr finds paths from a source"), *_target_checks(a),
            (a["weight"] is not None and a["method"] != "dijkstra", "minigr runs Dijkstra's method only")]


@networkx_function(checks=lambda a: [*_generic_checks(a),
                                     (a["target"] is not None, "networkx finds a path to a target by a "
                                      "bidirectional search, whose choice among shortest paths minigr does not replay")])
def shortest_path(G, source=None, target=None, weight=None, method="dijkstra"):
    """Runs minigr.bfs (weight None) or minigr.sssp, from a source to every node. Declines
    no source, a target, and methods other than Dijkstra's."""
    if weight is None:
        return traversal.single_source_shortest_path(G, source)
    return single_source_dijkstra_path(G, source, weight=weight)


@networkx_function(checks=_generic_checks)
def shortest_path_length(G, source=None, target=None, weight=None, method="dijkstra"):
    """Runs minigr.bfs (weight None) or minigr.sssp, from a source. Declines no source and
    methods other than Dijkstra's."""
    if weight is not None:
        if target is None:
            return single_source_dijkstra_path_length(G, source, weight=weight)
        return dijkstra_path_length(G, source, target, weight)
    if target is None:
        return traversal.single_source_shortest_path_length(G, source)
    depth = traversal.depths(G, source)[G.index[target]]
    if depth < 0:
        raise nx.NetworkXNoPath(f"No path between {source} and {target}.")
    return int(depth)


@networkx_function(checks=_target_checks)
def has_path(G, source, target):
    """Runs minigr.bfs: whether the target is reachable."""
    return bool(traversal.depths(G, source)[G.index[target]] >= 0)

