"""networkx's breadth-first searches by minigr.bfs: minigr's depths fix each vertex's level,
and the order in which networkx's search first reaches the vertices, and the tree it builds,
follow from its scan order, replayed level by level over the edges on shortest paths
(visit_order)."""
import networkx as nx
import numpy

import minigr

from .registry import networkx_function, optional_number


def depths(G, source, *, reverse=False):
    """minigr's BFS depths (int64, -1 unreached) from node `source`, over reversed edges if `reverse`."""
    return minigr.bfs(G.minigr_graph(None, reverse=reverse), G.index[source]).to_host().depth.astype(numpy.int64)


def bfs(G, source, *, reverse=False):
    """(order, parent, depth): `depths`, and the order and tree networkx's BFS gives (the
    order takes host sorts over the edges: callers that need depths alone call `depths`)."""
    depth = depths(G, source, reverse=reverse)
    src, dst = (G.dst, G.src) if reverse else (G.src, G.dst)
    tight = (depth[src] >= 0) & (depth[dst] == depth[src] + 1)
    return *visit_order([G.index[source]], depth, src, dst, tight), depth


def visit_order(sources, level, src, dst, tight):
    """(order, parent): the vertices in the order networkx's search (BFS, or Dijkstra with
    positive weights) first reaches them from `sources` (vertex ids, in the order it takes
    them), and the vertex each is first reached from.

    level: each vertex's depth, or its distance's rank among the distances (-1 unreached; the
    sources 0); tight: the edges on shortest paths, each into a higher level. networkx takes
    vertices in the order it reached them, scanning each one's edges in adjacency order, and a
    vertex is reached by the first tight edge into it that it scans. So, level by level: sort
    the tight edges into the level by (order of their source, position), and keep each
    target's first."""
    n = len(level)
    rank = numpy.full(n, -1, numpy.int64)
    parent = numpy.full(n, -1, numpy.int64)
    rank[sources] = numpy.arange(len(sources))
    edges = numpy.flatnonzero(tight)
    edges = edges[numpy.argsort(level[dst[edges]], kind="stable")]
    bounds = numpy.searchsorted(level[dst[edges]], numpy.arange(1, level.max() + 2))
    reached = len(sources)
    for start, stop in zip(bounds[:-1], bounds[1:]):
        scanned = edges[start:stop]
        scanned = scanned[numpy.lexsort((scanned, rank[src[scanned]]))]
        first = numpy.sort(numpy.unique(dst[scanned], return_index=True)[1])
        firsts = scanned[first]
        rank[dst[firsts]] = reached + numpy.arange(len(firsts))
        parent[dst[firsts]] = src[firsts]
        reached += len(firsts)
    return numpy.argsort(rank)[n - reached:], parent


def within(order, depth, limit):
    """The vertices of `order` that networkx's search reaches with a depth or cutoff `limit`
    (None: all): it goes one level further while the level is below the limit."""
    if limit is None:
        return order
    return order[(depth[order] - 1 < limit) | (order == order[0])]


def _tree_edges(G, source, depth_limit):
    """(parent, child) vertex ids of networkx's BFS tree edges, in the order it yields them."""
    order, parent, depth = bfs(G, source)
    order = within(order, depth, depth_limit)[1:]
    return zip(parent[order].tolist(), order.tolist())


def _bfs_edges_checks(a):
    G = a["G"]
    return [(a["sort_neighbors"] is not None, "sort_neighbors orders are networkx's only"),
            (a.get("reverse") and G.is_directed(), "reverse=True on a directed graph needs the predecessor order"),
            (not optional_number(a["depth_limit"]), "depth_limit is not a number")]


@networkx_function(checks=_bfs_edges_checks)
def bfs_edges(G, source, reverse=False, depth_limit=None, sort_neighbors=None):
    """Runs minigr.bfs, then orders the tree edges exactly as networkx yields them. Declines
    sort_neighbors and reverse=True on directed graphs."""
    nodes = G.nodes
    for u, v in _tree_edges(G, source, depth_limit):
        yield nodes[u], nodes[v]


@networkx_function(checks=_bfs_edges_checks)
def bfs_tree(G, source, reverse=False, depth_limit=None, sort_neighbors=None):
    """Runs minigr.bfs: networkx's BFS tree, a DiGraph with nodes and edges in networkx's
    order. Declines as bfs_edges does."""
    T = nx.DiGraph()
    T.add_node(source)
    T.add_edges_from(bfs_edges(G, source, depth_limit=depth_limit))
    return T


@networkx_function(checks=_bfs_edges_checks)
def bfs_predecessors(G, source, depth_limit=None, sort_neighbors=None):
    """Runs minigr.bfs; networkx's (node, parent) pairs in its order. Declines sort_neighbors."""
    nodes = G.nodes
    for u, v in _tree_edges(G, source, depth_limit):
        yield nodes[v], nodes[u]


@networkx_function(checks=_bfs_edges_checks)
def bfs_successors(G, source, depth_limit=None, sort_neighbors=None):
    """Runs minigr.bfs; networkx's (node, children) pairs in its order. Declines sort_neighbors."""
    parents, children = [G.index[source]], [[]]
    for u, v in _tree_edges(G, source, depth_limit):
        if u != parents[-1]:
            parents.append(u)
            children.append([])
        children[-1].append(G.nodes[v])
    for u, nodes in zip(parents, children):
        yield G.nodes[u], nodes


def _one_source(G, sources):
    """The one node `sources` names (a node, or a collection of copies of one node), else None."""
    if sources in G:
        return sources
    if isinstance(sources, (list, tuple, set, frozenset)) and sources:
        first = next(iter(sources))
        if first in G and all(s == first for s in sources):
            return first
    return None


@networkx_function(checks=lambda a: [(_one_source(a["G"], a["sources"]) is None, "minigr.bfs starts from one source")])
def bfs_layers(G, sources):
    """Runs minigr.bfs from one source; declines several sources."""
    order, _, depth = bfs(G, _one_source(G, sources))
    for layer in numpy.split(order, numpy.flatnonzero(numpy.diff(depth[order])) + 1):
        yield G.nodes_of(layer)


@networkx_function(checks=lambda a: [(a["distance"] is None or not optional_number(a["distance"]),
                                      "distance is not a number")])
def descendants_at_distance(G, source, distance):
    """Runs minigr.bfs: the nodes at depth `distance`."""
    depth = depths(G, source)
    return set(G.nodes_of(numpy.flatnonzero(depth == distance))) if distance >= 0 else set()


@networkx_function()
def descendants(G, source):
    """Runs minigr.bfs: the nodes reachable from the source, but itself."""
    depth = depths(G, source)
    return set(G.nodes_of(numpy.flatnonzero(depth > 0)))


@networkx_function()
def ancestors(G, source):
    """Runs minigr.bfs over the reversed edges: the nodes that reach the source, but itself."""
    depth = depths(G, source, reverse=G.is_directed())
    return set(G.nodes_of(numpy.flatnonzero(depth > 0)))


@networkx_function()
def single_source_shortest_path_length(G, source, cutoff=None):
    """Runs minigr.bfs; same values and order as networkx. Declines a NaN cutoff."""
    order, _, depth = bfs(G, source)
    order = within(order, depth, cutoff)
    return dict(zip(G.nodes_of(order), depth[order].tolist()))


@networkx_function()
def single_source_shortest_path(G, source, cutoff=None):
    """Runs minigr.bfs: the paths networkx's BFS finds (where several are shortest, its
    choice), in its order. Declines a NaN cutoff."""
    order, parent, depth = bfs(G, source)
    return paths(G, within(order, depth, cutoff), parent)


def paths(G, order, parent, first=1):
    """{node: path} for the vertices of `order`, each path its parent's and itself; the
    first `first` vertices of the order (sources) are their own paths."""
    nodes, order, parent = G.nodes, order.tolist(), parent.tolist()
    found = {v: [nodes[v]] for v in order[:first]}
    for v in order[first:]:
        found[v] = found[parent[v]] + [nodes[v]]
    return {nodes[v]: path for v, path in found.items()}

