"""Each operator against a NumPy/SciPy reference, on both backends, over the
nasty graphs."""
import os

import numpy
import pytest

import minigr
from minigr.frontier import NUMBER, SIZE, Frontier
from minigr.operators import (NeighborGroups, UnionFind, advance, advance_pull, compute, filter_frontier,
                              intersect_neighbors, neighbor_reduce, reduce_vertices, select_edges, Buckets)
from minigr.operators.priority_queue import LOWEST
from minigr.transforms import DeviceCount, Functor, MinigrError, transform

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


def next_level_ids(frontier):
    """The vertices appended to `frontier`'s next level, sorted (makes it current)."""
    frontier.next_level()
    return numpy.sort(to_host(frontier.wait_ids()))


@pytest.mark.parametrize("use_frontier", [True, False])
@pytest.mark.parametrize("output", [True, False])
@pytest.mark.parametrize("device_iteration", [True, False])
def test_advance_push(graph, use_frontier, output, device_iteration):
    rng = numpy.random.default_rng(1)
    offsets, cols = csr(graph)
    n = graph.num_vertices
    ids = random_frontier(graph, rng) if use_frontier else numpy.arange(n, dtype=numpy.int32)
    frontier = Frontier.from_ids(ids, n, graph.device) if use_frontier else None
    out = Frontier(n, graph.device, capacity=max(graph.num_edges, 1), edges=True) if output else None
    op, arrays = record_op(graph)
    iteration = graph.xp.full(1, 7, numpy.int32) if device_iteration else 7
    advance(graph, frontier, op, out=out, iteration=iteration)
    edges = numpy.concatenate([numpy.arange(offsets[v], offsets[v + 1]) for v in ids] + [numpy.zeros(0, int)])
    sources = numpy.concatenate([numpy.full(offsets[v + 1] - offsets[v], v) for v in ids] + [numpy.zeros(0, int)])
    expected_calls = numpy.bincount(edges, minlength=graph.num_edges)
    numpy.testing.assert_array_equal(to_host(arrays["cond_calls"]), expected_calls)
    kept = edges[cols[edges] % 3 != 0]
    numpy.testing.assert_array_equal(to_host(arrays["apply_calls"]), numpy.bincount(kept, minlength=graph.num_edges))
    numpy.testing.assert_array_equal(to_host(arrays["edge_src"])[kept], sources[cols[edges] % 3 != 0])
    numpy.testing.assert_array_equal(to_host(arrays["edge_rank"])[kept],
                                     kept - offsets[sources[cols[edges] % 3 != 0]])
    if output:
        numpy.testing.assert_array_equal(next_level_ids(out), numpy.sort(cols[kept]))
        assert int(out.bounds[4]) == (offsets[cols[kept] + 1] - offsets[cols[kept]]).sum()  # the level's edges


@pytest.mark.parametrize("leaves", [3000, 5000])
@pytest.mark.parametrize("unique", [True, False])
def test_advance_appends_past_a_blocks_stage(device, leaves, unique):
    """A block's pass stages up to 1024 appends and appends the rest straight (frontier.h): a hub of
    3000 leaves (a block walks it) or 5000 (the whole grid) puts each leaf in the next level (once where
    unique), with its out-edges counted; so does the edge from each odd leaf on to the next, walked beside it."""
    hub = numpy.zeros(leaves, int)
    ring = numpy.arange(1, leaves + 1)
    graph = minigr.Graph.from_edges(numpy.concatenate([hub, ring]), numpy.concatenate([ring, ring % leaves + 1]),
                                    num_vertices=leaves + 2, device=device)
    n = graph.num_vertices
    frontier = Frontier.from_ids([0] + list(range(1, leaves + 1, 2)), n, device)
    out = Frontier(n, device, capacity=graph.num_edges, edges=True)
    op = Functor("""
    bool cond(int s, int d, long long e, long long r, long long o, int it) const { return true; }
    void apply(int s, int d, long long e, long long r, long long o, int it) const {}""")
    advance(graph, frontier, op, out=out, unique=unique)
    expected = numpy.sort(numpy.concatenate([ring] + ([] if unique else [ring[0::2] % leaves + 1])))
    numpy.testing.assert_array_equal(next_level_ids(out), expected)
    assert int(out.bounds[4]) == len(expected)  # each leaf has one out-edge


@pytest.mark.parametrize("use_frontier", [True, False])
def test_advance_unique_appends_once(graph, use_frontier):
    op = Functor("""
    bool cond(int s, int d, long long e, long long r, long long o, int it) const { return true; }
    void apply(int s, int d, long long e, long long r, long long o, int it) const {}""")
    n = graph.num_vertices
    frontier = Frontier.from_ids(numpy.arange(n), n, graph.device) if use_frontier else None
    out = Frontier(n, graph.device)
    for _ in range(2):  # a second level gets every vertex again
        advance(graph, frontier, op, out=out, unique=True)
        _, cols = csr(graph)
        numpy.testing.assert_array_equal(next_level_ids(out), numpy.unique(cols))


def test_advance_appends_to_its_own_frontier(graph):
    """A level read while the next is appended after it in the same ring, over many levels."""
    n = graph.num_vertices
    op = Functor("""
    bool cond(int s, int d, long long e, long long r, long long o, int it) const { return true; }
    void apply(int s, int d, long long e, long long r, long long o, int it) const {}""")
    frontier = Frontier.from_ids([0], n, graph.device)
    matrix = graph.to_scipy()
    level = numpy.array([0])
    for _ in range(6):
        advance(graph, frontier, op, out=frontier, unique=True)
        level = numpy.unique(matrix[level].indices)
        numpy.testing.assert_array_equal(next_level_ids(frontier), level)
    frontier.check_waiting()


PULL = """
bool cond(int src, int dst, long long edge, long long rank, long long out_idx, int iteration) const {
    return active[src] && src % 2 == 0;
}
void apply(int src, int dst, long long edge, long long rank, long long out_idx, int iteration) const {
    parent[dst] = src;
    parent_edge[dst] = (int)edge;
}"""


def test_advance_pull(graph):
    rng = numpy.random.default_rng(2)
    n = graph.num_vertices
    active = numpy.zeros(n, bool)
    active[random_frontier(graph, rng, 0.4)] = True
    xp = graph.xp
    parent, parent_edge = xp.full(n, -1, numpy.int32), xp.full(n, -1, numpy.int32)
    out = Frontier(n, graph.device)
    wanted = Functor("bool operator()(int v) const { return !active[v]; }", active=xp.asarray(active))
    advance_pull(graph, Functor(PULL, active=xp.asarray(active), parent=parent, parent_edge=parent_edge), wanted,
                 out=out)
    reverse = graph.reverse()
    in_offsets, in_sources = to_host(reverse.row_offsets), to_host(reverse.col_indices)
    expected_parent = numpy.full(n, -1)
    for v in numpy.flatnonzero(~active):  # the first in-neighbour that is active and even
        for e in range(in_offsets[v], in_offsets[v + 1]):
            u = in_sources[e]
            if active[u] and u % 2 == 0:
                expected_parent[v] = u
                break
    numpy.testing.assert_array_equal(to_host(parent), expected_parent)
    numpy.testing.assert_array_equal(next_level_ids(out), numpy.flatnonzero(expected_parent >= 0))
    edges = to_host(parent_edge)[expected_parent >= 0]
    numpy.testing.assert_array_equal(in_sources[edges], expected_parent[expected_parent >= 0])


@pytest.mark.parametrize("unique", [True, False])
def test_filter(graph, unique):
    rng = numpy.random.default_rng(3)
    n = graph.num_vertices
    ids = numpy.unique(rng.integers(0, max(n, 1), size=n)).astype(numpy.int32)
    frontier = Frontier.from_ids(ids, n, graph.device)
    odd = Functor("bool cond(int v, int iteration) const { return v % 2 == iteration; }")
    filter_frontier(frontier, odd, out=frontier, iteration=1, unique=unique)
    filter_frontier(frontier, odd, out=frontier, iteration=1, unique=unique)  # each vertex twice, unless unique
    expected = ids[ids % 2 == 1]
    expected = expected if unique else numpy.sort(numpy.concatenate([expected, expected]))
    numpy.testing.assert_array_equal(next_level_ids(frontier), expected)
    filter_frontier(frontier, out=frontier, unique=True)  # keeps every vertex, once
    numpy.testing.assert_array_equal(next_level_ids(frontier), ids[ids % 2 == 1])


@pytest.mark.parametrize("direction", ["out", "in"])
@pytest.mark.parametrize("reduce", ["sum", "min", "max"])
@pytest.mark.parametrize("use_frontier, strategy", [(True, None), (False, "lbs"), (False, "thread_mapped")])
def test_neighbor_reduce(graph, direction, reduce, use_frontier, strategy):
    rng = numpy.random.default_rng(4)
    n = graph.num_vertices
    value = rng.integers(-100, 100, size=n).astype(numpy.int64)
    op = Functor("long long operator()(int v, int u, long long edge) const { return value[u] * 1000 + v; }",
                 value=graph.xp.asarray(value))
    ids = random_frontier(graph, rng, 0.5) if use_frontier else numpy.arange(n, dtype=numpy.int32)
    frontier = Frontier.from_ids(ids, n, graph.device) if use_frontier else None
    poison = numpy.iinfo(numpy.int64).min + 12345  # left where the frontier has no vertex
    out = graph.xp.full(n, poison, numpy.int64)
    got = to_host(neighbor_reduce(graph, op, frontier=frontier, out=out, direction=direction, reduce=reduce,
                                  strategy=strategy))
    matrix = graph.to_scipy() if direction == "out" else graph.to_scipy().T.tocsr()
    identity = {"sum": 0, "min": numpy.iinfo(numpy.int64).max, "max": numpy.iinfo(numpy.int64).min}[reduce]
    expected = numpy.full(n, poison, numpy.int64)
    for v in ids:
        neighbours = matrix.indices[matrix.indptr[v]:matrix.indptr[v + 1]]
        values = value[neighbours] * 1000 + v
        expected[v] = {"sum": values.sum(), "min": values.min(initial=identity),
                       "max": values.max(initial=identity)}[reduce] if len(values) else identity
    numpy.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("mean_degree", [1, 3, 6, 12, 24, 48, 100])
def test_neighbor_reduce_thread_groups(device, mean_degree):
    """thread_mapped with every group size the mean degree can pick (1 to 32
    threads per vertex); over a frontier, with every expansion (thread, warp, block)."""
    from minigr import Graph
    rng = numpy.random.default_rng(mean_degree)
    n = 203
    src, dst = rng.integers(0, n, size=(2, n * mean_degree))
    src[:300 * mean_degree // 10] = 7  # vertex 7 has hundreds of edges: a block walks them
    graph = Graph.from_edges(src, dst, num_vertices=n, directed=True, device=device)
    value = rng.integers(-100, 100, size=n).astype(numpy.int64)
    op = Functor("long long operator()(int v, int u, long long edge) const { return value[u] * 1000 + v; }",
                 value=graph.xp.asarray(value))
    ids = random_frontier(graph, rng, 0.7)
    for frontier, vertices in ((None, numpy.arange(n)), (Frontier.from_ids(ids, n, device), ids)):
        got = to_host(neighbor_reduce(graph, op, frontier=frontier, dtype=numpy.int64,
                                      strategy="thread_mapped" if frontier is None else None))
        expected = [sum(value[dst[src == v]] * 1000 + v) for v in vertices]
        numpy.testing.assert_array_equal(got[vertices], numpy.array(expected, dtype=numpy.int64))


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
    counts = graph.xp.asarray(numpy.array([0, n // 2], numpy.int64))
    for index in (0, 1):  # over every vertex, the first `count` alone: none, then half
        compute(graph, None, op, count=DeviceCount(counts, max(n, 1), index))
    expected[:n // 2] += numpy.arange(n // 2)
    numpy.testing.assert_array_equal(to_host(x), expected)


@pytest.mark.parametrize("reduce", ["sum", "max", "min"])
def test_reduce_vertices(graph, reduce):
    """Into one cell of a larger array, twice (the second call reuses the graph's partition)."""
    score = numpy.random.default_rng(6).random(graph.num_vertices)
    out = graph.xp.full(3, -1.0)
    op = Functor("double operator()(int v) const { return score[v] * (v % 5); }", score=graph.xp.asarray(score))
    for _ in range(2):
        assert reduce_vertices(graph, op, out=out[1:2], reduce=reduce) is not None
    values = score * (numpy.arange(graph.num_vertices) % 5)
    identity = {"sum": 0.0, "max": -numpy.inf, "min": numpy.inf}[reduce]
    expected = getattr(numpy, reduce)(values, initial=identity)
    numpy.testing.assert_allclose(to_host(out), [-1, expected, -1], rtol=1e-12)


@pytest.mark.parametrize("reduce", ["sum", "max"])
def test_reduce_vertices_of_an_array(graph, reduce):
    """An array in place of the functor: its values reduced, into out's dtype (int64 counts here)."""
    degrees = graph.out_degrees()
    out = graph.xp.zeros(1, dtype=numpy.int64)
    reduce_vertices(graph, degrees, out=out, reduce=reduce)
    assert int(out[0]) == getattr(numpy, reduce)(to_host(degrees), initial=0)


@pytest.mark.parametrize("loops", [True, False])
def test_neighbor_groups(graph, loops):
    """Per vertex, op's values summed by the neighbour's label (a user functor walks each table into a dense
    array), against NumPy; twice, the walk emptying the tables for the second fill."""
    n, xp = graph.num_vertices, graph.xp
    label = numpy.random.default_rng(8).integers(0, 7, n).astype(numpy.int32)
    op = Functor("double operator()(int v, int u, long long edge) const { return 1 + edge % 3; }")
    groups = NeighborGroups(graph, xp.asarray(label), op, loops=loops)
    walk = Functor("""void operator()(long long v) const {
        for (long long s = g.begin(v); s < g.end(v); ++s)
            if (g.label(s) != -1) { out[v * 7 + g.label(s)] += g.sum(s); g.clear(s); }
    }""", g=groups.view, out=(out := xp.zeros(n * 7)))
    src, dst = to_host(graph.edge_sources()), to_host(graph.col_indices)
    counted = numpy.ones(len(dst), bool) if loops else src != dst
    expected = numpy.zeros(n * 7)
    numpy.add.at(expected, src[counted] * 7 + label[dst[counted]], 1 + numpy.flatnonzero(counted) % 3)
    for _ in range(2):
        out.fill(0)
        groups.fill()
        transform(n, walk)
        numpy.testing.assert_allclose(to_host(out), expected, rtol=1e-12)


def test_intersect_neighbors(graph):
    """Common out-neighbours of random vertex pairs, a copy stored j and k times common min(j, k) times: the counts,
    and each common neighbour reached once through both its edges, against NumPy."""
    n, xp = graph.num_vertices, graph.xp
    first, second = numpy.random.default_rng(9).integers(0, max(n, 1), (2, 3 * n)).astype(numpy.int32)
    out, seen = xp.empty(len(first), dtype=numpy.int64), xp.zeros(len(first), dtype=numpy.int64)
    record = Functor("""void operator()(long long p, long long ia, long long ib) const {
        if (col_indices[ia] == col_indices[ib]) atomicAdd(&seen[p], 1ll);
    }""", col_indices=graph.col_indices, seen=seen)
    intersect_neighbors(graph, xp.asarray(first), xp.asarray(second), record, out=out)
    row_offsets, col_indices = csr(graph)
    rows = [col_indices[row_offsets[v]:row_offsets[v + 1]] for v in range(n)]
    expected = [sum(min(numpy.count_nonzero(rows[u] == w), numpy.count_nonzero(rows[v] == w))
                    for w in numpy.intersect1d(rows[u], rows[v])) for u, v in zip(first, second)]
    assert to_host(out).tolist() == expected and to_host(seen).tolist() == expected
    chosen = list(range(0, len(first), 3))  # the same pairs, a third of them, listed by a frontier's level
    seen.fill(0)
    intersect_neighbors(graph, xp.asarray(first), xp.asarray(second), record,
                        frontier=Frontier.from_ids(chosen, len(first), graph.device))
    assert to_host(seen).tolist() == [count if p in chosen else 0 for p, count in enumerate(expected)]


def test_select_edges(graph):
    """The rows cut to edges of an odd edge index towards a larger id (duplicates and self-loops as stored), each row
    holding what NumPy keeps of it, in any order."""
    n, xp = graph.num_vertices, graph.xp
    offsets, columns = xp.empty(n + 1, dtype=numpy.int64), xp.empty(max(graph.num_edges, 1), dtype=numpy.int32)
    keep = Functor("bool operator()(int v, int u, long long edge) const { return u > v && edge % 2 == 1; }")
    select_edges(graph, keep, offsets=offsets, columns=columns)
    row_offsets, col_indices = csr(graph)
    offsets, columns = to_host(offsets), to_host(columns)
    for v in range(n):
        edges = numpy.arange(row_offsets[v], row_offsets[v + 1])
        kept = col_indices[edges[(col_indices[edges] > v) & (edges % 2 == 1)]]
        assert sorted(columns[offsets[v]:offsets[v + 1]].tolist()) == kept.tolist(), v
    assert offsets[0] == 0


def test_union_find(graph):
    """Every edge hooked at once, then roots read before and after a compress: each vertex's root is the smallest
    id of its weakly connected component (SciPy's), and a compress keeps every vertex under a smaller or equal id
    of its component. (Not always the root itself: a halving running beside a compress may write an ancestor back
    over the root it just wrote, as the GPU showed on a grid.)"""
    from scipy.sparse.csgraph import connected_components
    n, xp = graph.num_vertices, graph.xp
    sets, root = UnionFind(n, graph.device), xp.empty(max(n, 1), dtype=numpy.int32)
    src = graph.edge_sources()
    sets.reset()
    transform(graph.num_edges, Functor("void operator()(long long e) const { sets.hook((int)src[e], dst[e]); }",
                                       sets=sets.view, src=src, dst=graph.col_indices))
    labels = connected_components(graph.to_scipy(), directed=True, connection="weak")[1]
    smallest = numpy.full(n, n)
    numpy.minimum.at(smallest, labels, numpy.arange(n))
    sets.roots(root)
    assert to_host(root[:n]).tolist() == smallest[labels].tolist()
    sets.compress()
    parent = to_host(sets.parent[:n])
    assert (parent <= numpy.arange(n)).all() and (labels[parent] == labels).all()
    sets.roots(root)
    assert to_host(root[:n]).tolist() == smallest[labels].tolist()


# Offers each of `ids` to the buckets with its label (run by one thread: in order on both devices).
OFFER = """void operator()(long long) const {
    for (long long i = 0; i < count; ++i) buckets.place(ids[i], label[ids[i]]);
}"""
STEP = "void operator()(long long) const { went_on[0] = buckets.next(); }"


def offered(device, label, ids, delta):
    """Buckets `delta` wide, empty, then offered the vertices `ids` with their labels."""
    from minigr.transforms.backend import array_module
    xp, buckets = array_module(device), Buckets(len(label), device)
    transform(1, Functor("void operator()(long long) const { buckets.reset(-1, delta); }", buckets=buckets.view,
                         delta=numpy.float64(delta)))
    transform(1, Functor(OFFER, buckets=buckets.view, ids=xp.asarray(ids), label=xp.asarray(label),
                         count=numpy.int64(len(ids))))
    return buckets


def labelled(xp, label):
    """A vertex's label, for Buckets.split."""
    return Functor("double operator()(int v) const { return label[v]; }", label=xp.asarray(label))


def test_buckets_place_raise_and_split(device):
    """Delta-stepping's buckets: labels below the threshold go near, the rest far with their
    lowest kept; once near runs dry the threshold jumps past empty buckets to the lowest far
    label's, and a split sends far's vertices below it near, the rest far again."""
    from minigr.transforms.backend import array_module
    xp, rng, n, delta = array_module(device), numpy.random.default_rng(5), 1000, 0.25
    label = numpy.floor(rng.random(n) * 25) / 100  # [0, 0.24]: the first bucket, 0 among them
    far_off = rng.random(n) < 0.6
    label[far_off] = 3 + numpy.round(rng.random(far_off.sum()) * 4) / 4  # 3 to 4 by 0.25: buckets 2 to 12 empty
    ids = numpy.flatnonzero(rng.random(n) < 0.7).astype(numpy.int32)
    rng.shuffle(ids)
    buckets, labels, went_on = offered(device, label, ids, delta), labelled(xp, label), xp.zeros(1, numpy.int32)
    step = Functor(STEP, buckets=buckets.view, went_on=went_on)
    near, far = ids[label[ids] < delta], ids[label[ids] >= delta]
    assert to_host(buckets.bucket)[[0, 1, LOWEST]].tolist() == [delta, delta, label[far].min()]
    transform(1, step)  # near's level becomes current
    assert int(went_on[0]) == 1 and to_host(buckets.threshold).tolist() == [delta]
    numpy.testing.assert_array_equal(numpy.sort(to_host(buckets.near.wait_ids())), numpy.sort(near))
    transform(1, step)  # near ran dry: the threshold rises to the bucket of far's lowest label
    threshold = delta * (numpy.floor(label[far].min() / delta) + 1)
    assert int(went_on[0]) == 1 and float(buckets.threshold[0]) == pytest.approx(threshold)
    buckets.split(labels)
    numpy.testing.assert_array_equal(next_level_ids(buckets.near), numpy.sort(far[label[far] < threshold]))
    stays = far[label[far] >= threshold]
    numpy.testing.assert_array_equal(next_level_ids(buckets.far), numpy.sort(stays))
    assert float(buckets.bucket[LOWEST]) == label[stays].min()


@pytest.mark.parametrize("apart", [2.0**-30, 2.0**-2])
def test_buckets_keep_the_lowest_far_label_offered_at_once(device, apart):
    """Far labels offered by many threads at once (a warp's lowest goes in one atomic):
    far keeps the lowest exactly, whether the labels differ in their low 32 bits only
    (2^-30 apart above 3) or in their high ones."""
    from minigr.transforms.backend import array_module
    xp, rng, n = array_module(device), numpy.random.default_rng(11), 5000
    label = 3 + rng.permutation(n) * apart
    buckets = offered(device, label, numpy.zeros(0, numpy.int32), 0.25)
    transform(n, Functor("void operator()(long long v) const { buckets.place((int)v, label[v]); }",
                         buckets=buckets.view, label=xp.asarray(label)))
    assert float(buckets.bucket[LOWEST]) == label.min() == 3


# The parts' lockstep step (apps/_sssp_parts.py): near's next level, then the threshold one delta up.
RAISE_ONE = """void operator()(long long) const {
    sizes[0] = buckets.next_near();
    sizes[1] = buckets.raise_threshold(1);
}"""


def test_buckets_raise_threshold_by_one(device):
    """raise_threshold(1): with near dry and far's labels 3 and up, the threshold rises by
    exactly one delta each time, through the empty buckets that next() would skip, far's
    vertices become current (a split keeps them far) and its lowest label is forgotten."""
    from minigr.transforms.backend import array_module
    xp, rng, n, delta = array_module(device), numpy.random.default_rng(7), 1000, 0.25
    label = 3 + numpy.round(rng.random(n) * 4) / 4
    ids = numpy.flatnonzero(rng.random(n) < 0.7).astype(numpy.int32)
    buckets, labels, sizes = offered(device, label, ids, delta), labelled(xp, label), xp.zeros(2, numpy.int64)
    raise_one = Functor(RAISE_ONE, buckets=buckets.view, sizes=sizes)
    for k in (1, 2, 3):
        transform(1, raise_one)
        assert to_host(sizes).tolist() == [0, len(ids)]
        assert to_host(buckets.bucket)[[0, 1, LOWEST]].tolist() == [delta * (k + 1), delta, numpy.inf]
        numpy.testing.assert_array_equal(numpy.sort(to_host(buckets.far.wait_ids())), numpy.sort(ids))
        buckets.split(labels)  # all stay far (near's next level stays empty: sizes[0] above)
        assert float(buckets.bucket[LOWEST]) == label[ids].min()


def test_frontier_levels(device):
    """Levels read in ring order across the ring's end; sizes stay on the device."""
    rng = numpy.random.default_rng(6)
    n = 100
    frontier = Frontier(n, device, capacity=7)
    keep_all = Functor("bool cond(int v, int iteration) const { return true; }")
    for size in (3, 0, 2, 1, 3, 2):  # a level and its copy fit in 7
        ids = rng.choice(n, size=size, replace=False).astype(numpy.int32)
        frontier.reset(ids)
        assert frontier.wait_size() == size
        for _ in range(5):  # each level copies itself into the next, so positions wrap around the ring
            filter_frontier(frontier, keep_all, out=frontier)
            frontier.next_level()
            numpy.testing.assert_array_equal(numpy.sort(to_host(frontier.wait_ids())), numpy.sort(ids))
    frontier.reset(numpy.arange(4))
    filter_frontier(frontier, keep_all, out=frontier)
    filter_frontier(frontier, keep_all, out=frontier)  # 4 + 8 > 7: the ring is full
    with pytest.raises(Exception, match="overflowed"):
        frontier.check_waiting()


TINY_DELTA = """import minigr
graph = minigr.Graph.from_edges([0, 1], [1, 2], weights=[1e6, 1.0], device={device!r})
for loop in ("host", "device"):
    print(minigr.sssp(graph, 0, delta=1e-11, loop=loop).distance.tolist())"""


def test_buckets_rise_past_labels_a_delta_cannot_reach(device, tmp_path):
    """A delta far under the labels' precision (1e-11 beside 1e6) adds nothing to the
    threshold: the buckets still rise past far's lowest label, so SSSP settles (it looped
    for ever, the split sending the vertex far each time). In a process of its own, so that
    a hang is a failure."""
    import subprocess
    import sys
    done = subprocess.run([sys.executable, "-c", TINY_DELTA.format(device=device)], capture_output=True, text=True,
                          timeout=300, env={**os.environ, "MINIGR_CACHE_DIR": str(tmp_path / "cache")})
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:2] == ["[0.0, 1000000.0, 1000001.0]"] * 2


def test_unique_appends_hold_after_2_to_the_32_levels(device):
    """A vertex's stamp is its last level's number, whole: 2^32 levels later (a frontier
    kept across millions of calls) it still differs from the current one, and the append
    goes in (a 32-bit stamp matched again and dropped it)."""
    frontier = Frontier(10, device)
    append = Functor("void operator()(long long) const { frontier.append_unique(5, 0); }", frontier=frontier.view)
    frontier.reset()
    transform(1, append)
    frontier.next_level()
    number = int(frontier.bounds[NUMBER])
    frontier.bounds[NUMBER] = number - 1 + 2**32  # the level 5 was appended in, 2^32 levels on
    transform(1, append)
    frontier.next_level()
    assert frontier.wait_size() == 1


def test_a_frontier_of_more_items_than_int32_ids_is_refused():
    """Its ids are int32: ktruss's frontier of edge ids, on a graph of 2^31 edges or more, would
    have wrapped them (refused before anything is allocated)."""
    with pytest.raises(MinigrError, match=r"a frontier holds int32 ids, below 2147483648; got 2147483648 items"):
        Frontier(2**31, "cpu")


def test_an_overflowed_frontier_hands_out_no_level(device):
    """Appends past a full ring are counted but not stored: the next level is empty, not one
    of ids no one wrote, and reading its size or ids says the frontier overflowed."""
    star = minigr.Graph.from_edges(numpy.zeros(40, numpy.int32), numpy.arange(1, 41), device=device)
    frontier = Frontier(41, device, capacity=4)
    frontier.reset(0)
    advance(star, frontier, minigr.operators.AdvanceFunctor(), out=frontier)  # 40 appends into a ring of 4
    frontier.next_level()
    assert int(frontier.bounds[SIZE]) == 0
    for read in (frontier.wait_size, frontier.wait_ids):
        with pytest.raises(MinigrError, match="a frontier of capacity 4 overflowed"):
            read()


STEP_BACK = """void operator()(long long) const {
    sizes[0] = frontier.previous_level();
    sizes[1] = frontier.level();
    sizes[2] = frontier.kept_vertices();
}"""


def test_frontier_keeps_its_levels(device, xp):
    """A frontier keeping its levels walks them back in order, each with its own vertices,
    where a ring of the same capacity would have reused their room; more levels than it
    keeps, or more vertices than its capacity, overflow."""
    n = 50
    levels = [numpy.arange(0, 3), numpy.arange(3, 10), numpy.arange(10, 12), numpy.arange(12, 30)]
    frontier = Frontier(n, device, capacity=30, levels=len(levels) + 1)
    sizes = xp.zeros(3, numpy.int64)
    step_back = Functor(STEP_BACK, frontier=frontier.view, sizes=sizes)
    for _ in range(2):  # a second reset starts the levels afresh
        frontier.reset(levels[0])
        for ids in levels[1:] + [numpy.arange(0)]:
            filter_frontier(Frontier.from_ids(ids, n, device), out=frontier)
            frontier.next_level()
        assert frontier.wait_size() == 0
        for number in range(len(levels) - 1, -1, -1):
            transform(1, step_back)
            assert to_host(sizes).tolist() == [len(levels[number]), number, levels[number][-1] + 1]
            numpy.testing.assert_array_equal(numpy.sort(to_host(frontier.wait_ids())), levels[number])
        transform(1, step_back)
        assert to_host(sizes).tolist() == [0, -1, 0] and frontier.wait_size() == 0
        frontier.check_waiting()
    frontier.reset()  # no level yet: the seeds appended become level 0
    filter_frontier(Frontier.from_ids(levels[1], n, device), out=frontier)
    frontier.next_level()
    transform(1, Functor("void operator()(long long) const { sizes[0] = frontier.level(); }", frontier=frontier.view,
                         sizes=sizes))
    assert int(sizes[0]) == 0 and frontier.wait_size() == len(levels[1])
    frontier.reset(levels[0])
    for _ in range(len(levels) + 1):  # one level more than it keeps
        frontier.next_level()
    with pytest.raises(Exception, match="overflowed"):
        frontier.check_waiting()
    frontier.reset(numpy.arange(20))
    filter_frontier(frontier, out=frontier)  # 40 vertices kept > 30
    with pytest.raises(Exception, match="overflowed"):
        frontier.check_waiting()


@pytest.mark.parametrize("where", ["device", "host", "persistent"])
def test_loop_walks_kept_levels_back(device, xp, where):
    """A loop on previous_not_empty() visits the kept levels from the deepest down to level 0,
    one an iteration, and stops there."""
    from minigr import Graph
    from minigr.enactor import Loop
    n, levels = 40, [numpy.arange(0, 2), numpy.arange(2, 9), numpy.arange(9, 10), numpy.arange(10, 25)]
    graph = Graph.from_edges([], [], num_vertices=n, device=device)
    frontier = Frontier(n, device, capacity=n, levels=len(levels) + 1)
    order = xp.full(n, -1, numpy.int32)
    stamp = Functor("void operator()(int v, int iteration) const { order[v] = iteration; }", order=order)
    loop = Loop("back", device, lambda: compute(graph, frontier, stamp, iteration=loop.iteration),
                frontier.previous_not_empty())
    frontier.reset(levels[0])
    for ids in levels[1:] + [numpy.arange(0)]:
        filter_frontier(Frontier.from_ids(ids, n, device), out=frontier)
        frontier.next_level()
    frontier.previous_level()  # the deepest level
    loop.run(where, n)
    assert loop.wait_iterations() == (len(levels), False)
    expected = numpy.full(n, -1)
    for number, ids in enumerate(levels):
        expected[ids] = len(levels) - 1 - number
    numpy.testing.assert_array_equal(to_host(order), expected)


def test_frontier_checks_ids(device):
    with pytest.raises(Exception, match=r"frontier ids must be in \[0, 5\)"):
        Frontier.from_ids([7], 5, device)
    with pytest.raises(Exception, match=r"frontier ids must be in \[0, 5\)"):
        Frontier.from_ids(-1, 5, device)
    assert Frontier(10, device).wait_size() == 0
    frontier = Frontier.from_ids([3, 3, 1], 10, device)
    numpy.testing.assert_array_equal(numpy.sort(to_host(frontier.wait_ids())), [1, 3])
