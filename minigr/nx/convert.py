"""Graphs between networkx and minigr: a networkx graph converted once (networkx caches it on
the graph) into a MinigrGraph, which builds the minigr Graphs a call needs."""
import itertools
import math
import numbers

import networkx as nx
import numpy

import minigr

FLOAT32_MAX = float(numpy.finfo(numpy.float32).max)
FLOAT32_SMALLEST = float(numpy.finfo(numpy.float32).tiny)  # the smallest normal float32


class MinigrGraph:
    """A networkx graph converted for minigr: its nodes in networkx's order, and its edges as
    arrays src[e] -> dst[e] (vertex ids, the nodes' positions) in networkx's adjacency order,
    which networkx's searches follow: an undirected edge both ways, a self-loop once, a
    parallel edge once per copy. `attributes` holds the edge attributes the call named, as
    (float64 values, whether every value was an integer); `edge_data`, where the conversion
    kept every attribute (networkx then serves this graph to any later call, whatever
    attribute it names), each edge's attribute dict, from which `weights` reads the others;
    `networkx` the graph itself, whose parts a function returns with all their attributes
    (k_core). minigr Graphs are built on first use."""
    __networkx_backend__ = "minigr"

    def __init__(self, nodes, src, dst, attributes, *, directed, multigraph, graph_attributes=None, networkx=None,
                 edge_data=None):
        self.networkx = networkx
        self.edge_data = edge_data
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

    def nodes_of(self, ids):
        """The nodes of vertex ids `ids` (an array), as a list."""
        return list(map(self.nodes.__getitem__, numpy.asarray(ids).tolist()))

    def selected(self, nodes):
        """The vertex ids networkx takes for `nodes`, in its order: every node for None, a node,
        or a collection's nodes that are in the graph."""
        if nodes is None:
            return numpy.arange(len(self.nodes))
        if nodes in self:
            return self.vertices([nodes])
        return self.vertices([node for node in nodes if node in self])

    def number_of_edges(self):
        """networkx's count: an undirected edge once, a parallel edge once per copy."""
        return len(self.src) if self.directed else (len(self.src) + int((self.src == self.dst).sum())) // 2

    def vertices(self, nodes):
        """The vertex ids of `nodes`, an iterable of nodes, as an int64 array."""
        return numpy.array([self.index[node] for node in nodes], numpy.int64)

    def weights(self, weight):
        """(float64 weight per edge, whether all are integers) of attribute `weight`; ones for None."""
        if weight is None:
            return numpy.ones(len(self.src)), True
        if weight not in self.attributes and self.edge_data is not None:  # 1 where missing, as networkx reads it
            self.attributes[weight] = _column([data.get(weight, 1) for data in self.edge_data])
        if weight not in self.attributes:
            raise NotImplementedError(f"this graph was converted without the edge attribute {weight!r}")
        return self.attributes[weight]

    def minigr_graph(self, weight=None, *, reverse=False):
        """The minigr.Graph of this graph weighted by attribute `weight` (None: all weights 1),
        its edges reversed if `reverse`. Declines weights that float32, minigr's weight type,
        does not hold: negative, non-numeric, beyond its range or too small for its precision."""
        key = weight, reverse
        if key not in self._minigr_graphs:
            values, _ = self.weights(weight)
            if not (numpy.isfinite(values) & ((values == 0) | (values >= FLOAT32_SMALLEST))
                    & (values <= FLOAT32_MAX)).all():
                raise NotImplementedError(f"edge attribute {weight!r} has negative or non-numeric values, or values "
                                          "float32 does not hold (beyond its range, or below 1.2e-38)")
            src, dst = (self.dst, self.src) if reverse else (self.src, self.dst)
            self._minigr_graphs[key] = minigr.Graph.from_edges(src, dst, values, num_vertices=len(self.nodes),
                                                               directed=self.directed)
        return self._minigr_graphs[key]


def convert_from_nx(G, edge_attrs=None, node_attrs=None, preserve_edge_attrs=False, preserve_node_attrs=False,
                    preserve_graph_attrs=False, name=None, graph_name=None):
    """G as a MinigrGraph, with the edge attributes edge_attrs names ({name: value where missing}),
    or, with preserve_edge_attrs, each edge's dict to read any of them from later; the other
    attributes stay in G, which the MinigrGraph keeps. The adjacency is read a node
    at a time (its neighbour count, then its neighbours' ids through one C-level map), not an
    edge at a time."""
    if node_attrs:
        raise NotImplementedError("minigr converts only the edge attributes a call names")
    nodes = list(G)
    index = {node: i for i, node in enumerate(nodes)}
    adjacency = G._adj
    rows = list(map(list, adjacency.values()))  # each node's neighbours as iterated (a view's len may say otherwise)
    degree = numpy.fromiter(map(len, rows), numpy.int64, len(nodes))
    src = numpy.repeat(numpy.arange(len(nodes), dtype=numpy.int64), degree)
    dst = numpy.fromiter(map(index.__getitem__, itertools.chain.from_iterable(rows)), numpy.int64, len(src))
    edges = list(itertools.chain.from_iterable(neighbours.values() for neighbours in adjacency.values()))
    if G.is_multigraph():  # each neighbour's {key: attributes}: a copy per key
        copies = numpy.fromiter(map(len, edges), numpy.int64, len(edges))
        src, dst = numpy.repeat(src, copies), numpy.repeat(dst, copies)
        edges = list(itertools.chain.from_iterable(keyed.values() for keyed in edges))
    return MinigrGraph(
        nodes, src, dst,
        {attribute: _column([data.get(attribute, default) for data in edges])
         for attribute, default in (edge_attrs or {}).items()},
        directed=G.is_directed(), multigraph=G.is_multigraph(),
        graph_attributes=dict(G.graph) if preserve_graph_attrs else None, networkx=G,
        edge_data=edges if preserve_edge_attrs is True else None)


def _column(values):
    """(float64 array, whether every value is an integer) of an attribute's values; NaN (declined
    later) where one is not a real number: a string, a complex."""
    kinds = set(map(type, values))
    if kinds <= {int, float}:
        try:
            return numpy.array(values, numpy.float64), float not in kinds
        except OverflowError:  # an int beyond float64
            pass
    return numpy.array(list(map(real, values)), numpy.float64), all(isinstance(x, numbers.Integral) for x in values)


def real(x):
    """x as a float: NaN where it is not a real number (a string, a complex), infinite beyond
    float64; both declined where minigr needs the value."""
    if not isinstance(x, numbers.Real):
        return math.nan
    try:
        return float(x)
    except OverflowError:
        return math.inf if x > 0 else -math.inf


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

