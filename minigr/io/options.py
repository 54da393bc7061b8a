"""The load options: checked and normalised to plain values (which also key the binary
cache), and the rules that shape parsed edges or a stored graph into the Graph they ask for."""
from collections import namedtuple

from .. import generators
from ..graph import Graph, check_flags
from ..transforms.errors import MinigrError

WEIGHT_MODES = ("keep", "ignore", "random")

# What a text reader hands on: 0-based integer ids and float weights or None (host arrays),
# the vertex count, whether the source is directed, and whether each entry stands for both
# directions (Matrix Market "symmetric" files store one triangle).
Edges = namedtuple("Edges", "src dst weights num_vertices directed mirrored")


def normalise(*, directed, symmetrize, remove_self_loops, remove_duplicates, weights,
              weight_seed):
    """The options as a dict of plain values (see minigr.load); MinigrError for a bad one."""
    check_flags(symmetrize=symmetrize, remove_self_loops=remove_self_loops, remove_duplicates=remove_duplicates,
                **{} if directed is None else {"directed": directed})
    if weights not in WEIGHT_MODES:
        raise MinigrError(f"weights must be one of {', '.join(WEIGHT_MODES)}; got {weights!r}")
    return {"directed": None if directed is None else bool(directed),
            "symmetrize": bool(symmetrize), "remove_self_loops": bool(remove_self_loops),
            "remove_duplicates": bool(remove_duplicates), "weights": weights,
            "weight_seed": int(generators.seed_word(weight_seed, "weight_seed"))}


def from_edges(edges, options, source, device):
    """The Graph, on `device`, that parsed edges and the options describe; errors name
    `source`."""
    try:
        graph = Graph.from_edges(
            edges.src, edges.dst, edges.weights if options["weights"] == "keep" else None,
            num_vertices=edges.num_vertices,
            directed=edges.directed if options["directed"] is None else options["directed"],
            symmetrize=options["symmetrize"] or edges.mirrored,
            remove_self_loops=options["remove_self_loops"],
            remove_duplicates=options["remove_duplicates"], device=device)
    except MinigrError as exc:
        raise MinigrError(f"{source}: {exc}") from None
    return _finish(graph, options)


def from_graph(graph, options, source):
    """The options applied to a built graph, on its device; it is rebuilt only when they
    change its edges."""
    if (options["symmetrize"] or options["remove_self_loops"] or options["remove_duplicates"]
            or (options["directed"] is False and graph.directed)):
        edges = Edges(graph.edge_sources(), graph.col_indices, graph.weights,
                      graph.num_vertices, graph.directed, mirrored=False)
        return from_edges(edges, options, source, graph.device)
    return _finish(graph, options)


def _finish(graph, options):
    """`graph` with the weights and the directed flag the options ask for (same edges)."""
    weights = graph.weights if options["weights"] == "keep" else None
    directed = graph.directed or bool(options["directed"])
    if weights is not graph.weights or directed != graph.directed:
        graph = Graph(graph.row_offsets, graph.col_indices, weights, directed=directed,
                      device=graph.device)
    if options["weights"] == "random":
        graph = generators.random_weights(graph, options["weight_seed"])
    return graph
