"""minigr.validate: correct results (from networkx or exact linear algebra, independent of
the SciPy references in validate) get "ok"; every kind of corruption is caught (CPU)."""
import networkx as nx
import numpy as np
import pytest

from minigr import Graph, MinigrError, validate


def random_graph(seed, directed, n=60, m=150, weighted=True):
    """Random edges over n vertices with duplicates (differing weights), self-loops, isolated
    vertices and several components (ids above n - 10 take no edges)."""
    rng = np.random.default_rng(seed)
    src, dst = rng.integers(0, n - 10, m), rng.integers(0, n - 10, m)
    src[:5], dst[:5] = src[5:10], dst[5:10]     # duplicates
    dst[10:13] = src[10:13]                     # self-loops
    weights = rng.integers(1, 20, m).astype(np.float32) if weighted else None
    return Graph.from_edges(src, dst, weights, num_vertices=n, symmetrize=not directed,
                            device="cpu")


def edges(g):
    return zip(g.edge_sources().tolist(), g.col_indices.tolist(),
               (g.weights if g.weights is not None else np.ones(g.num_edges)).tolist())


def networkx_graph(g):
    nxg = nx.MultiDiGraph()
    nxg.add_nodes_from(range(g.num_vertices))
    nxg.add_weighted_edges_from(edges(g))
    return nxg


def correct_bfs(g, source):
    nxg = networkx_graph(g)
    depth = np.full(g.num_vertices, -1, np.int32)
    parent = np.full(g.num_vertices, -1, np.int32)
    for v, d in nx.single_source_shortest_path_length(nxg, source).items():
        depth[v] = d
    for v, preds in nx.predecessor(nxg, source).items():
        parent[v] = preds[0] if preds else source
    return depth, parent


def correct_sssp(g, source):
    preds, dist = nx.dijkstra_predecessor_and_distance(networkx_graph(g), source)
    distance = np.full(g.num_vertices, np.inf, np.float32)
    parent = np.full(g.num_vertices, -1, np.int32)
    for v, d in dist.items():
        distance[v] = d
        parent[v] = preds[v][0] if preds[v] else source
    return distance, parent


def exact_pagerank(g, damping=0.85):
    """The PageRank fixed point solved exactly: every stored edge counts, dangling mass is
    spread uniformly."""
    n = g.num_vertices
    a = np.zeros((n, n))
    np.add.at(a, (g.edge_sources(), g.col_indices), 1.0)
    out = a.sum(axis=1)
    p = np.where(out[:, None] > 0, a / np.maximum(out, 1)[:, None], 1.0 / n)  # row-stochastic
    return np.linalg.solve(np.eye(n) - damping * p.T, np.full(n, (1 - damping) / n))


def greedy_coloring(g, strategy="largest_first"):
    simple = nx.Graph()
    simple.add_nodes_from(range(g.num_vertices))
    simple.add_edges_from((u, v) for u, v, _ in edges(g) if u != v)
    colors = nx.greedy_color(simple, strategy=strategy)
    return np.array([colors[v] for v in range(g.num_vertices)], np.int32)


def first(mask):
    return int(np.flatnonzero(mask)[0])


def in_edges(g, v):
    return [int(u) for u, w, _ in edges(g) if w == v]


GRAPHS = [(seed, directed) for seed in range(4) for directed in (False, True)]


# ---- BFS ------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed,directed", GRAPHS)
def test_bfs_correct_and_corrupted(seed, directed):
    g = random_graph(seed, directed, weighted=False)
    source = int(np.argmax(g.out_degrees()))
    depth, parent = correct_bfs(g, source)
    assert validate.check_bfs(g, source, depth, parent) == "ok"
    far = first(depth >= 2)

    wrong = depth.copy()
    wrong[far] += 1
    assert "1 vertex with a wrong depth, first 1: " + f"{far} (got" in validate.check_bfs(
        g, source, wrong, parent)

    stranger = next(u for u in range(g.num_vertices) if u not in in_edges(g, far))
    bad = parent.copy()
    bad[far] = stranger
    assert "whose parent is not an in-neighbour, first 1: " + f"{far} (parent {stranger})" in \
        validate.check_bfs(g, source, depth, bad)

    bad = parent.copy()
    bad[depth == -1] = 0
    unreached = int((depth == -1).sum())
    assert f"{unreached} vertices unreachable but with a parent other than -1" in \
        validate.check_bfs(g, source, depth, bad)

    bad = parent.copy()
    bad[source] = -1
    assert f"the source {source} has parent -1, expected itself" in \
        validate.check_bfs(g, source, depth, bad)


@pytest.mark.parametrize("seed,directed", GRAPHS)
def test_bfs_parent_one_level_off(seed, directed):
    g = random_graph(seed, directed, weighted=False)
    source = int(np.argmax(g.out_degrees()))
    depth, parent = correct_bfs(g, source)
    u, v = next((u, v) for u, v, _ in edges(g)
                if depth[v] > 0 and depth[u] >= 0 and depth[u] != depth[v] - 1)
    bad = parent.copy()
    bad[v] = u
    verdict = validate.check_bfs(g, source, depth, bad)
    assert verdict.startswith("FAILED: 1 vertex whose parent is not one level up, first 1: "
                              f"{v} at depth {depth[v]} (parent {u} at depth {depth[u]})")


def test_bfs_directed_edges_count_one_way():
    g = Graph.from_edges([0, 1, 2], [1, 2, 0], device="cpu")   # a directed cycle
    depth, parent = np.array([0, 1, 2]), np.array([0, 0, 1])
    assert validate.check_bfs(g, 0, depth, parent) == "ok"
    assert "not an in-neighbour" in validate.check_bfs(g, 0, depth, np.array([0, 2, 1]))
    # 2 -> 0 is an edge but no path from 0 to 2 in one hop
    assert "wrong depth" in validate.check_bfs(g, 0, np.array([0, 1, 1]), parent)


def test_bfs_misuse_and_wrong_shapes():
    g = random_graph(0, False, weighted=False)
    depth, parent = correct_bfs(g, 0)
    assert validate.check_bfs(g, 0, depth[:-1], parent) == \
        f"FAILED: depth has shape ({g.num_vertices - 1},), expected ({g.num_vertices},)"
    with pytest.raises(MinigrError, match="source 60 is out of range: the graph has 60 vertices"):
        validate.check_bfs(g, 60, depth, parent)
    with pytest.raises(MinigrError, match="out of range"):
        validate.check_bfs(g, -1, depth, parent)


# ---- SSSP -----------------------------------------------------------------------------------


@pytest.mark.parametrize("seed,directed", GRAPHS)
def test_sssp_correct_and_corrupted(seed, directed):
    g = random_graph(seed, directed)
    source = int(np.argmax(g.out_degrees()))
    distance, parent = correct_sssp(g, source)
    assert validate.check_sssp(g, source, distance, parent) == "ok"
    assert validate.check_sssp(g, source, distance * (1 + 2e-6), parent) == "ok"  # within 1e-5

    far = first(np.isfinite(distance) & (distance > 0))
    wrong = distance.copy()
    wrong[far] *= 1.001
    assert f"1 vertex with a wrong distance, first 1: {far} (got" in \
        validate.check_sssp(g, source, wrong, parent)

    # a real in-neighbour that is not on a shortest path
    u, v = next((u, v) for u, v, w in edges(g)
                if v != source and np.isfinite(distance[v]) and u != v
                and not np.isclose(distance[u] + w, distance[v]))
    bad = parent.copy()
    bad[v] = u
    assert f"whose parent is not on a shortest path, first 1: {v} at" in \
        validate.check_sssp(g, source, distance, bad)

    stranger = next(u for u in range(g.num_vertices) if u not in in_edges(g, far))
    bad = parent.copy()
    bad[far] = stranger
    assert "whose parent is not an in-neighbour" in validate.check_sssp(g, source, distance, bad)

    bad = parent.copy()
    bad[np.isinf(distance)] = source
    assert "unreachable but with a parent other than -1" in \
        validate.check_sssp(g, source, distance, bad)


def test_sssp_duplicates_use_the_lightest_copy_and_self_loops_are_no_parents():
    g = Graph.from_edges([0, 0, 1, 1, 2], [1, 1, 1, 2, 2], [5.0, 1.0, 0.0, 2.0, 4.0],
                         device="cpu")
    distance = np.array([0, 1, 3], np.float32)
    assert validate.check_sssp(g, 0, distance, np.array([0, 0, 1])) == "ok"
    assert "wrong distance" in validate.check_sssp(g, 0, np.array([0, 5, 7], np.float32),
                                                   np.array([0, 0, 1]))
    assert validate.check_sssp(g, 0, distance, np.array([0, 0, 2])) == (
        "FAILED: 1 vertex whose parent is not on a shortest path, first 1: 2 at 3 (parent 2 at "
        "3, edge weight 4)")
    # the zero-weight loop 1 -> 1 passes the per-edge checks, not the walk to the source
    assert validate.check_sssp(g, 0, distance, np.array([0, 1, 1])) == (
        "FAILED: 2 vertices whose parents never lead back to the source, first 2: 1, 2")


def test_sssp_parents_must_lead_back_to_the_source():
    # 1 and 2 are both at distance 1, joined by zero-weight edges: parents 1 <-> 2 pass
    # every per-edge check but form a cycle that never reaches the source
    g = Graph.from_edges([0, 0, 1, 2], [1, 2, 2, 1], [1.0, 1.0, 0.0, 0.0], device="cpu")
    distance = np.array([0, 1, 1], np.float32)
    assert validate.check_sssp(g, 0, distance, np.array([0, 0, 1])) == "ok"
    assert validate.check_sssp(g, 0, distance, np.array([0, 2, 1])) == \
        "FAILED: 2 vertices whose parents never lead back to the source, first 2: 1, 2"


def test_sssp_unreachable_distance_must_be_inf():
    g = Graph.from_edges([0], [1], [1.0], num_vertices=3, device="cpu")
    assert validate.check_sssp(g, 0, np.array([0, 1, np.inf]), np.array([0, 0, -1])) == "ok"
    verdict = validate.check_sssp(g, 0, np.array([0, 1, 1e30]), np.array([0, 0, -1]))
    assert "2 (got 1e+30, expected inf)" in verdict


def test_sssp_refuses_negative_weights():
    g = Graph.from_edges([0, 1], [1, 2], [1.0, -0.5], device="cpu")
    with pytest.raises(MinigrError, match=r"negative weights \(the smallest is -0.5\)"):
        validate.check_sssp(g, 0, np.array([0, 1, 0.5]), np.array([0, 0, 1]))


# ---- PageRank -------------------------------------------------------------------------------


@pytest.mark.parametrize("seed,directed", GRAPHS)
def test_pagerank_correct_and_off_by_1e5(seed, directed):
    g = random_graph(seed, directed)
    rank = exact_pagerank(g)
    assert validate.check_pagerank(g, rank, tol=1e-10) == "ok"
    rank[7] += 1e-5
    verdict = validate.check_pagerank(g, rank, tol=1e-10)
    assert verdict.startswith("FAILED: 1 vertex off by more than 1e-06, first 1: 7 (got")
    assert verdict.endswith("largest difference 1e-05")


def test_pagerank_damping_and_the_scipy_stand_in(monkeypatch):
    g = random_graph(1, True)
    rank = exact_pagerank(g, damping=0.5)
    assert validate.check_pagerank(g, rank, damping=0.5, tol=1e-10) == "ok"
    assert validate.check_pagerank(g, exact_pagerank(g), damping=0.5,
                                   tol=1e-10).startswith("FAILED")
    monkeypatch.setattr(validate, "NETWORKX_MAX_EDGES", 0)
    assert validate.check_pagerank(g, rank, damping=0.5, tol=1e-10) == (
        "ok (SciPy power iteration with networkx's formula: networkx is too slow above 0 edges)")
    rank[0] += 1e-5
    assert validate.check_pagerank(g, rank, damping=0.5, tol=1e-10).startswith(
        "FAILED: 1 vertex off by more than 1e-06")


@pytest.mark.parametrize("stand_in", [False, True])
def test_pagerank_without_convergence(monkeypatch, stand_in):
    if stand_in:
        monkeypatch.setattr(validate, "NETWORKX_MAX_EDGES", 0)
    g = random_graph(2, True)
    assert validate.check_pagerank(g, exact_pagerank(g), max_iter=1).startswith(
        "FAILED: the reference PageRank did not converge in 1 iterations (tol 1e-06)")


# ---- coloring -------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(4))
def test_coloring_correct_improper_incomplete(seed):
    g = random_graph(seed, False, weighted=False)      # has self-loops: ignored
    color = greedy_coloring(g, "smallest_last")
    greedy = validate.greedy_coloring(g).max() + 1
    assert validate.check_coloring(g, color) == f"ok ({color.max() + 1} colors; largest-first greedy: {greedy})"
    u, v = next((u, v) for u, v, _ in edges(g) if u < v)
    bad = color.copy()
    bad[v] = bad[u]
    assert "joining equal colors, first" in validate.check_coloring(g, bad)
    assert f"{u}-{v} (color {bad[u]})" in validate.check_coloring(g, bad)
    bad = color.copy()
    bad[g.num_vertices - 1] = -1                       # an isolated vertex left uncolored
    assert validate.check_coloring(g, bad) == (
        f"FAILED: 1 vertex without a color, first 1: {g.num_vertices - 1} (color -1)")


@pytest.mark.parametrize("seed", range(4))
def test_greedy_reference_is_networkx_largest_first(seed):
    """Without self-loops and duplicates (which networkx's degrees count otherwise), the
    reference is networkx's greedy_color(strategy="largest_first")."""
    rng = np.random.default_rng(seed)
    n = 500
    g = Graph.from_edges(rng.integers(0, n - 20, 3000), rng.integers(0, n - 20, 3000), num_vertices=n,
                         symmetrize=True, remove_self_loops=True, remove_duplicates=True, device="cpu")
    np.testing.assert_array_equal(validate.greedy_coloring(g), greedy_coloring(g))


def test_coloring_counts_each_clash_once():
    g = Graph.from_edges([0, 0, 1], [1, 1, 2], num_vertices=4, symmetrize=True, device="cpu")
    assert validate.check_coloring(g, np.array([0, 0, 0, 0])) == (
        "FAILED: 2 edges joining equal colors, first 2: 0-1 (color 0), 1-2 (color 0)")


# ---- empty and one-vertex graphs ------------------------------------------------------------


def test_empty_graph():
    g = Graph.from_edges([], [], num_vertices=0, device="cpu")
    none = np.zeros(0, np.int32)
    assert validate.check_pagerank(g, np.zeros(0)) == "ok"
    assert validate.check_coloring(g, none) == "ok"
    with pytest.raises(MinigrError, match=r"has 0 vertices \(no ids at all\)"):
        validate.check_bfs(g, 0, none, none)
    with pytest.raises(MinigrError, match="out of range"):
        validate.check_sssp(g, 0, none, none)


@pytest.mark.parametrize("loop", [False, True])
def test_one_vertex(loop):
    g = Graph.from_edges([0] * loop, [0] * loop, [2.0] * loop, num_vertices=1, device="cpu")
    zero = np.zeros(1, np.int32)
    assert validate.check_bfs(g, 0, zero, zero) == "ok"
    assert validate.check_sssp(g, 0, np.zeros(1, np.float32), zero) == "ok"
    assert validate.check_pagerank(g, np.ones(1)) == "ok"
    assert validate.check_coloring(g, zero) == "ok"
    assert "wrong depth" in validate.check_bfs(g, 0, np.ones(1, np.int32), zero)
    assert "without a color" in validate.check_coloring(g, zero - 1)
