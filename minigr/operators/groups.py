"""How many threads share a vertex when operators walk its edges: enough that
loads of one vertex's edges coalesce and short lists keep threads busy."""
import math


def group_size(graph):
    """The power of two nearest half the mean degree, 1 to 32 (1 on the CPU).
    Measured on an H100: 2 on grid_22 (mean 3), 8 on rgg_n22 (14.5)."""
    if graph.device == "cpu" or graph.num_edges < 2 * max(graph.num_vertices, 1):
        return 1
    return min(32, 2 ** round(math.log2(graph.num_edges / graph.num_vertices / 2)))
