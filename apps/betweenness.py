"""Betweenness centrality, as networkx.betweenness_centrality defines it
(unweighted): Brandes' algorithm from every source, or from k sources sampled
as networkx samples them (random.Random(seed).sample), or from given ones.

From each source a forward BFS counts the shortest paths to every vertex
(sigma, summed by atomics as a vertex is reached), its frontier keeping the
levels; a backward pass walks those levels again from the deepest: each
vertex's dependency is a neighbour reduction over its successors w, the
sum of sigma[v] / sigma[w] * (1 + delta[w]), added to its centrality. Both
passes loop on the device, and no source waits for the one before. Duplicate
edges count once and self-loops lie on no shortest path, as in networkx.
The passes are apps/_brandes.py's, from which apps/edge_betweenness.py keeps
the flow of each edge."""
from minigr.catalog import IDS, App, BenchCase, Option, vertex_ids
from minigr.enactor import Result, Timer, loop_mode, problem

from . import _betweenness_references as references
from ._brandes import Brandes
from ._sources import SAMPLING, pick_sources, rescaled


def betweenness(graph, *, k=None, seed=0, sources=None, normalized=True, endpoints=False, loop="device"):
    """Betweenness centrality of every vertex, as networkx's ``betweenness_centrality``.

    Parameters
    ----------
    k : int, optional
        Sample k sources, as networkx samples them with `seed`; default every vertex.
    seed : int, default 0
        The seed of the sampling.
    sources : list of int, optional
        The sources to walk from instead.
    normalized, endpoints : bool
        As networkx defines them (defaults True and False).
    loop : {"device", "host", "persistent", "auto"}, default "device"
        Who decides each level: a CUDA graph's loop, the host, one persistent kernel,
        or by the graph (minigr.enactor.loop_mode).

    Returns
    -------
    Result
        ``betweenness`` (float64, per vertex).

    Examples
    --------
    >>> import minigr
    >>> path = minigr.Graph.from_edges([0, 1], [1, 2], symmetrize=True)
    >>> minigr.betweenness(path).betweenness.tolist()
    [0.0, 1.0, 0.0]
    """
    chosen, sampled = pick_sources(graph, k, seed, sources, k == graph.num_vertices)
    run = problem(graph, ("brandes", False), lambda: Brandes(graph, per_edge=False))
    with Timer(graph.device) as timer:
        run.accumulate(chosen, endpoints, loop_mode(graph, loop))
        centrality = rescaled(run.centrality, chosen, sampled, graph.directed, normalized, endpoints)
    return Result({"betweenness": centrality}, len(chosen), timer.ms, run.edges * len(chosen))


def check_betweenness(graph, values, options):
    """Centralities against a SciPy Brandes over the same sources (relative 1e-9)."""
    return references.check(graph, values, options, edges=False)


APP = App(
    "betweenness", betweenness, "betweenness centrality of every vertex (networkx's, unweighted; exact or sampled)",
    ("betweenness",), lambda graph, source, values, options: check_betweenness(graph, values, options),
    options=SAMPLING + (Option("sources", vertex_ids, None, "the sources, as ids: 3,8,12 (instead of k)", IDS),
                        Option("normalized", bool, True, "divide by the (source, target) pairs, as networkx"),
                        Option("endpoints", bool, False, "count a path's ends as on it, as networkx")),
    variants=({"k": 8}, {"k": 8, "endpoints": True, "normalized": False}),
    persistent=True,
    bench=(BenchCase("betweenness 64 sources", "betweenness", references.alternatives("betweenness", {"k": 64}),
                     references.REFERENCE, references.close, options={"k": 64}),))
