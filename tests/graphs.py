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


def random_graphs(device, seeds=(1, 2)):
    """name -> Graph on `device`: a few of each generator family (Kronecker, random
    geometric, grid) and sparse random directed and undirected graphs with many
    components, self-loops and duplicates, for each seed."""
    graphs = {}
    for seed in seeds:
        rng = numpy.random.default_rng(seed)
        for spec in (f"kron:scale=9,edge_factor=6,seed={seed}", f"rgg:scale=9,seed={seed}",
                     f"grid:scale=8,seed={seed}"):
            graphs[spec] = load(spec, device=device)
        n = int(rng.integers(200, 400))
        src, dst = _random_edges(rng, n, n)
        graphs[f"sparse_directed_{seed}"] = Graph.from_edges(src, dst, num_vertices=n, directed=True, device=device)
        graphs[f"sparse_undirected_{seed}"] = Graph.from_edges(src, dst, num_vertices=n, symmetrize=True,
                                                               device=device)
    return graphs
