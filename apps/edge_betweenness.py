"""Edge betweenness centrality, as networkx.edge_betweenness_centrality
defines it (unweighted): the passes of apps/_brandes.py, each edge
keeping the dependency that flows along it in the backward pass. One value
per stored edge: a duplicate has its edge's, a self-loop 0, and an undirected
edge (stored both ways) the flow of its two directions."""
import numpy

from minigr.catalog import App, BenchCase, Option
from minigr.enactor import Result, Timer, loop_mode, problem

from . import _betweenness_references as references
from ._brandes import Brandes
from ._sources import SAMPLING, pick_sources, scales


def edge_betweenness(graph, *, k=None, seed=0, normalized=True, loop="device"):
    """Betweenness centrality of every stored edge, as networkx's
    ``edge_betweenness_centrality``.

    Parameters
    ----------
    k : int, optional
        Sample k sources, as networkx samples them with `seed`; default every vertex.
    seed : int, default 0
        The seed of the sampling.
    normalized : bool, default True
        As networkx defines it.
    loop : {"device", "host", "persistent", "auto"}, default "device"
        Who decides each level: a CUDA graph's loop, the host, one persistent kernel,
        or by the graph (minigr.enactor.loop_mode).

    Returns
    -------
    Result
        ``source`` and ``target`` (the edges, as stored) and ``edge_betweenness`` (float64).

    Examples
    --------
    >>> import minigr
    >>> path = minigr.Graph.from_edges([0, 1], [1, 2], symmetrize=True)
    >>> result = minigr.edge_betweenness(path)
    >>> result.source.tolist(), result.target.tolist(), result.edge_betweenness.round(3).tolist()
    ([0, 1, 1, 2], [1, 0, 2, 1], [0.667, 0.667, 0.667, 0.667])
    """
    chosen, sampled = pick_sources(graph, k, seed, None, False)
    run = problem(graph, ("brandes", True), lambda: Brandes(graph, per_edge=True))
    with Timer(graph.device) as timer:
        run.accumulate(chosen, False, loop_mode(graph, loop))
        flow = run.edge_flow[run.edge_map]
        if not graph.directed:
            flow += run.edge_flow[run.twins[run.edge_map]]
        _, scale = scales(graph.num_vertices, sampled and len(chosen), graph.directed, normalized, True)
        flow *= scale
    ends = {"source": graph.edge_sources().astype(numpy.int32), "target": graph.col_indices.copy()}
    return Result({**ends, "edge_betweenness": flow}, len(chosen), timer.ms, run.edges * len(chosen))


APP = App(
    "edge_betweenness", edge_betweenness,
    "betweenness centrality of every edge (networkx's, unweighted; exact or sampled)",
    ("source", "target", "edge_betweenness"),
    lambda graph, source, values, options: references.check(graph, values, options, edges=True), rows="edge",
    options=SAMPLING + (Option("normalized", bool, True, "divide by the (source, target) pairs, as networkx"),),
    variants=({"k": 8},),
    persistent=True,
    bench=(BenchCase("edge_betweenness 64 sources", "edge_betweenness",
                     references.alternatives("edge_betweenness", {"k": 64}), references.REFERENCE, references.close,
                     options={"k": 64}),))
