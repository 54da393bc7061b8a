"""Speedups of minigr's networkx backend over networkx itself, function by function, on one
graph (`python -m minigr.bench.networkx`): networkx's own run, minigr's run with the
conversion of the networkx graph (what a first call costs) and without it (a later call on
the unchanged graph, which networkx's cache of converted graphs serves). --crossover finds,
on growing graphs, where minigr with the conversion starts to beat networkx: the size below
which the backend's should_run lets networkx run (minigr.nx.registry.SMALLEST_EDGES).

Runs on the device MINIGR_DEVICE names (gpu, or cpu: the C++ backend). Times are wall clock,
results consumed (lists of generators' items), after a warm-up call: one run each on the
medium graph, the median of CROSSOVER_RUNS on the growing ones."""
import argparse
import collections.abc
import random
import statistics
import sys
import time

import networkx as nx

# networkx function -> (graph: "undirected", "directed" or "small", call(G, source, target, backend))
CALLS = {
    "pagerank": ("directed", lambda G, s, t, b: nx.pagerank(G, backend=b)),
    "greedy_color": ("undirected", lambda G, s, t, b: nx.greedy_color(G, backend=b)),
    "connected_components": ("undirected", lambda G, s, t, b: nx.connected_components(G, backend=b)),
    "number_connected_components": ("undirected", lambda G, s, t, b: nx.number_connected_components(G, backend=b)),
    "is_connected": ("undirected", lambda G, s, t, b: nx.is_connected(G, backend=b)),
    "node_connected_component": ("undirected", lambda G, s, t, b: nx.node_connected_component(G, s, backend=b)),
    "is_tree": ("undirected", lambda G, s, t, b: nx.is_tree(G, backend=b)),
    "is_forest": ("undirected", lambda G, s, t, b: nx.is_forest(G, backend=b)),
    "weakly_connected_components": ("directed", lambda G, s, t, b: nx.weakly_connected_components(G, backend=b)),
    "number_weakly_connected_components": ("directed", lambda G, s, t, b: nx.number_weakly_connected_components(
        G, backend=b)),
    "is_weakly_connected": ("directed", lambda G, s, t, b: nx.is_weakly_connected(G, backend=b)),
    "is_strongly_connected": ("directed", lambda G, s, t, b: nx.is_strongly_connected(G, backend=b)),
    "triangles": ("undirected", lambda G, s, t, b: nx.triangles(G, backend=b)),
    "clustering": ("undirected", lambda G, s, t, b: nx.clustering(G, backend=b)),
    "average_clustering": ("undirected", lambda G, s, t, b: nx.average_clustering(G, backend=b)),
    "transitivity": ("undirected", lambda G, s, t, b: nx.transitivity(G, backend=b)),
    "bfs_edges": ("directed", lambda G, s, t, b: nx.bfs_edges(G, s, backend=b)),
    "bfs_tree": ("directed", lambda G, s, t, b: nx.bfs_tree(G, s, backend=b)),
    "bfs_predecessors": ("directed", lambda G, s, t, b: nx.bfs_predecessors(G, s, backend=b)),
    "bfs_successors": ("directed", lambda G, s, t, b: nx.bfs_successors(G, s, backend=b)),
    "bfs_layers": ("directed", lambda G, s, t, b: nx.bfs_layers(G, s, backend=b)),
    "descendants": ("directed", lambda G, s, t, b: nx.descendants(G, s, backend=b)),
    "ancestors": ("directed", lambda G, s, t, b: nx.ancestors(G, s, backend=b)),
    "descendants_at_distance": ("directed", lambda G, s, t, b: nx.descendants_at_distance(G, s, 3, backend=b)),
    "has_path": ("directed", lambda G, s, t, b: nx.has_path(G, s, t, backend=b)),
    "eccentricity": ("directed", lambda G, s, t, b: nx.eccentricity(G, s, backend=b)),
    "closeness_centrality": ("directed", lambda G, s, t, b: nx.closeness_centrality(G, s, backend=b)),
    "betweenness_centrality": ("undirected", lambda G, s, t, b: nx.betweenness_centrality(G, k=min(8, len(G)), seed=1,
                                                                                           backend=b)),
    "edge_betweenness_centrality": ("small", lambda G, s, t, b: nx.edge_betweenness_centrality(G, backend=b)),
    "eigenvector_centrality": ("directed", lambda G, s, t, b: nx.eigenvector_centrality(G, backend=b)),
    "katz_centrality": ("directed", lambda G, s, t, b: nx.katz_centrality(G, alpha=0.01, backend=b)),
    "hits": ("directed", lambda G, s, t, b: nx.hits(G, backend=b)),
    "core_number": ("undirected", lambda G, s, t, b: nx.core_number(G, backend=b)),
    "k_core": ("undirected", lambda G, s, t, b: nx.k_core(G, backend=b)),
    "k_shell": ("undirected", lambda G, s, t, b: nx.k_shell(G, backend=b)),
    "k_crust": ("undirected", lambda G, s, t, b: nx.k_crust(G, backend=b)),
    "k_corona": ("undirected", lambda G, s, t, b: nx.k_corona(G, 2, backend=b)),
    "k_truss": ("undirected", lambda G, s, t, b: nx.k_truss(G, 3, backend=b)),
    "minimum_spanning_tree": ("undirected", lambda G, s, t, b: nx.minimum_spanning_tree(G, weight="length",
                                                                                          backend=b)),
    "minimum_spanning_edges": ("undirected", lambda G, s, t, b: list(nx.minimum_spanning_edges(G, weight="length",
                                                                                               backend=b))),
    "maximum_spanning_tree": ("undirected", lambda G, s, t, b: nx.maximum_spanning_tree(G, weight="length",
                                                                                          backend=b)),
    "maximum_spanning_edges": ("undirected", lambda G, s, t, b: list(nx.maximum_spanning_edges(G, weight="length",
                                                                                               backend=b))),
    "jaccard_coefficient": ("undirected", lambda G, s, t, b: nx.jaccard_coefficient(G, list(G.edges)[:100_000],
                                                                                    backend=b)),
    "maximal_independent_set": ("undirected", lambda G, s, t, b: nx.maximal_independent_set(G, backend=b)),
    "single_source_shortest_path_length": ("directed", lambda G, s, t, b: nx.single_source_shortest_path_length(
        G, s, backend=b)),
    "single_source_shortest_path": ("directed", lambda G, s, t, b: nx.single_source_shortest_path(G, s, backend=b)),
    "shortest_path": ("directed", lambda G, s, t, b: nx.shortest_path(G, s, weight="weight", backend=b)),
    "shortest_path_length": ("directed", lambda G, s, t, b: nx.shortest_path_length(G, s, weight="weight",
                                                                                     backend=b)),
    "single_source_dijkstra": ("directed", lambda G, s, t, b: nx.single_source_dijkstra(G, s, backend=b)),
    "single_source_dijkstra_path": ("directed", lambda G, s, t, b: nx.single_source_dijkstra_path(G, s, backend=b)),
    "single_source_dijkstra_path_length": ("directed", lambda G, s, t, b: nx.single_source_dijkstra_path_length(
        G, s, backend=b)),
    "dijkstra_path": ("directed", lambda G, s, t, b: nx.dijkstra_path(G, s, t, backend=b)),
    "dijkstra_path_length": ("directed", lambda G, s, t, b: nx.dijkstra_path_length(G, s, t, backend=b)),
    "multi_source_dijkstra": ("directed", lambda G, s, t, b: nx.multi_source_dijkstra(G, {s, t}, backend=b)),
    "multi_source_dijkstra_path": ("directed", lambda G, s, t, b: nx.multi_source_dijkstra_path(G, {s, t},
                                                                                                 backend=b)),
    "multi_source_dijkstra_path_length": ("directed", lambda G, s, t, b: nx.multi_source_dijkstra_path_length(
        G, {s, t}, backend=b)),
}
CROSSOVER_EDGES = (25, 50, 100, 200, 400, 800, 1600, 3200, 6400, 12800, 25600, 51200)
CROSSOVER_RUNS = 3
SMALL = 2000  # vertices of the graph for functions whose cost grows with n * m (exact edge betweenness)


def graphs(vertices, edges, seed=1):
    """An undirected and a directed random graph (networkx's gnm, and a cycle through every
    vertex in id order, so that the first is connected and the second strongly connected),
    integer weights 1..9 ("weight"), real ones in [0, 1) ("length": spanning trees), and the
    undirected one's first SMALL vertices ("small")."""
    rng = random.Random(seed)
    made = {}
    for kind, directed in (("undirected", False), ("directed", True)):
        G = nx.gnm_random_graph(vertices, edges - vertices, seed=seed, directed=directed)
        nx.add_cycle(G, range(vertices))
        nx.set_edge_attributes(G, {e: rng.randint(1, 9) for e in G.edges}, "weight")
        nx.set_edge_attributes(G, {e: rng.random() for e in G.edges}, "length")
        made[kind] = G
    made["small"] = made["undirected"].subgraph(range(min(vertices, SMALL))).copy()
    return made


def seconds(call, runs=1, before=lambda: None):
    """Median wall seconds of `runs` runs of call(), its result consumed, each after before()."""
    times = []
    for _ in range(runs):
        before()
        start = time.perf_counter()
        result = call()
        if isinstance(result, collections.abc.Iterator):
            list(result)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def measure(name, made, runs=1):
    """{networkx, minigr, minigr_converted} seconds of function `name` on the graphs `made`."""
    kind, call = CALLS[name]
    G = made[kind]
    s, t = 0, len(G) // 2
    with nx.config(warnings_to_ignore={"cache"}):
        seconds(lambda: call(G, s, t, "minigr"))  # warm-up: kernels compiled, G's conversion cached
        converted = seconds(lambda: call(G, s, t, "minigr"), runs)
        with_conversion = seconds(lambda: call(G, s, t, "minigr"), runs, G.__networkx_cache__.clear)
    return {"networkx": seconds(lambda: call(G, s, t, "networkx"), runs), "minigr": with_conversion,
            "minigr_converted": converted}


def speedups(vertices, edges, names):
    """The speedup table's rows on one graph."""
    made = graphs(vertices, edges)
    print(f"gnm graphs of {vertices} vertices and {edges} edges, undirected and directed (edge betweenness: the "
          f"first {SMALL} vertices); seconds and speedups over networkx (conversion included / excluded)")
    print(f"{'function':36} {'networkx s':>10} {'minigr s':>9} {'excl. s':>8} {'speedup':>8} {'excl.':>8}")
    for name in names:
        try:
            m = measure(name, made)
        except NotImplementedError as exc:  # minigr declined this call on this graph
            print(f"{name:36} declined: {str(exc).split('. No other')[0]}", flush=True)
            continue
        print(f"{name:36} {m['networkx']:10.4f} {m['minigr']:9.4f} {m['minigr_converted']:8.4f} "
              f"{m['networkx'] / m['minigr']:7.2f}x {m['networkx'] / m['minigr_converted']:7.2f}x", flush=True)


def crossover(names):
    """For each function, the fewest edges (of CROSSOVER_EDGES, 4 per vertex) from which on
    minigr with the conversion runs faster than networkx, and their median over the functions
    (those that never do counted beyond the largest size)."""
    found = {}
    for edges in CROSSOVER_EDGES:
        made = graphs(max(edges // 4, 2), edges)
        for name in names:
            try:
                m = measure(name, made, CROSSOVER_RUNS)
            except NotImplementedError:  # declined on this graph: not ahead
                m = {"minigr": 1, "networkx": 0}
            if m["minigr"] >= m["networkx"]:
                found.pop(name, None)
            elif name not in found:
                found[name] = edges
        print(f"{edges} edges: minigr ahead from here on for {len(found)} of {len(names)}", flush=True)
    for name in names:
        print(f"{name:36} {found.get(name, f'not by {CROSSOVER_EDGES[-1]}')}")
    beyond = 2 * CROSSOVER_EDGES[-1]
    median = statistics.median(found.get(name, beyond) for name in names)
    print(f"median over the functions: {median if median < beyond else f'beyond {CROSSOVER_EDGES[-1]}'} edges")


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m minigr.bench.networkx", description=__doc__.split("\n\n")[0])
    p.add_argument("--vertices", type=int, default=100_000)
    p.add_argument("--edges", type=int, default=500_000)
    p.add_argument("--function", action="append", choices=sorted(CALLS), help="only these (repeatable)")
    p.add_argument("--crossover", action="store_true", help="find where minigr starts to pay (should_run)")
    args = p.parse_args(argv)
    names = args.function or list(CALLS)
    if args.crossover:
        crossover(names)
    else:
        speedups(args.vertices, args.edges, names)
    return 0


if __name__ == "__main__":
    sys.exit(main())
