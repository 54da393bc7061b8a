"""Breadth-first search: hop depths and a predecessor tree from one source.
Direction-optimizing: push from small frontiers, pull (each unvisited vertex
looks for one parent in the frontier, then stops) when the frontier's edges
outweigh the unvisited ones (Beamer's alpha and beta)."""
import numpy

from minigr.enactor import Result, Timer
from minigr.frontier import Frontier
from minigr.operators import advance, advance_pull
from minigr.transforms import Functor, compact_transform

from ._checks import check_source

# Push: the first to claim dst sets its depth (atomic); its parent follows.
VISIT = """
bool cond(int src, int dst, long long edge, long long rank, long long out_idx, int iteration) const {
    return atomicCAS(&depth[dst], -1, iteration + 1) == -1;
}
void apply(int src, int dst, long long edge, long long rank, long long out_idx, int iteration) const {
    parent[dst] = src;
}"""
# Idempotent push, and pull: no atomics. Racing writers of one dst all write
# the same depth and a valid parent; push output is uniquified.
VISIT_IDEMPOTENT = """
bool cond(int src, int dst, long long edge, long long rank, long long out_idx, int iteration) const {
    return depth[dst] == -1;
}
void apply(int src, int dst, long long edge, long long rank, long long out_idx, int iteration) const {
    depth[dst] = iteration + 1;
    parent[dst] = src;
}"""
UNVISITED = "bool operator()(long long v) const { return depth[v] < 0; }"
WRITE_ID = "void operator()(long long dest, long long src) const { ids[dest] = (int)src; }"
ALPHA, BETA = 14, 24


def bfs(graph, source, *, idempotent=False):
    """Depth (hops, -1 unreachable) and parent (-1 unreachable; the source is its
    own) of every vertex, as arrays on the graph's device."""
    source = check_source(graph, source)
    xp, n = graph.xp, graph.num_vertices
    depth = xp.full(n, -1, dtype=numpy.int32)
    parent = xp.full(n, -1, dtype=numpy.int32)
    depth[source], parent[source] = 0, source
    push_op = Functor(VISIT_IDEMPOTENT if idempotent else VISIT, filename="<bfs visit>", depth=depth, parent=parent)
    pull_op = Functor(VISIT_IDEMPOTENT, filename="<bfs visit>", depth=depth, parent=parent)
    degrees = graph.out_degrees()
    frontier, iteration, pulling = Frontier.from_ids([source], n, graph.device), 0, False
    with Timer(graph.device) as timer:
        while len(frontier):
            pulling = _should_pull(xp, n, degrees, depth, frontier, pulling)
            if pulling:
                unvisited = _unvisited(xp, n, depth)
                frontier = advance_pull(graph, unvisited, frontier, pull_op, iteration=iteration)
            else:
                frontier = advance(graph, frontier, push_op, iteration=iteration, idempotent=idempotent)
            iteration += 1
    edges = int(degrees[depth >= 0].sum())
    return Result({"depth": depth, "parent": parent}, iteration, timer.ms, edges)


def _should_pull(xp, n, degrees, depth, frontier, pulling):
    """Beamer's switch: pull once the frontier's edges exceed 1/ALPHA of the
    unvisited vertices' edges; back to push when it holds under n/BETA vertices.
    Edges are counted only for frontiers of over n / (4 ALPHA) vertices, which
    could pass at four times the average degree: small ones push at no cost."""
    if pulling:
        return len(frontier) * BETA >= n
    if len(frontier) * 4 * ALPHA < n:
        return False
    frontier_edges = int(degrees[frontier.ids].sum())
    unvisited_edges = int(degrees[depth < 0].sum())
    return frontier_edges * ALPHA > unvisited_edges


def _unvisited(xp, n, depth):
    ids = xp.empty(n, dtype=numpy.int32)
    _, count = compact_transform(n, Functor(UNVISITED, filename="<unvisited>", depth=depth),
                                 Functor(WRITE_ID, filename="<unvisited ids>", ids=ids))
    return Frontier(n, ids=ids[:count])
