"""Coloring (minigr.apps.color) on both backends: proper on graphs of many shapes, exactly
the sequential largest-first greedy coloring for seed 0 (a plain loop here, minigr.validate's
vectorized reference, and networkx's greedy_color), near its color count for other seeds on
random graphs of each family; the same colors on the GPU and the CPU, and with either loop."""
import networkx
import numpy
import pytest

import minigr
from minigr import Graph, validate
from minigr.apps.color import BROAD, color
from minigr.transforms.backend import gpu_available

from conftest import to_host
from graphs import nasty_graphs


def sequential_greedy(graph):
    """The greedy coloring, one vertex at a time: stored out-degree largest first, ties to
    the lower id; each vertex takes the smallest color no colored neighbour has."""
    offsets, cols = to_host(graph.row_offsets), to_host(graph.col_indices)
    degree = numpy.diff(offsets)
    colors = numpy.full(graph.num_vertices, -1)
    for v in sorted(range(graph.num_vertices), key=lambda v: (-degree[v], v)):
        taken = {colors[u] for u in cols[offsets[v]:offsets[v + 1]] if u != v}
        colors[v] = next(c for c in range(len(taken) + 1) if c not in taken)
    return colors


def undirected(src, dst, n, **options):
    return Graph.from_edges(numpy.asarray(src, int), numpy.asarray(dst, int), num_vertices=n, symmetrize=True,
                            device="cpu", **options)


def clique(n):
    src, dst = numpy.triu_indices(n, 1)
    return undirected(src, dst, n)


def hubs(count, leaves):
    """Vertex 0 joined to `count` hubs, each with `leaves` leaves of its own: all its neighbours
    come first in largest-first order."""
    hub = numpy.arange(1, count + 1)
    leaf = count + 1 + numpy.arange(count * leaves)
    return undirected(numpy.r_[numpy.zeros(count, int), numpy.repeat(hub, leaves)], numpy.r_[hub, leaf],
                      count * (leaves + 1) + 1)


def random_graph(seed, n=300, m=900):
    rng = numpy.random.default_rng(seed)
    return undirected(rng.integers(0, n, m), rng.integers(0, n, m), n, remove_self_loops=True, remove_duplicates=True)


SHAPES = {  # name -> an undirected graph on the CPU
    "clique 5": lambda: clique(5),
    "clique 100 (colors beyond 64)": lambda: clique(100),
    "complete bipartite 40 x 40": lambda: undirected(numpy.repeat(numpy.arange(40), 40),
                                                     40 + numpy.tile(numpy.arange(40), 40), 80),
    "odd cycle": lambda: undirected(numpy.arange(9), (numpy.arange(9) + 1) % 9, 9),
    "path": lambda: undirected(numpy.arange(20), numpy.arange(1, 21), 21),
    "wheel": lambda: undirected(numpy.r_[numpy.zeros(30, int), numpy.arange(1, 31)],
                                numpy.r_[numpy.arange(1, 31), numpy.arange(2, 32) % 30 + 1], 31),
    "cliques joined, isolated vertices, self-loops, duplicates": lambda: undirected(
        numpy.r_[numpy.triu_indices(40, 1)[0], numpy.triu_indices(40, 1)[0] + 40, 5, 5, 7, 39],
        numpy.r_[numpy.triu_indices(40, 1)[1], numpy.triu_indices(40, 1)[1] + 40, 5, 5, 8, 40], 90),
    "a vertex with many higher neighbours (a warp each on the GPU)": lambda: hubs(BROAD + 10, leaves=50),
    "only isolated vertices": lambda: undirected([], [], 7),
    "random": lambda: random_graph(1),
    "kronecker": lambda: minigr.load("kron:scale=11,edge_factor=12,seed=4", device="cpu"),
    "random geometric": lambda: minigr.load("rgg:scale=11,seed=2", device="cpu"),
    "grid": lambda: minigr.load("grid:scale=12,seed=3", device="cpu"),
}
SHAPES.update({f"nasty {name}": lambda graph=graph: graph
               for name, graph in nasty_graphs("cpu", undirected_only=True).items()})


def check_proper(graph, colors):
    src, dst = to_host(graph.edge_sources()), to_host(graph.col_indices)
    assert (colors >= 0).all()
    assert (colors[src] != colors[dst])[src != dst].all()


@pytest.mark.parametrize("name", SHAPES)
def test_seed_0_is_the_sequential_greedy_coloring(device, name):
    graph = SHAPES[name]().to(device)
    result = color(graph)
    colors = to_host(result.color)
    expected = sequential_greedy(graph)
    numpy.testing.assert_array_equal(colors, expected)
    numpy.testing.assert_array_equal(validate.greedy_coloring(graph), expected)
    assert result.num_colors == (expected.max() + 1 if graph.num_vertices else 0)
    assert validate.check_coloring(graph, colors).startswith("ok")


@pytest.mark.parametrize("name", SHAPES)
def test_every_seed_gives_a_proper_coloring_again_and_again(device, name):
    graph = SHAPES[name]().to(device)
    for seed in (1, 12345, 2**63, 2**64 - 1):
        colors = to_host(color(graph, seed=seed).color)
        check_proper(graph, colors)
        numpy.testing.assert_array_equal(to_host(color(graph, seed=seed).color), colors)


def test_known_color_counts(device):
    assert color(clique(100).to(device)).num_colors == 100
    assert color(SHAPES["complete bipartite 40 x 40"]().to(device)).num_colors == 2
    assert color(SHAPES["odd cycle"]().to(device)).num_colors == 3
    assert color(undirected([], [], 1).to(device)).num_colors == 1
    assert color(undirected([], [], 0).to(device)).num_colors == 0


FAMILIES = {  # name -> graph of a random seed
    "Kronecker (power-law)": lambda seed: minigr.load(f"kron:scale=11,edge_factor=12,seed={seed}", device="cpu"),
    "random geometric": lambda seed: minigr.load(f"rgg:scale=11,seed={seed}", device="cpu"),
    "grid with holes": lambda seed: minigr.load(f"grid:scale=12,seed={seed}", device="cpu"),
    "Erdos-Renyi": random_graph,
}


@pytest.mark.parametrize("family", FAMILIES)
def test_near_greedy_color_counts_over_seeds(device, family):
    """On random graphs of each family, every seed's colors are at most 1.25x the largest-first
    greedy count (any tie order is largest-first, so the counts stay close: 1.1x on average)."""
    ratios = []
    for graph_seed in (1, 2, 3):
        graph = FAMILIES[family](graph_seed)
        greedy = validate.greedy_coloring(graph).max() + 1
        graph = graph.to(device)
        ratios += [color(graph, seed=seed).num_colors / greedy for seed in range(1, 6)]
    assert max(ratios) <= 1.25, ratios
    assert numpy.mean(ratios) <= 1.1, ratios


@pytest.mark.parametrize("seed", range(6))
def test_networkx_largest_first(device, seed):
    """minigr's seed-0 coloring is networkx's greedy_color(strategy="largest_first")."""
    G = networkx.gnm_random_graph(200, 200 * (seed + 1), seed=seed)
    expected = networkx.greedy_color(G, strategy="largest_first")
    colors = to_host(minigr.color(G, device=device).color)
    assert colors.tolist() == [expected[v] for v in G]


def test_loops_agree(device):
    graph = SHAPES["kronecker"]().to(device)
    for seed in (0, 3):
        numpy.testing.assert_array_equal(to_host(color(graph, seed=seed, loop="host").color),
                                         to_host(color(graph, seed=seed, loop="device").color))


def test_directed_graphs_are_refused(device):
    directed = Graph.from_edges([0], [1], device=device)
    with pytest.raises(minigr.MinigrError, match="coloring needs an undirected graph; symmetrize it first"):
        color(directed)
    with pytest.raises(minigr.MinigrError, match="greedy coloring needs an undirected graph"):
        validate.greedy_coloring(directed)


@pytest.mark.gpu
@pytest.mark.skipif(not gpu_available(), reason="GPU test: compares the GPU with the CPU")
@pytest.mark.parametrize("name", SHAPES)
def test_gpu_and_cpu_give_the_same_colors(name):
    """Each vertex's color does not depend on the order the rounds visit vertices in."""
    cpu = SHAPES[name]()
    gpu = cpu.to("gpu")
    for seed in (0, 1, 99):
        numpy.testing.assert_array_equal(to_host(color(gpu, seed=seed).color), color(cpu, seed=seed).color)
