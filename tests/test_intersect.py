"""intersect_transform against a NumPy reference, on both backends: random and
skewed pair sets (one huge range against many, mostly empty ones), identical,
disjoint and overlapping ranges, long runs of duplicates, long ranges of
similar lengths, n = 0 and a count left on the device."""
import numpy
import pytest

from minigr.transforms import DeviceCount, Functor, MinigrError, intersect_transform

from conftest import to_host

PAIRS = """
void operator()(long long p, long long& a0, long long& a1, long long& b0, long long& b1) const {
    a0 = ab[p]; a1 = ae[p]; b0 = bb[p]; b1 = be[p];
}"""

# Each call takes a slot, so a call made twice or never shows in the triples.
RECORD = """
void operator()(long long p, long long ia, long long ib) const {
    const long long slot = atomicAdd(&used[0], 1LL);
    if (slot < capacity) { mp[slot] = p; ma[slot] = ia; mb[slot] = ib; }
}"""

KINDS = ["random", "skewed", "mostly_empty", "identical", "disjoint", "duplicates", "long", "subranges"]


def scale_of(device):
    return 30_000 if device == "gpu" else 3_000


def sorted_segments(rng, lengths, values):
    """Segments of these lengths, each sorted, of values drawn from [0, values); and their offsets."""
    lengths = numpy.asarray(lengths, numpy.int64)
    offsets = numpy.concatenate([[0], numpy.cumsum(lengths)])
    items = rng.integers(0, values, size=offsets[-1])
    segment = numpy.repeat(numpy.arange(lengths.size), lengths)
    return items[numpy.lexsort((items, segment))], offsets


def segment_pairs(offsets, first, second):
    """(a_begin, a_end, b_begin, b_end) of segment pairs (first[p], second[p])."""
    first, second = numpy.asarray(first, numpy.int64), numpy.asarray(second, numpy.int64)
    return offsets[first], offsets[first + 1], offsets[second], offsets[second + 1]


def pair_set(kind, rng, scale):
    """(items, (a_begin, a_end, b_begin, b_end)) of a named shape."""
    if kind == "random":
        items, offsets = sorted_segments(rng, rng.integers(0, 40, size=scale), 64)
        picks = rng.integers(0, scale, size=(2, 20 * scale))  # on the GPU, more pairs than its blocks hold at once
    elif kind == "skewed":  # power-law lengths, one range holding most items: each against it, both ways round
        lengths = rng.zipf(1.7, size=scale).clip(max=scale)
        lengths[0] = 20 * scale
        items, offsets = sorted_segments(rng, lengths, 40 * scale)
        others = numpy.arange(scale)
        picks = numpy.concatenate([rng.integers(0, scale, size=(2, scale)),
                                   [others, numpy.zeros(scale, int)], [numpy.zeros(scale, int), others]], axis=1)
    elif kind == "mostly_empty":
        lengths = numpy.zeros(20 * scale, numpy.int64)
        full = rng.choice(lengths.size, size=7, replace=False)
        lengths[full] = rng.integers(1, 5000, size=7)
        items, offsets = sorted_segments(rng, lengths, 2000)
        picks = numpy.concatenate([rng.integers(0, lengths.size, size=(2, 4 * scale)),
                                   numpy.array(numpy.meshgrid(full, full)).reshape(2, -1)], axis=1)
    elif kind == "identical":
        lengths = rng.integers(0, 300, size=scale // 10)
        lengths[0] = 10 * scale
        items, offsets = sorted_segments(rng, lengths, 20 * scale)
        picks = numpy.array([numpy.arange(lengths.size)] * 2)
    elif kind == "disjoint":  # even values against odd ones
        items, offsets = sorted_segments(rng, rng.integers(0, 300, size=scale // 5), 10 * scale)
        segment = numpy.repeat(numpy.arange(offsets.size - 1), numpy.diff(offsets))
        items = 2 * items + segment % 2
        picks = numpy.array([numpy.arange(0, offsets.size - 2, 2), numpy.arange(1, offsets.size - 1, 2)])
    elif kind == "duplicates":  # long runs of equal items, in ranges long and short
        items, offsets = sorted_segments(rng, rng.integers(0, 600, size=scale // 10), 5)
        picks = rng.integers(0, scale // 10, size=(2, scale))
    elif kind == "long":  # long ranges of similar lengths, with many items in common
        items, offsets = sorted_segments(rng, rng.integers(scale // 2, 2 * scale, size=20), 3 * scale)
        picks = numpy.array(numpy.meshgrid(numpy.arange(20), numpy.arange(20))).reshape(2, -1)
    elif kind == "subranges":  # overlapping ranges of one sorted array, often the same positions
        items = numpy.sort(rng.integers(0, 5 * scale, size=10 * scale))
        starts = rng.integers(0, items.size, size=(2, 2 * scale))
        ends = numpy.minimum(starts + rng.zipf(1.5, size=starts.shape).clip(max=items.size), items.size)
        return items, (starts[0], ends[0], starts[1], ends[1])
    else:
        raise ValueError(kind)
    return items, segment_pairs(offsets, *picks)


def expand(begin, end):
    """Every item of ranges [begin, end): its range, and its position."""
    lengths = end - begin
    index = numpy.arange(lengths.sum())
    return numpy.repeat(numpy.arange(lengths.size), lengths), numpy.repeat(begin - (numpy.cumsum(lengths) - lengths),
                                                                            lengths) + index


def reference(items, ranges):
    """Counts per pair and the sorted (pair, ia, ib) triples: the k-th
    occurrence of a value in range a is common with its k-th occurrence in
    range b. Each distinct range is listed once as keys (range, value,
    occurrence) with their positions; each pair looks up the keys of its
    shorter range in its other range, so a range shared by many pairs costs once."""
    a_begin, a_end, b_begin, b_end = ranges
    n = a_begin.size
    distinct, range_id = numpy.unique(numpy.stack([numpy.concatenate([a_begin, b_begin]),
                                                   numpy.concatenate([a_end, b_end])], axis=1),
                                      axis=0, return_inverse=True)
    range_id = range_id.reshape(-1)
    owner, position = expand(distinct[:, 0], distinct[:, 1])
    values, value_rank = numpy.unique(items[position], return_inverse=True)
    index = numpy.arange(position.size)
    run_start = numpy.ones(position.size, bool)
    run_start[1:] = (owner[1:] != owner[:-1]) | (value_rank[1:] != value_rank[:-1])
    occurrence = index - numpy.maximum.accumulate(numpy.where(run_start, index, 0))
    span = int(occurrence.max(initial=0)) + 1
    assert len(distinct) * len(values) * span < 2 ** 62

    def key(range_of, entry):
        return (range_of * len(values) + value_rank[entry]) * span + occurrence[entry]

    table = key(owner, index)  # sorted: ranges in order, each by value, then occurrence
    a_id, b_id = range_id[:n], range_id[n:]
    a_shorter = a_end - a_begin <= b_end - b_begin
    short_id, long_id = numpy.where(a_shorter, a_id, b_id), numpy.where(a_shorter, b_id, a_id)
    starts = numpy.searchsorted(owner, numpy.arange(len(distinct)))
    pair, offset = expand(starts[short_id], starts[short_id] + (distinct[short_id, 1] - distinct[short_id, 0]))
    wanted = key(long_id[pair], offset)
    found = numpy.minimum(numpy.searchsorted(table, wanted), max(table.size - 1, 0))
    common = table[found] == wanted if table.size else numpy.zeros(0, bool)
    pair, short_position, long_position = pair[common], position[offset[common]], position[found[common]]
    first = a_shorter[pair]
    triples = numpy.stack([pair, numpy.where(first, short_position, long_position),
                           numpy.where(first, long_position, short_position)], axis=1)
    return numpy.bincount(pair, minlength=n), triples[numpy.lexsort(triples.T[::-1])]


def pairs_functor(xp, ranges):
    a_begin, a_end, b_begin, b_end = (xp.asarray(r.astype(numpy.int64)) for r in ranges)
    return Functor(PAIRS, filename="pairs.cu", ab=a_begin, ae=a_end, bb=b_begin, be=b_end)


def recorder(xp, capacity):
    """A functor recording its calls, and a function returning them as sorted (pair, ia, ib) rows."""
    used = xp.zeros(1, numpy.int64)
    mp, ma, mb = (xp.full(capacity, -1, numpy.int64) for _ in range(3))
    f = Functor(RECORD, filename="record.cu", used=used, capacity=capacity, mp=mp, ma=ma, mb=mb)

    def calls():
        count = int(to_host(used)[0])
        assert count <= capacity, f"f called {count} times, expected at most {capacity}"
        rows = numpy.stack([to_host(a)[:count] for a in (mp, ma, mb)], axis=1)
        return rows[numpy.lexsort(rows.T[::-1])]

    return f, calls


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("dtype", [numpy.int32, numpy.int64])
def test_intersect_matches_reference(xp, device, kind, dtype):
    rng = numpy.random.default_rng(KINDS.index(kind))
    items, ranges = pair_set(kind, rng, scale_of(device))
    if dtype == numpy.int64:
        items = items + (1 << 40)  # values beyond 32 bits
    expected_counts, expected_triples = reference(items, ranges)
    n = ranges[0].size
    f, calls = recorder(xp, expected_triples.shape[0] + 1)
    out = xp.full(n, 7, numpy.int64)  # written, not added to
    result = intersect_transform(n, pairs_functor(xp, ranges), xp.asarray(items.astype(dtype)), f=f, out=out)
    assert result is out
    numpy.testing.assert_array_equal(to_host(out), expected_counts)
    numpy.testing.assert_array_equal(calls(), expected_triples)  # each common item once, at its positions


def test_identical_ranges_match_themselves(xp, device):
    """A range against itself: every item is common, at the same position."""
    rng = numpy.random.default_rng(5)
    items, ranges = pair_set("identical", rng, scale_of(device))
    f, calls = recorder(xp, items.size)
    intersect_transform(ranges[0].size, pairs_functor(xp, ranges), xp.asarray(items), f=f)
    triples = calls()
    assert triples.shape[0] == items.size
    numpy.testing.assert_array_equal(triples[:, 1], triples[:, 2])
    numpy.testing.assert_array_equal(numpy.sort(triples[:, 1]), numpy.arange(items.size))


@pytest.mark.parametrize("with_f", [False, True], ids=["out only", "f only"])
def test_intersect_with_out_or_f_alone(xp, device, with_f):
    rng = numpy.random.default_rng(6)
    items, ranges = pair_set("skewed", rng, scale_of(device))
    expected_counts, expected_triples = reference(items, ranges)
    n = ranges[0].size
    if with_f:
        f, calls = recorder(xp, expected_triples.shape[0])
        assert intersect_transform(n, pairs_functor(xp, ranges), xp.asarray(items), f=f) is None
        numpy.testing.assert_array_equal(calls(), expected_triples)
    else:
        out = intersect_transform(n, pairs_functor(xp, ranges), xp.asarray(items), out=xp.empty(n, numpy.int64))
        numpy.testing.assert_array_equal(to_host(out), expected_counts)


def test_no_pairs(xp, device):
    items = xp.asarray(numpy.arange(10))
    ranges = tuple(numpy.zeros(0, numpy.int64) for _ in range(4))
    f, calls = recorder(xp, 1)
    out = xp.zeros(0, numpy.int64)
    assert intersect_transform(0, pairs_functor(xp, ranges), items, f=f, out=out) is out
    assert intersect_transform(0, pairs_functor(xp, ranges), items) is None
    assert calls().shape[0] == 0


def test_count_left_on_the_device(xp, device):
    """n a DeviceCount: the pairs below the count are intersected, the rest
    (up to the bound) are not touched."""
    rng = numpy.random.default_rng(7)
    items, ranges = pair_set("random", rng, scale_of(device))
    bound = ranges[0].size
    count = bound * 2 // 3
    expected_counts, expected_triples = reference(items, tuple(r[:count] for r in ranges))
    f, calls = recorder(xp, expected_triples.shape[0] + 1)
    out = xp.full(bound, -1, numpy.int64)
    n = DeviceCount(xp.asarray(numpy.array([5, count])), bound, index=1)
    intersect_transform(n, pairs_functor(xp, ranges), xp.asarray(items.astype(numpy.int32)), f=f, out=out)
    numpy.testing.assert_array_equal(to_host(out)[:count], expected_counts)
    assert (to_host(out)[count:] == -1).all()
    numpy.testing.assert_array_equal(calls(), expected_triples)


def test_intersect_bad_arguments(xp, device):
    pairs = pairs_functor(xp, tuple(numpy.zeros(3, numpy.int64) for _ in range(4)))
    items = xp.asarray(numpy.arange(4, dtype=numpy.int32))
    for bad in (items.astype(numpy.float32), items.reshape(2, 2), [0, 1, 2]):
        with pytest.raises(MinigrError, match="items must be a 1-D int32 or int64 array"):
            intersect_transform(3, pairs, bad)
    with pytest.raises(MinigrError, match="items must be contiguous"):
        intersect_transform(3, pairs, items[::2])
    for out in (xp.zeros(4, numpy.int64), xp.zeros(3, numpy.int32)):
        with pytest.raises(MinigrError, match=r"out must be a 1-D int64 array of one count per pair \(3\)"):
            intersect_transform(3, pairs, items, out=out)
    n = DeviceCount(xp.asarray(numpy.array([2])), 3)
    with pytest.raises(MinigrError, match=r"at least the bound of n, 3"):
        intersect_transform(n, pairs, items, out=xp.zeros(2, numpy.int64))
    intersect_transform(n, pairs, items, out=xp.zeros(4, numpy.int64))  # longer than the bound is fine
    with pytest.raises(MinigrError, match="non-negative integer"):
        intersect_transform(-1, pairs, items)


def test_bench_case_agrees_with_its_cupy_form(xp, device):
    """`minigr bench transforms`' intersect row: minigr's counts and those of
    the array-library form it is timed against (NumPy standing in for CuPy on the CPU)."""
    from minigr.bench.transforms import _intersect_case
    nbytes, ours, theirs, check = _intersect_case(xp, numpy.random.default_rng(1), 1 << 20)
    assert check()
    assert int(to_host(theirs()).sum()) > 10_000  # the pairs have items in common to find
