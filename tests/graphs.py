"""Small graphs with the nasty cases, built on any device: skewed, mesh-like,
disconnected, isolated vertices, self-loops, duplicates, directed, no edges,
one vertex."""
import numpy

from minigr import Graph, load


def _random_edges(rng, n, m):
    return rng.integers(0, n, size=m), rng.integers(0, n, size=m)


def nasty_graphs(device, weighted=False, undirected_only=False):
    """name -> Graph on `device`; weights uniform integers in [1, 64] when asked."""
    rng = numpy.random.default_rng(42)
    specs = {}
    src, dst = _random_edges(rng, 300, 1500)
    specs["random_directed"] = dict(src=src, dst=dst, num_vertices=300, directed=True)
    src, dst = _random_edges(rng, 400, 1200)
    specs["random_undirected"] = dict(src=src, dst=dst, num_vertices=400, symmetrize=True, remove_self_loops=True,
                                      remove_duplicates=True)
    # two components, a self-loop, duplicate edges and isolated vertices 9..11
    specs["disconnected_loops_duplicates"] = dict(
        src=numpy.array([0, 1, 2, 2, 2, 5, 6, 7, 7, 3]), dst=numpy.array([1, 2, 0, 0, 2, 6, 7, 5, 8, 3]),
        num_vertices=12, symmetrize=True)
    specs["star"] = dict(src=numpy.zeros(500, int), dst=numpy.arange(1, 501), num_vertices=501, symmetrize=True)
    specs["no_edges"] = dict(src=numpy.zeros(0, int), dst=numpy.zeros(0, int), num_vertices=5, directed=True)
    specs["one_vertex"] = dict(src=numpy.zeros(0, int), dst=numpy.zeros(0, int), num_vertices=1, symmetrize=True)
    graphs = {}
    for name, spec in specs.items():
        if undirected_only and spec.get("directed"):
            continue
        src, dst = spec.pop("src"), spec.pop("dst")
        weights = rng.integers(1, 65, size=len(src)).astype(numpy.float32) if weighted else None
        graphs[name] = Graph.from_edges(src, dst, weights, device=device, **spec)
    weights = "random" if weighted else "keep"
    graphs["kronecker"] = load("kron:scale=10,edge_factor=8,seed=5", weights=weights, device=device)
    graphs["grid"] = load("grid:scale=10,seed=2", weights=weights, device=device)
    return graphs
