"""minigr as a networkx backend (networkx >= 3.2 dispatch): nx.pagerank(G, backend="minigr"),
or NETWORKX_BACKEND_PRIORITY=minigr to send unchanged networkx code to minigr.

Each function gives networkx's answer: the same values, the same node order in the dicts and
lists it returns, the same exceptions. Where minigr cannot, it declines and networkx runs the
call itself: can_run declines on the arguments (a weight function, an option minigr lacks),
and a function raises NotImplementedError once the data shows it cannot match (weights that
float32 sums would round). minigr.nxinfo lists the functions and what each declines.
"""
import collections.abc
import inspect
import math
import numbers
import types

import networkx as nx
import numpy

import minigr

from .nxinfo import FUNCTIONS

EXACT_INTEGERS = 2 ** 24  # float32 holds every integer below this, so sums of them are exact
FLOAT32_MAX = float(numpy.finfo(numpy.float32).max)


class MinigrGraph:
    """A networkx graph converted for minigr: its nodes in networkx's order, and its edges as
    arrays src[e] -> dst[e] (vertex ids, the nodes' positions) in networkx's adjacency order,
    which networkx's searches follow: an undirected edge both ways, a self-loop once, a
    parallel edge once per copy. `attributes` holds the edge attributes the call named, as
    (float64 values, whether every value was an integer). minigr Graphs are built on first use."""
    __networkx_backend__ = "minigr"

    def __init__(self, nodes, src, dst, attributes, *, directed, multigraph, graph_attributes=None):
        self.nodes = nodes
        self.index = {node: i for i, node in enumerate(nodes)}
        self.src, self.dst = src, dst
        self.attributes = attributes
        self.directed, self.multigraph = directed, multigraph
        self.graph = graph_attributes or {}
        self._minigr_graphs = {}

    def is_directed(self):
        return self.directed

    def is_multigraph(self):
        return self.multigraph

    def __len__(self):
        return len(self.nodes)

    def __iter__(self):
        return iter(self.nodes)

    def __contains__(self, node):
        try:
            return node in self.index
        except TypeError:  # unhashable: not a node, as networkx answers
            return False

    def weights(self, weight):
        """(float64 weight per edge, whether all are integers) of attribute `weight`; ones for None."""
        if weight is None:
            return numpy.ones(len(self.src)), True
        if weight not in self.attributes:
            raise NotImplementedError(f"this graph was converted without the edge attribute {weight!r}")
        return self.attributes[weight]

    def minigr_graph(self, weight):
        """The minigr.Graph of this graph weighted by attribute `weight` (None: all weights 1)."""
        if weight not in self._minigr_graphs:
            values, _ = self.weights(weight)
            if not (numpy.isfinite(values) & (values >= 0) & (values <= FLOAT32_MAX)).all():
                raise NotImplementedError(f"edge attribute {weight!r} has negative or non-numeric values, or "
                                          "values beyond float32")
            self._minigr_graphs[weight] = minigr.Graph.from_edges(
                self.src, self.dst, values, num_vertices=len(self.nodes), directed=self.directed)
        return self._minigr_graphs[weight]


def convert_from_nx(G, edge_attrs=None, node_attrs=None, preserve_edge_attrs=False, preserve_node_attrs=False,
                    preserve_graph_attrs=False, name=None, graph_name=None):
    """G as a MinigrGraph, with the edge attributes edge_attrs names ({name: value where missing})."""
    if preserve_edge_attrs or preserve_node_attrs or node_attrs:
        raise NotImplementedError("minigr converts only the edge attributes a call names")
    nodes = list(G)
    index = {node: i for i, node in enumerate(nodes)}
    defaults = edge_attrs or {}
    src, dst, values = [], [], {attribute: [] for attribute in defaults}
    for u, neighbours in G.adj.items():
        for v, data in neighbours.items():
            for attributes in data.values() if G.is_multigraph() else (data,):
                src.append(index[u])
                dst.append(index[v])
                for attribute, default in defaults.items():
                    values[attribute].append(attributes.get(attribute, default))
    return MinigrGraph(
        nodes, numpy.array(src, numpy.int64), numpy.array(dst, numpy.int64),
        {attribute: (numpy.array([_real(x) for x in xs], numpy.float64),
                     all(isinstance(x, numbers.Integral) for x in xs)) for attribute, xs in values.items()},
        directed=G.is_directed(), multigraph=G.is_multigraph(),
        graph_attributes=dict(G.graph) if preserve_graph_attrs else None)


def convert_to_nx(obj, *, name=None):
    """obj, or a MinigrGraph as a networkx graph: its nodes, edges and converted edge
    attributes (parallel edges get keys 0, 1, ...)."""
    if not isinstance(obj, MinigrGraph):
        return obj
    G = {(False, False): nx.Graph, (True, False): nx.DiGraph,
         (False, True): nx.MultiGraph, (True, True): nx.MultiDiGraph}[obj.directed, obj.multigraph]()
    G.graph.update(obj.graph)
    G.add_nodes_from(obj.nodes)
    kept = numpy.flatnonzero(obj.directed | (obj.src <= obj.dst))  # an undirected edge once
    columns = {attribute: [int(x) if integral else float(x) for x in values[kept]]
               for attribute, (values, integral) in obj.attributes.items()}
    for i, e in enumerate(kept):
        G.add_edge(obj.nodes[obj.src[e]], obj.nodes[obj.dst[e]],
                   **{attribute: column[i] for attribute, column in columns.items()})
    return G


def _real(x):
    return float(x) if isinstance(x, numbers.Real) else math.nan


# ---- the functions -------------------------------------------------------------------------


def pagerank(G, alpha=0.85, personalization=None, max_iter=100, tol=1.0e-6, nstart=None, weight="weight",
             dangling=None):
    """networkx.pagerank by minigr.pagerank."""
    if len(G) == 0:
        return {}
    vectors = {key: _node_vector(G, values, key) for key, values in
               (("personalization", personalization), ("nstart", nstart), ("dangling", dangling))
               if values is not None}
    try:
        result = minigr.pagerank(G.minigr_graph(weight), damping=alpha, tol=tol, max_iter=max_iter,
                                 weighted=weight is not None, **vectors)
    except minigr.MinigrError as exc:
        if "did not converge" in str(exc):
            raise nx.PowerIterationFailedConvergence(max_iter) from exc
        raise
    return dict(zip(G.nodes, map(float, result.to_host().rank)))


def single_source_shortest_path_length(G, source, cutoff=None):
    """networkx.single_source_shortest_path_length by minigr.bfs."""
    order, _, depth = _bfs(G, source)
    if cutoff is not None:  # networkx goes one level further while the level is below cutoff
        order = order[(depth[order] - 1 < cutoff) | (order == order[0])]
    return {G.nodes[v]: int(depth[v]) for v in order}


def bfs_edges(G, source, reverse=False, depth_limit=None, sort_neighbors=None):
    """networkx.bfs_edges by minigr.bfs: the tree edges, in networkx's order."""
    order, parent, depth = _bfs(G, source)
    order = order[1:]
    if depth_limit is not None:
        order = order[depth[order] - 1 < depth_limit]
    for v in order:
        yield G.nodes[parent[v]], G.nodes[v]


def bfs_layers(G, sources):
    """networkx.bfs_layers by minigr.bfs, from one source."""
    order, _, depth = _bfs(G, _one_source(G, sources))
    for layer in numpy.split(order, numpy.flatnonzero(numpy.diff(depth[order])) + 1):
        yield [G.nodes[v] for v in layer]


def single_source_dijkstra_path_length(G, source, cutoff=None, weight="weight"):
    """networkx.single_source_dijkstra_path_length by minigr.sssp."""
    order, _, distance, number = _dijkstra(G, source, weight, cutoff)
    return _distances(G, order, distance, number)


def single_source_dijkstra(G, source, target=None, cutoff=None, weight="weight"):
    """networkx.single_source_dijkstra by minigr.sssp; where several paths are shortest,
    the one networkx picks."""
    if target in {source}:
        return 0, [target]
    order, parent, distance, number = _dijkstra(G, source, weight, cutoff)
    if target is not None:
        t = G.index.get(target)
        if t is None or not numpy.isfinite(distance[t]) or cutoff is not None and distance[t] > cutoff:
            raise nx.NetworkXNoPath(f"No path to {target}.")
        path = [t]
        while path[-1] != order[0]:
            path.append(parent[path[-1]])
        return number(distance[t]), [G.nodes[v] for v in reversed(path)]
    paths = {order[0]: [G.nodes[order[0]]]}
    for v in order[1:]:
        paths[v] = paths[parent[v]] + [G.nodes[v]]
    return _distances(G, order, distance, number), {G.nodes[v]: path for v, path in paths.items()}


def greedy_color(G, strategy="largest_first", interchange=False):
    """networkx.greedy_color by minigr.color, for the largest_first strategy: the same colors
    (minigr colors in networkx's order: degree, largest first, ties in node order), given in
    the order networkx colors the nodes."""
    if len(G) == 0:
        return {}
    n, loops = len(G), G.src == G.dst
    graph = G.minigr_graph(None)
    if loops.any():  # networkx counts a self-loop twice in a degree: store it twice
        graph = minigr.Graph.from_edges(numpy.concatenate([G.src, G.src[loops]]),
                                        numpy.concatenate([G.dst, G.dst[loops]]), num_vertices=n, directed=False)
    colors = minigr.color(graph).to_host().color
    degree = numpy.bincount(G.src, minlength=n) + numpy.bincount(G.src[loops], minlength=n)
    return {G.nodes[v]: int(colors[v]) for v in numpy.lexsort((numpy.arange(n), -degree))}


# ---- how networkx's searches visit the vertices ------------------------------------------------


def _bfs(G, source):
    """(order, parent, depth): minigr's BFS depths, and the order and tree networkx's BFS gives."""
    s = G.index[source]
    depth = minigr.bfs(G.minigr_graph(None), s).to_host().depth.astype(numpy.int64)
    tight = (depth[G.src] >= 0) & (depth[G.dst] == depth[G.src] + 1)
    return *_visit_order(s, depth, G.src, G.dst, tight), depth


def _dijkstra(G, source, weight, cutoff):
    """(order, parent, distance, number): minigr's SSSP distances, the order and tree networkx's
    Dijkstra gives (the source, then the vertices within cutoff), and the type (int or float)
    networkx's distances have. Declines weights that are not positive integers, or distances
    float32 would round."""
    values, integral = G.weights(weight)
    if not ((values > 0) & (values == numpy.floor(values)) & (values < EXACT_INTEGERS)).all():
        raise NotImplementedError(f"edge attribute {weight!r} has values that are not positive integers below 2^24")
    s = G.index[source]
    distance = minigr.sssp(G.minigr_graph(weight), s).to_host().distance.astype(numpy.float64)
    reached = numpy.isfinite(distance)
    if len(values) and distance[reached].max() + values.max() >= EXACT_INTEGERS:
        raise NotImplementedError("distances reach 2^24, beyond which float32 sums round")
    tight = reached[G.src] & (G.src != G.dst) & (distance[G.src] + values == distance[G.dst])
    level = numpy.full(len(distance), -1)
    level[reached] = numpy.unique(distance[reached], return_inverse=True)[1]
    order, parent = _visit_order(s, level, G.src, G.dst, tight)
    if cutoff is not None:
        order = order[(distance[order] <= cutoff) | (order == s)]
    return order, parent, distance, int if integral else float


def _visit_order(source, level, src, dst, tight):
    """(order, parent): the vertices in the order networkx's search (BFS, or Dijkstra with
    positive weights) first reaches them, and the vertex each is first reached from.

    level: each vertex's depth, or its distance's rank among the distances (-1 unreached);
    tight: the edges on shortest paths, each into a higher level. networkx takes vertices in
    the order it reached them, scanning each one's edges in adjacency order, and a vertex is
    reached by the first tight edge into it that it scans. So, level by level: sort the tight
    edges into the level by (order of their source, position), and keep each target's first."""
    n = len(level)
    rank = numpy.full(n, -1, numpy.int64)
    parent = numpy.full(n, -1, numpy.int64)
    rank[source] = 0
    edges = numpy.flatnonzero(tight)
    edges = edges[numpy.argsort(level[dst[edges]], kind="stable")]
    bounds = numpy.searchsorted(level[dst[edges]], numpy.arange(1, level.max() + 2))
    reached = 1
    for start, stop in zip(bounds[:-1], bounds[1:]):
        scanned = edges[start:stop]
        scanned = scanned[numpy.lexsort((scanned, rank[src[scanned]]))]
        first = numpy.sort(numpy.unique(dst[scanned], return_index=True)[1])
        firsts = scanned[first]
        rank[dst[firsts]] = reached + numpy.arange(len(firsts))
        parent[dst[firsts]] = src[firsts]
        reached += len(firsts)
    return numpy.argsort(rank)[n - reached:], parent


def _distances(G, order, distance, number):
    """{node: distance} in `order`, the source's an int 0 as networkx gives it."""
    return {G.nodes[v]: number(distance[v]) if i else 0 for i, v in enumerate(order)}


def _node_vector(G, values, name):
    """A dict of per-node values (0 where missing) as an array over the vertices."""
    vector = numpy.array([_real(values.get(node, 0)) for node in G.nodes])
    if not (numpy.isfinite(vector).all() and (vector >= 0).all() and vector.sum() > 0):
        raise NotImplementedError(f"{name} has negative or non-numeric values, or sums to 0")
    return vector


def _one_source(G, sources):
    """The one node `sources` names (a node, or a collection of copies of one node), else None."""
    if sources in G:
        return sources
    if isinstance(sources, (list, tuple, set, frozenset)) and sources:
        first = next(iter(sources))
        if first in G and all(s == first for s in sources):
            return first
    return None


# ---- what can run -----------------------------------------------------------------------------


def can_run(name, args, kwargs):
    """True when minigr gives networkx's answer for these arguments; else why not."""
    try:
        arguments = inspect.signature(globals()[name]).bind(*args, **kwargs)
    except TypeError:
        return "the arguments do not fit the function; networkx reports the error"
    arguments.apply_defaults()
    a = arguments.arguments
    reasons = [reason for failed, reason in _declines(name, a) if failed]
    return reasons[0] if reasons else True


def _declines(name, a):
    """(whether minigr must decline, why) for the arguments `a` of call `name`."""
    G = a["G"]
    checks = [
        ("source" in a and a["source"] not in G, "the source is not in the graph; networkx raises the error"),
        (callable(a.get("weight")), "weight functions are networkx's only"),
        (not _optional_number(a.get("cutoff")), "cutoff is not a number"),
    ]
    if name == "pagerank":
        checks += [
            (not (isinstance(a["alpha"], numbers.Real) and 0 < a["alpha"] < 1), "alpha is not in (0, 1)"),
            (not (isinstance(a["tol"], numbers.Real) and a["tol"] > 0), "tol is not positive"),
            (not (isinstance(a["max_iter"], numbers.Integral) and a["max_iter"] >= 1), "max_iter is below 1"),
            (any(a[key] is not None and not isinstance(a[key], collections.abc.Mapping)
                 for key in ("personalization", "nstart", "dangling")),
             "personalization, nstart and dangling must be dicts"),
        ]
    elif name == "bfs_edges":
        checks += [
            (a["sort_neighbors"] is not None, "sort_neighbors orders are networkx's only"),
            (a["reverse"] and G.is_directed(), "reverse=True on a directed graph needs the predecessor order"),
            (not _optional_number(a["depth_limit"]), "depth_limit is not a number"),
        ]
    elif name == "bfs_layers":
        checks.append((_one_source(G, a["sources"]) is None, "minigr.bfs starts from one source"))
    elif name == "greedy_color":
        checks += [
            (not _is_largest_first(a["strategy"]), "minigr colors in the largest_first strategy's order only"),
            (a["interchange"], "interchange is networkx's only"),
            (G.is_directed(), "minigr colors undirected graphs"),
        ]
    return checks


def _is_largest_first(strategy):
    """Whether `strategy` names networkx's largest_first strategy (by name or as the function)."""
    from networkx.algorithms.coloring.greedy_coloring import STRATEGIES
    largest_first = STRATEGIES["largest_first"]
    return strategy is largest_first or isinstance(strategy, str) and STRATEGIES.get(strategy) is largest_first


def _optional_number(x):
    return x is None or isinstance(x, numbers.Real) and not isinstance(x, bool)


# What networkx loads for backend "minigr" (entry point networkx.backends).
backend = types.SimpleNamespace(convert_from_nx=convert_from_nx, convert_to_nx=convert_to_nx, can_run=can_run,
                                **{name: globals()[name] for name in FUNCTIONS})
