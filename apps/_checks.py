"""Input checks shared by the primitives, made before any GPU work."""
from minigr.transforms.errors import MinigrError


def check_source(graph, source):
    """The source as an int, or an error saying the valid range."""
    if isinstance(source, bool) or not isinstance(source, int) and not hasattr(source, "__index__"):
        raise MinigrError(f"source must be a vertex id, got {source!r}")
    source = int(source)
    if not 0 <= source < graph.num_vertices:
        raise MinigrError(f"source {source} is out of range: the graph has vertices 0..{graph.num_vertices - 1}"
                          if graph.num_vertices else "the graph has no vertices, so there is no source")
    return source
