"""Each operator against a NumPy/SciPy reference, on both backends, over the
nasty graphs."""
import numpy
import pytest

from minigr.frontier import Frontier
from minigr.operators import (advance, advance_pull, compute, filter_frontier, neighbor_reduce,
                              split_near_far)
from minigr.transforms import Functor

from conftest import to_host
from graphs import nasty_graphs

GRAPHS = list(nasty_graphs("cpu"))


@pytest.fixture(params=GRAPHS)
def graph(request, device):
    return nasty_graphs(device)[request.param]


def csr(graph):
    return to_host(graph.row_offsets), to_host(graph.col_indices)


def random_frontier(graph, rng, fraction=0.3):
    ids = numpy.flatnonzero(rng.random(graph.num_vertices) < fraction).astype(numpy.int32)
    rng.shuffle(ids)
    return ids


# cond keeps destinations not divisible by 3; apply counts calls and records the edge.
RECORD = """
bool cond(int src, int dst, long long edge, long long rank, long long out_idx, int iteration) const {
    atomicAdd(&cond_calls[edge], 1);
    return dst % 3 != 0 && col_indices[edge] == dst && iteration == 7;
}
void apply(int src, int dst, long long edge, long long rank, long long out_idx, int iteration) const {
    atomicAdd(&apply_calls[edge], 1);
    edge_src[edge] = src;
    edge_rank[edge] = (int)rank;
}"""


def record_op(graph):
    xp, m = graph.xp, graph.num_edges
    arrays = dict(cond_calls=xp.zeros(m, numpy.int32), apply_calls=xp.zeros(m, numpy.int32),
                  edge_src=xp.full(m, -1, numpy.int32), edge_rank=xp.full(m, -1, numpy.int32))
    return Functor(RECORD, col_indices=graph.col_indices, **arrays), arrays


@pytest.mark.parametrize("use_frontier, strategy", [(True, "lbs"), (True, "thread_mapped"), (True, None),
                                                     (False, "lbs")])
@pytest.mark.parametrize("output", [True, False])
def test_advance_push(graph, use_frontier, strategy, output):
    rng = numpy.random.default_rng(1)
    offsets, cols = csr(graph)
    ids = random_frontier(graph, rng) if use_frontier else numpy.arange(graph.num_vertices, dtype=numpy.int32)
    frontier = Frontier.from_ids(ids, graph.num_vertices, graph.device) if use_frontier else None
    op, arrays = record_op(graph)
    result = advance(graph, frontier, op, iteration=7, output=output, strategy=strategy)
    edges = numpy.concatenate([numpy.arange(offsets[v], offsets[v + 1]) for v in ids] + [numpy.zeros(0, int)])
    sources = numpy.concatenate([numpy.full(offsets[v + 1] - offsets[v], v) for v in ids] + [numpy.zeros(0, int)])
    expected_calls = numpy.bincount(edges, minlength=graph.num_edges)
    numpy.testing.assert_array_equal(to_host(arrays["cond_calls"]), expected_calls)
    kept = edges[cols[edges] % 3 != 0]
    numpy.testing.assert_array_equal(to_host(arrays["apply_calls"]), numpy.bincount(kept, minlength=graph.num_edges))
    numpy.testing.assert_array_equal(to_host(arrays["edge_src"])[kept], sources[cols[edges] % 3 != 0])
    numpy.testing.assert_array_equal(to_host(arrays["edge_rank"])[kept],
                                     kept - offsets[sources[cols[edges] % 3 != 0]])
    if output and strategy == "lbs":
        numpy.testing.assert_array_equal(to_host(result.ids), cols[kept])  # in edge order
    elif output:
        numpy.testing.assert_array_equal(numpy.sort(to_host(result.ids)), numpy.sort(cols[kept]))
    else:
        assert result is None


@pytest.mark.parametrize("strategy", ["lbs", "thread_mapped"])
def test_advance_idempotent_uniquifies(graph, strategy):
    op = Functor("""
    bool cond(int s, int d, long long e, long long r, long long o, int it) const { return true; }
    void apply(int s, int d, long long e, long long r, long long o, int it) const {}""")
    out = advance(graph, Frontier.all_vertices(graph.num_vertices, graph.device), op, idempotent=True,
                  strategy=strategy)
    _, cols = csr(graph)
    assert sorted(to_host(out.ids).tolist()) == sorted(set(cols.tolist()))


PULL = """
bool cond(int src, int dst, long long edge, long long rank, long long out_idx, int iteration) const {
    return src % 2 == 0;
}
void apply(int src, int dst, long long edge, long long rank, long long out_idx, int iteration) const {
    parent[dst] = src;
    parent_edge[dst] = (int)edge;
}"""


def test_advance_pull(graph):
    rng = numpy.random.default_rng(2)
    n = graph.num_vertices
    active = random_frontier(graph, rng, 0.4)
    unvisited = numpy.setdiff1d(numpy.arange(n), active).astype(numpy.int32)
    xp = graph.xp
    parent, parent_edge = xp.full(n, -1, numpy.int32), xp.full(n, -1, numpy.int32)
    found = advance_pull(graph, Frontier.from_ids(unvisited, n, graph.device),
                         Frontier.from_ids(active, n, graph.device).to_dense(),
                         Functor(PULL, parent=parent, parent_edge=parent_edge))
    reverse = graph.reverse()
    in_offsets, in_sources = to_host(reverse.row_offsets), to_host(reverse.col_indices)
    is_active = numpy.zeros(n, bool)
    is_active[active] = True
    expected_parent = numpy.full(n, -1)
    for v in unvisited:  # the first in-neighbour that is active and even
        for e in range(in_offsets[v], in_offsets[v + 1]):
            u = in_sources[e]
            if is_active[u] and u % 2 == 0:
                expected_parent[v] = u
                break
    numpy.testing.assert_array_equal(to_host(parent), expected_parent)
    numpy.testing.assert_array_equal(to_host(found.ids), unvisited[expected_parent[unvisited] >= 0])
    edges = to_host(parent_edge)[expected_parent >= 0]
    numpy.testing.assert_array_equal(in_sources[edges], expected_parent[expected_parent >= 0])


def test_advance_strategy_choice(graph):
    op = Functor("bool cond(int s, int d, long long e, long long r, long long o, int it) const { return true; }\n"
                 "void apply(int s, int d, long long e, long long r, long long o, int it) const {}")
    with pytest.raises(ValueError, match="strategy must be one of"):
        advance(graph, None, op, strategy="thread_mapped")
    with pytest.raises(ValueError, match="strategy must be one of"):
        advance(graph, Frontier.empty(graph.num_vertices, graph.device), op, strategy="warp")


def test_filter(graph):
    rng = numpy.random.default_rng(3)
    n = graph.num_vertices
    ids = rng.integers(-1, max(n, 1), size=3 * n).astype(numpy.int32)  # with invalid -1 entries and duplicates
    frontier = Frontier(n, ids=graph.xp.asarray(ids))
    odd = Functor("bool cond(int v, int iteration) const { return v % 2 == iteration; }")
    numpy.testing.assert_array_equal(to_host(filter_frontier(frontier, odd, iteration=1).ids),
                                     ids[(ids >= 0) & (ids % 2 == 1)])
    unique = to_host(filter_frontier(frontier, uniquify=True).ids)
    assert sorted(unique.tolist()) == sorted(set(ids[ids >= 0].tolist()))


@pytest.mark.parametrize("direction", ["out", "in"])
@pytest.mark.parametrize("reduce", ["sum", "min", "max"])
@pytest.mark.parametrize("use_frontier", [True, False])
@pytest.mark.parametrize("strategy", ["lbs", "thread_mapped"])
def test_neighbor_reduce(graph, direction, reduce, use_frontier, strategy):
    rng = numpy.random.default_rng(4)
    n = graph.num_vertices
    value = rng.integers(-100, 100, size=n).astype(numpy.int64)
    op = Functor("long long operator()(int v, int u, long long edge) const { return value[u] * 1000 + v; }",
                 value=graph.xp.asarray(value))
    ids = random_frontier(graph, rng, 0.5) if use_frontier else numpy.arange(n, dtype=numpy.int32)
    frontier = Frontier.from_ids(ids, n, graph.device) if use_frontier else None
    got = to_host(neighbor_reduce(graph, op, frontier=frontier, direction=direction, reduce=reduce,
                                  dtype=numpy.int64, strategy=strategy))
    matrix = graph.to_scipy() if direction == "out" else graph.to_scipy().T.tocsr()
    identity = {"sum": 0, "min": numpy.iinfo(numpy.int64).max, "max": numpy.iinfo(numpy.int64).min}[reduce]
    expected = []
    for v in ids:
        neighbours = matrix.indices[matrix.indptr[v]:matrix.indptr[v + 1]]
        values = value[neighbours] * 1000 + v
        expected.append({"sum": values.sum(), "min": values.min(initial=identity),
                         "max": values.max(initial=identity)}[reduce] if len(values) else identity)
    numpy.testing.assert_array_equal(got, numpy.array(expected, dtype=numpy.int64))


@pytest.mark.parametrize("mean_degree", [1, 3, 6, 12, 24, 48, 100])
def test_neighbor_reduce_thread_groups(device, mean_degree):
    """thread_mapped with every group size the mean degree can pick (1 to 32 threads per vertex)."""
    from minigr import Graph
    rng = numpy.random.default_rng(mean_degree)
    n = 203
    src, dst = rng.integers(0, n, size=(2, n * mean_degree))
    graph = Graph.from_edges(src, dst, num_vertices=n, directed=True, device=device)
    value = rng.integers(-100, 100, size=n).astype(numpy.int64)
    op = Functor("long long operator()(int v, int u, long long edge) const { return value[u] * 1000 + v; }",
                 value=graph.xp.asarray(value))
    ids = random_frontier(graph, rng, 0.7)
    for frontier, vertices in ((None, numpy.arange(n)), (Frontier.from_ids(ids, n, device), ids)):
        got = to_host(neighbor_reduce(graph, op, frontier=frontier, dtype=numpy.int64, strategy="thread_mapped"))
        expected = [sum(value[dst[src == v]] * 1000 + v) for v in vertices]
        numpy.testing.assert_array_equal(got, numpy.array(expected, dtype=numpy.int64))


@pytest.mark.parametrize("strategy", ["lbs", "thread_mapped"])
def test_neighbor_reduce_no_vertices(device, strategy):
    from minigr import Graph
    graph = Graph.from_edges(numpy.zeros(0, int), numpy.zeros(0, int), num_vertices=0, directed=True, device=device)
    op = Functor("double operator()(int v, int u, long long edge) const { return u; }")
    assert len(neighbor_reduce(graph, op, strategy=strategy)) == 0


def test_compute(graph):
    n = graph.num_vertices
    x = graph.xp.zeros(n, numpy.int32)
    op = Functor("void operator()(int v, int iteration) const { x[v] += v + iteration; }", x=x)
    compute(graph, None, op, iteration=3)
    ids = numpy.arange(0, n, 3, dtype=numpy.int32)
    compute(graph, Frontier.from_ids(ids, n, graph.device), op, iteration=1)
    expected = numpy.arange(n) + 3
    expected[ids] += ids + 1
    numpy.testing.assert_array_equal(to_host(x), expected)


def test_split_near_far(graph):
    rng = numpy.random.default_rng(5)
    n = graph.num_vertices
    score = rng.random(n)
    ids = random_frontier(graph, rng, 0.6)
    near, far = split_near_far(Frontier.from_ids(ids, n, graph.device),
                               Functor("double operator()(int v) const { return score[v]; }",
                                       score=graph.xp.asarray(score)), 0.3)
    numpy.testing.assert_array_equal(to_host(near.ids), ids[score[ids] < 0.3])
    numpy.testing.assert_array_equal(to_host(far.ids), ids[score[ids] >= 0.3])


def test_frontier_conversions(device):
    from minigr.transforms import array_module
    rng = numpy.random.default_rng(6)
    for n in [1, 31, 32, 33, 1000, 100_003]:
        ids = numpy.unique(rng.integers(0, n, size=n // 3 + 1)).astype(numpy.int32)
        rng.shuffle(ids)
        dense = Frontier.from_ids(ids, n, device).to_dense()
        assert dense.is_dense and len(dense) == len(ids)
        numpy.testing.assert_array_equal(to_host(dense.to_sparse().ids), numpy.sort(ids))
        bits = numpy.unpackbits(to_host(dense.bitmap).view(numpy.uint8), bitorder="little")[:n]
        numpy.testing.assert_array_equal(numpy.flatnonzero(bits), numpy.sort(ids))
    with pytest.raises(Exception, match=r"frontier ids must be in \[0, 5\)"):
        Frontier.from_ids([7], 5, device)
    assert len(Frontier.empty(10, device)) == 0 and array_module(device) is Frontier.empty(3, device).xp
