"""Every transform against a NumPy reference, on both backends, on fresh random
inputs of many shapes: empty, one item, small, large, skewed segments, empty and
singleton segments, every value dtype."""
import math
import subprocess
import sys
import threading

import numpy
import pytest

from minigr.transforms import (CompileError, DeviceCount, Functor, MinigrError, Partition, compact_transform,
                               lbs_transform, scan_transform, segment_transform, segreduce_transform, transform)

from conftest import to_host

SEEDS = [1, 2, 3]


def sizes(device):
    """Item counts: edge cases, tile boundaries, and (on the GPU) many tiles."""
    small = [0, 1, 2, 255, 256, 2047, 2048, 2049, 5000, 16383, 16384, 16385]
    return small + ([100_003, 1 << 20, (1 << 22) + 17] if device == "gpu" else [100_003])


def segment_lengths(kind, rng, scale):
    """Segment lengths of a named shape."""
    if kind == "none":
        return numpy.zeros(0, numpy.int64)
    if kind == "random":
        return rng.integers(0, 12, size=scale)
    if kind == "skewed":  # power-law, with one segment holding most items
        lengths = rng.zipf(1.7, size=scale).clip(max=scale)
        lengths[rng.integers(scale)] = 20 * scale
        return lengths
    if kind == "mostly_empty":
        lengths = numpy.zeros(20 * scale, numpy.int64)
        lengths[rng.choice(lengths.size, size=7, replace=False)] = rng.integers(1, 5000, size=7)
        return lengths
    if kind == "all_empty":
        return numpy.zeros(scale, numpy.int64)
    if kind == "singletons":
        return numpy.ones(scale, numpy.int64)
    if kind == "one_segment":
        return numpy.array([5 * scale])
    raise ValueError(kind)


SEGMENT_KINDS = ["none", "random", "skewed", "mostly_empty", "all_empty", "singletons", "one_segment"]


def offsets_of(lengths, dtype=numpy.int64):
    return numpy.concatenate([[0], numpy.cumsum(lengths)]).astype(dtype)


def segment_scale(device):
    return 30_000 if device == "gpu" else 3_000


@pytest.mark.parametrize("seed", SEEDS)
def test_transform(xp, device, seed):
    rng = numpy.random.default_rng(seed)
    for n in sizes(device):
        x = rng.standard_normal(n).astype(numpy.float32)
        y = xp.full(n, numpy.nan, dtype=numpy.float32)
        transform(n, Functor("void operator()(long long i) const { y[i] = a * x[i] + (float)(i % 7); }",
                             x=xp.asarray(x), y=y, a=numpy.float32(3)))
        expected = 3 * x + (numpy.arange(n) % 7).astype(numpy.float32)
        numpy.testing.assert_allclose(to_host(y), expected, rtol=1e-5, atol=1e-6)  # the GPU may fuse a multiply-add


@pytest.mark.parametrize("seed", SEEDS)
def test_transform_sums(xp, device, seed):
    """f's Sums<K> summed over every idx and added to what sums held, also over a DeviceCount."""
    rng = numpy.random.default_rng(seed)
    source = "minigr::Sums<3> operator()(long long i) const { return {x[i], 1.0, x[i] * x[i]}; }"
    for n in sizes(device):
        x = rng.standard_normal(n)
        sums = xp.asarray([1.0, 2.0, 3.0])
        count = DeviceCount(xp.asarray([n], dtype=numpy.int64), n) if n % 2 else n
        transform(count, Functor(source, x=xp.asarray(x)), sums=sums)
        numpy.testing.assert_allclose(to_host(sums), [1 + x.sum(), 2 + n, 3 + (x * x).sum()], rtol=1e-10, atol=1e-9)


SUMMED = "minigr::Sums<2> operator()(long long i) const { return {x[i], fabs(x[i])}; }"


def order_sensitive(rng, n):
    """Values whose float64 sum depends on the order of its additions: magnitudes from 1e-8 to 1e16, both signs."""
    return rng.standard_normal(n) * 10.0 ** rng.integers(-8, 17, n)


def assert_sums_near(got, x, times=1):
    """got = times * [sum of x, sum of |x|], within what any order of float64 additions may lose."""
    slack = times * len(x) * numpy.finfo(numpy.float64).eps * numpy.abs(x).sum()
    expected = [times * math.fsum(x), times * math.fsum(numpy.abs(x))]
    numpy.testing.assert_allclose(got, expected, rtol=0, atol=slack)


def test_transform_sums_are_the_same_bits_every_run(xp, device):
    """Sums whose bits depend on the order of their additions come out the same on
    every run of a grid (one block, and on the GPU every block a transform may
    have: the last block adds their sums in a fixed order), over an int or a
    DeviceCount, into the same sums array each time (its scratch left ready)."""
    rng = numpy.random.default_rng(4)
    for n in (1000, 10**6):
        x = order_sensitive(rng, n)
        f, sums, runs = Functor(SUMMED, x=xp.asarray(x)), xp.zeros(2), set()
        for run in range(6):
            sums.fill(0)
            transform(DeviceCount(xp.asarray([n], dtype=numpy.int64), n) if run % 2 else n, f, sums=sums)
            runs.add(to_host(sums).tobytes())
        assert len(runs) == 1
        assert_sums_near(numpy.frombuffer(runs.pop()), x)


def test_transform_sums_kernel_compiles_for_the_gpu():
    """The GPU twin of a sums transform, its blocks' slots added by the last, compiles with NVRTC."""
    from minigr.transforms import launch
    x = numpy.array([1e16, 1.0, -1e16, 2.0])
    sums = numpy.zeros(2)
    with launch.compile_check("90") as compiled:
        transform(len(x), Functor(SUMMED, x=x), sums=sums)
    assert any("transform_sums<2>(n, f0, sums, partials, arrivals)" in source for source in compiled)
    assert sums.tolist() == [2.0, 2e16]  # the CPU adds in order: 1e16 + 1 is 1e16


def test_transform_sums_are_checked(xp, device):
    f = Functor("minigr::Sums<2> operator()(long long i) const { return {one[0], (double)i}; }", one=xp.ones(1))
    with pytest.raises(MinigrError, match="sums must be a 1-D float64 array"):
        transform(4, f, sums=xp.zeros(2, dtype=numpy.float32))
    with pytest.raises(MinigrError, match="contiguous"):
        transform(4, f, sums=xp.zeros(4)[::2])
    with pytest.raises(CompileError, match=r"returning minigr::Sums<K>, K = len\(sums\)"):
        transform(4, f, sums=xp.zeros(3))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dtype", [numpy.int32, numpy.int64, numpy.uint8])
def test_scan_transform(xp, device, seed, dtype):
    rng = numpy.random.default_rng(seed)
    for n in sizes(device):
        counts = rng.integers(0, 100, size=n).astype(dtype)
        offsets, total = scan_transform(n, Functor("long long operator()(long long i) const { return c[i]; }",
                                                   c=xp.asarray(counts)))
        expected = numpy.concatenate([[0], numpy.cumsum(counts, dtype=numpy.int64)])
        assert offsets.dtype == numpy.int64 and offsets.shape == (n + 1,)
        numpy.testing.assert_array_equal(to_host(offsets), expected)
        assert total == expected[-1] and isinstance(total, int)


def test_scan_totals_do_not_wrap(xp, device):
    """Counts summing far beyond 2^32 give exact 64-bit offsets."""
    n = 5000
    counts = numpy.full(n, (1 << 40) + 3, numpy.int64)
    offsets, total = scan_transform(n, Functor("long long operator()(long long i) const { return c[i]; }",
                                               c=xp.asarray(counts)))
    assert total == n * ((1 << 40) + 3)
    numpy.testing.assert_array_equal(to_host(offsets)[-3:], numpy.arange(n - 2, n + 1) * ((1 << 40) + 3))


def test_scan_negative_counts(xp, device):
    rng = numpy.random.default_rng(7)
    counts = rng.integers(-50, 50, size=10_000)
    offsets, total = scan_transform(counts.size, Functor("long long operator()(long long i) const { return c[i]; }",
                                                         c=xp.asarray(counts)))
    numpy.testing.assert_array_equal(to_host(offsets)[1:], numpy.cumsum(counts))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("density", [0.0, 0.03, 0.5, 1.0])
def test_compact_transform_indices(xp, device, seed, density):
    rng = numpy.random.default_rng(seed)
    for n in sizes(device):
        keep = rng.random(n) < density
        out, count = compact_transform(n, Functor("bool operator()(long long i) const { return keep[i]; }",
                                                  keep=xp.asarray(keep)))
        expected = numpy.flatnonzero(keep)
        assert count == expected.size
        numpy.testing.assert_array_equal(to_host(out), expected)


@pytest.mark.parametrize("seed", SEEDS)
def test_compact_transform_writer(xp, device, seed):
    """A user writer gathers kept values in input order."""
    rng = numpy.random.default_rng(seed)
    for n in sizes(device):
        values = rng.standard_normal(n)
        out = xp.full(n, numpy.nan)
        pred = Functor("bool operator()(long long i) const { return v[i] > t; }", v=xp.asarray(values), t=0.25)
        write = Functor("void operator()(long long dest, long long src) const { out[dest] = v[src] * 2; }",
                        v=xp.asarray(values), out=out)
        none, count = compact_transform(n, pred, write)
        expected = values[values > 0.25] * 2
        assert none is None and count == expected.size
        numpy.testing.assert_array_equal(to_host(out)[:count], expected)
        assert numpy.isnan(to_host(out)[count:]).all()


@pytest.mark.gpu
def test_counts_follow_stream_order():
    """On a side stream, scan and compact count what the stream's earlier work
    left, and return before their last stores land with results that later work
    on the stream sees whole."""
    import cupy
    n = 3_000_017
    with cupy.cuda.Stream(non_blocking=True) as stream:
        for step in (2, 3, 7):
            keep = cupy.zeros(n, dtype=bool)
            keep[::step] = True  # enqueued just before the transforms that read it
            out, count = compact_transform(n, Functor("bool operator()(long long i) const { return keep[i]; }",
                                                      keep=keep))
            offsets, total = scan_transform(n, Functor("long long operator()(long long i) const { return k[i]; }",
                                                       k=keep))
            expected = numpy.arange(0, n, step)
            assert count == total == expected.size
            numpy.testing.assert_array_equal(out.get(stream=stream), expected)
            numpy.testing.assert_array_equal(offsets[expected + 1].get(stream=stream), numpy.arange(1, count + 1))
        stream.synchronize()


@pytest.mark.gpu
def test_back_to_back_calls_reuse_status_words():
    """Calls queued without a wait between them, of sizes that use up, refill
    and outgrow a stream's look-back status words, each count right."""
    import cupy
    rng = numpy.random.default_rng(11)
    results = []
    for n in [1, 8_000_000, 5, 8_400_000, 2_000_000] * 3 + [40_000_000, 3]:
        keep = rng.random(n) < 0.5
        flags = cupy.asarray(keep)
        results.append((keep, compact_transform(n, Functor("bool operator()(long long i) const { return f[i]; }",
                                                           f=flags)),
                        scan_transform(n, Functor("long long operator()(long long i) const { return f[i]; }",
                                                  f=flags))))
    for keep, (out, count), (offsets, total) in results:
        expected = numpy.flatnonzero(keep)
        assert count == total == expected.size
        numpy.testing.assert_array_equal(out.get(), expected)
        numpy.testing.assert_array_equal(offsets[-1:].get(), [expected.size])


@pytest.mark.gpu
@pytest.mark.parametrize("own_streams", [False, True], ids=["shared stream", "own streams"])
def test_threads_count_at_once(own_streams):
    """Threads calling compact and scan at once, on one stream or each on its
    own, each get their own counts."""
    import concurrent.futures

    import cupy

    def work(seed):
        rng = numpy.random.default_rng(seed)
        stream = cupy.cuda.Stream(non_blocking=True) if own_streams else cupy.cuda.Stream.null
        with stream:
            for _ in range(20):
                n = int(rng.integers(1, 3_000_000))
                keep = rng.random(n) < rng.random()
                flags = cupy.asarray(keep)
                out, count = compact_transform(n, Functor("bool operator()(long long i) const { return f[i]; }",
                                                          f=flags))
                _, total = scan_transform(n, Functor("long long operator()(long long i) const { return f[i]; }",
                                                     f=flags))
                assert count == total == numpy.count_nonzero(keep)
                numpy.testing.assert_array_equal(out.get(stream=stream), numpy.flatnonzero(keep))

    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        for done in [pool.submit(work, seed) for seed in range(4)]:
            done.result()


@pytest.mark.gpu
def test_faulting_functor_raises_instead_of_hanging():
    """A predicate that faults before the count is written surfaces the CUDA
    error from compact_transform (in its own process: the fault ruins the context)."""
    script = ("import minigr.transforms as t\n"
              "t.compact_transform(1 << 20, t.Functor('bool operator()(long long i) const "
              "{ return ((const volatile bool*)8)[i]; }'))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert done.returncode != 0 and "cudaErrorIllegalAddress" in done.stderr, done.stderr


LBS_RECORD = """
void operator()(long long i, long long s, long long r) const {
    seg[i] = s;
    rank[i] = r;
    atomicAdd(&calls[i], 1);
}"""


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("kind", SEGMENT_KINDS)
@pytest.mark.parametrize("offset_dtype", [numpy.int32, numpy.int64])
@pytest.mark.parametrize("reuse", [False, True], ids=["", "partition"])
def test_lbs_transform(xp, device, seed, kind, offset_dtype, reuse):
    rng = numpy.random.default_rng(seed)
    lengths = segment_lengths(kind, rng, segment_scale(device))
    offsets = offsets_of(lengths, offset_dtype)
    total = int(offsets[-1])
    seg, rank = xp.full(total, -1, numpy.int64), xp.full(total, -1, numpy.int64)
    calls = xp.zeros(total, numpy.int32)
    device_offsets = xp.asarray(offsets)
    partition = Partition(device_offsets) if reuse else None
    lbs_transform(device_offsets, Functor(LBS_RECORD, seg=seg, rank=rank, calls=calls), partition=partition)
    expected_seg = numpy.repeat(numpy.arange(lengths.size), lengths)
    numpy.testing.assert_array_equal(to_host(seg), expected_seg)
    numpy.testing.assert_array_equal(to_host(rank), numpy.arange(total) - offsets[expected_seg])
    assert (to_host(calls) == 1).all()  # each item exactly once


def test_lbs_explicit_total_and_bad_offsets(xp, device):
    offsets = xp.asarray(numpy.array([0, 3, 3, 5]))
    seen = xp.zeros(5, numpy.int32)
    lbs_transform(offsets, Functor("void operator()(long long i, long long s, long long r) const "
                                   "{ seen[i] = 1; }", seen=seen), total=5)
    assert to_host(seen).tolist() == [1] * 5
    with pytest.raises(MinigrError, match="offsets must be a 1-D int32 or int64"):
        lbs_transform(xp.asarray(numpy.array([0.0, 1.0])), Functor("void operator()(long long, long long, "
                                                                  "long long) const {}"))


VALUE_OF_ITEM = "T operator()(long long i, long long s, long long r) const { return v[i]; }"


def reference_segreduce(values, lengths, op, identity, dtype):
    segs = numpy.repeat(numpy.arange(lengths.size), lengths)
    out = numpy.full(lengths.size, identity, dtype=dtype)
    {"sum": numpy.add, "min": numpy.minimum, "max": numpy.maximum}[op].at(out, segs, values.astype(dtype))
    return out


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("kind", SEGMENT_KINDS)
@pytest.mark.parametrize("dtype", [numpy.int32, numpy.int64, numpy.float32, numpy.float64])
@pytest.mark.parametrize("op", ["sum", "min", "max"])
def test_segreduce_transform_builtin(xp, device, seed, kind, dtype, op):
    rng = numpy.random.default_rng(seed)
    lengths = segment_lengths(kind, rng, segment_scale(device))
    offsets = offsets_of(lengths)
    total = int(offsets[-1])
    values = (rng.integers(-1000, 1000, size=total) if numpy.dtype(dtype).kind == "i"
              else rng.standard_normal(total)).astype(dtype)
    ctype = {numpy.int32: "int32_t", numpy.int64: "int64_t", numpy.float32: "float", numpy.float64: "double"}[dtype]
    f = Functor(VALUE_OF_ITEM.replace("T ", ctype + " "), v=xp.asarray(values))
    out = segreduce_transform(xp.asarray(offsets), f, op=op, dtype=dtype)
    info = numpy.finfo(dtype) if numpy.dtype(dtype).kind == "f" else numpy.iinfo(dtype)
    identity = {"sum": 0, "min": info.max, "max": info.min}[op]
    if numpy.dtype(dtype).kind == "f" and op != "sum":
        identity = {"min": numpy.inf, "max": -numpy.inf}[op]
    expected = reference_segreduce(values, lengths, op, identity, dtype)
    assert to_host(out).dtype == dtype
    if numpy.dtype(dtype).kind == "f" and op == "sum":
        tolerance = 1e-4 if dtype == numpy.float32 else 1e-10
        scale = numpy.bincount(numpy.repeat(numpy.arange(lengths.size), lengths), numpy.abs(values),
                               minlength=lengths.size)
        assert (numpy.abs(to_host(out) - expected) <= tolerance * (scale + 1)).all()
    else:
        numpy.testing.assert_array_equal(to_host(out), expected)


@pytest.mark.parametrize("kind", ["random", "skewed", "one_segment", "all_empty"])
def test_segreduce_user_op(xp, device, kind):
    """A user op (bitwise or of per-item bits) with its identity."""
    rng = numpy.random.default_rng(11)
    lengths = segment_lengths(kind, rng, segment_scale(device))
    offsets = offsets_of(lengths)
    total = int(offsets[-1])
    bits = (numpy.uint32(1) << rng.integers(0, 32, size=total).astype(numpy.uint32)).astype(numpy.uint32)
    f = Functor("uint32_t operator()(long long i, long long s, long long r) const { return b[i]; }",
                b=xp.asarray(bits))
    out = segreduce_transform(xp.asarray(offsets), f, op="a | b", identity=0, dtype=numpy.uint32)
    expected = numpy.zeros(lengths.size, numpy.uint32)
    numpy.bitwise_or.at(expected, numpy.repeat(numpy.arange(lengths.size), lengths), bits)
    numpy.testing.assert_array_equal(to_host(out), expected)


@pytest.mark.parametrize("kind", SEGMENT_KINDS)
def test_segreduce_writes_every_segment(xp, device, kind):
    """The output is not pre-filled (only segments spanning blocks are): NaN
    in the output beforehand (as in memory the allocator hands back) must not survive."""
    rng = numpy.random.default_rng(9)
    lengths = segment_lengths(kind, rng, segment_scale(device))
    offsets = offsets_of(lengths)
    values = rng.standard_normal(int(offsets[-1]))
    f = Functor(VALUE_OF_ITEM.replace("T ", "double "), v=xp.asarray(values))
    poison = xp.full(lengths.size, numpy.nan)  # what a reused allocation may hold
    out = segreduce_transform(xp.asarray(offsets), f, op="max", out=poison)
    assert out is poison
    numpy.testing.assert_array_equal(to_host(out), reference_segreduce(values, lengths, "max", -numpy.inf,
                                                                       numpy.float64))


@pytest.mark.parametrize("kind", SEGMENT_KINDS)
@pytest.mark.parametrize("op", ["sum", "min", "max"])
def test_segreduce_reuses_partition(xp, device, kind, op):
    """One partition, two reductions over new values: the segments that span
    blocks start from the identity each time, the others are written."""
    rng = numpy.random.default_rng(13)
    lengths = segment_lengths(kind, rng, segment_scale(device))
    offsets = xp.asarray(offsets_of(lengths))
    partition = Partition(offsets)
    identity = {"sum": 0.0, "min": numpy.inf, "max": -numpy.inf}[op]
    for _ in range(2):
        values = rng.standard_normal(partition.total)
        f = Functor(VALUE_OF_ITEM.replace("T ", "double "), v=xp.asarray(values))
        poison = xp.full(lengths.size, numpy.nan)  # what a reused allocation may hold
        out = segreduce_transform(offsets, f, op=op, partition=partition, out=poison)
        numpy.testing.assert_allclose(to_host(out), reference_segreduce(values, lengths, op, identity, numpy.float64),
                                      rtol=1e-12, atol=1e-9)


def test_partition_of_other_segments_is_refused(xp, device):
    offsets = xp.asarray(numpy.array([0, 3, 3, 5]))
    f = Functor(VALUE_OF_ITEM.replace("T ", "double "), v=xp.zeros(5))
    with pytest.raises(MinigrError, match="partition= was made for other offsets"):
        segreduce_transform(offsets, f, partition=Partition(offsets.copy()))
    with pytest.raises(MinigrError, match="partition= was made for other offsets or another total"):
        lbs_transform(offsets, Functor("void operator()(long long, long long, long long) const {}"), total=4,
                      partition=Partition(offsets))


def test_segreduce_uses_seg_and_rank(xp, device):
    """Values computed from seg and rank: per segment, sum of rank * seg."""
    rng = numpy.random.default_rng(5)
    lengths = segment_lengths("skewed", rng, segment_scale(device))
    offsets = offsets_of(lengths)
    f = Functor("long long operator()(long long i, long long s, long long r) const { return r * s; }")
    out = segreduce_transform(xp.asarray(offsets), f, dtype=numpy.int64)
    expected = numpy.arange(lengths.size) * (lengths * (lengths - 1) // 2)
    numpy.testing.assert_array_equal(to_host(out), expected)


def test_segreduce_bad_arguments(xp, device):
    offsets = xp.asarray(numpy.array([0, 2]))
    f = Functor(VALUE_OF_ITEM.replace("T ", "double "), v=xp.zeros(2))
    with pytest.raises(MinigrError, match="identity"):
        segreduce_transform(offsets, f, op="a * b")
    with pytest.raises(MinigrError, match="4- or 8-byte"):
        segreduce_transform(offsets, f, dtype=numpy.int16)


def test_negative_count_is_refused(device):
    with pytest.raises(MinigrError, match="non-negative integer"):
        transform(-1, Functor("void operator()(long long i) const {}"))


def test_nested_functor(xp, device):
    """A functor captured by another becomes a member the outer one can call."""
    inner = Functor("__device__ double scaled(double v) const { return v * k + bias[0]; }",
                    k=3.0, bias=xp.asarray(numpy.array([0.5])))
    x = xp.asarray(numpy.arange(1000, dtype=numpy.float64))
    y = xp.zeros(1000)
    transform(1000, Functor("void operator()(long long i) const { y[i] = op.scaled(x[i]); }", op=inner, x=x, y=y))
    numpy.testing.assert_array_equal(to_host(y), numpy.arange(1000) * 3.0 + 0.5)


SEGMENT_BOUNDS = """void operator()(long long s, long long& begin, long long& end) const {
    begin = starts[s];
    end = starts[s] + lengths[s];
}"""


@pytest.mark.parametrize("kind", SEGMENT_KINDS + ["over_the_huge_list"])
@pytest.mark.parametrize("group", [1, 8, 32])
@pytest.mark.parametrize("on_device", [False, True], ids=["", "device_count"])
def test_segment_transform(xp, device, kind, group, on_device):
    """Every item of every segment exactly once with its segment and rank, whether
    a group, a warp, a block or (huge segments) the whole grid walks it; segments
    given in shuffled order, so their items are not laid out in segment order."""
    rng = numpy.random.default_rng(17)
    if kind == "over_the_huge_list":  # more huge segments than the grid's list holds: the rest stay with blocks
        lengths = numpy.full(1100 if device == "gpu" else 12, 4097)
        lengths[::7] = rng.integers(0, 300, size=len(lengths[::7]))
    else:
        lengths = segment_lengths(kind, rng, segment_scale(device))
    order = rng.permutation(len(lengths))
    starts = numpy.concatenate([[0], numpy.cumsum(lengths[order])])[numpy.argsort(order)]
    total = int(lengths.sum())
    seg, rank = xp.full(total, -1, numpy.int64), xp.full(total, -1, numpy.int64)
    calls = xp.zeros(total, numpy.int32)
    n = len(lengths)
    count = DeviceCount(xp.asarray(numpy.array([n], numpy.int64)), 2 * n + 5) if on_device else n
    segment_transform(count, Functor(SEGMENT_BOUNDS, starts=xp.asarray(starts), lengths=xp.asarray(lengths)),
                      Functor(LBS_RECORD, seg=seg, rank=rank, calls=calls), group)
    expected_seg = numpy.repeat(numpy.arange(n), lengths)
    expected_rank = numpy.concatenate([numpy.arange(k) for k in lengths] + [numpy.zeros(0, int)])
    at = numpy.concatenate([numpy.arange(starts[s], starts[s] + lengths[s]) for s in range(n)] + [numpy.zeros(0, int)])
    numpy.testing.assert_array_equal(to_host(calls), numpy.ones(total, numpy.int32))
    numpy.testing.assert_array_equal(to_host(seg)[at], expected_seg)
    numpy.testing.assert_array_equal(to_host(rank)[at], expected_rank)


@pytest.mark.gpu
def test_threads_and_loops_have_their_own_lists_of_huge_segments():
    """segment_transform's second kernel walks, and empties, the list of huge segments (4096+
    items) its first filled: two threads' calls, which interleave on the GPU's one default
    stream, and a loop captured into a CUDA graph each use a list of their own (one for the
    process let a thread walk another's hubs with its own functor, and empty the list)."""
    from minigr.transforms.api import huge_list
    from minigr.transforms.launch import huge_lists_of
    from minigr.transforms.loop import Loop
    found, both = {}, threading.Barrier(2)

    def note(name):
        found[name] = huge_list("gpu")[1].data.ptr

    def note_in_thread(name):  # each thread's list lives while the other notes its own
        note(name)
        both.wait()

    note("main")
    loop_lists = {}
    with huge_lists_of(loop_lists):
        note("loop")
    threads = [threading.Thread(target=note_in_thread, args=(name,)) for name in ("first", "second")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(set(found.values())) == 4 and huge_list("gpu")[1].data.ptr == found["main"]
    import cupy
    lengths = cupy.asarray([5000, 30], dtype=numpy.int64)
    calls = cupy.zeros(5030, numpy.int32)
    bounds = Functor(SEGMENT_BOUNDS, starts=cupy.asarray([0, 5000]), lengths=lengths)
    visit = Functor("void operator()(long long item, long long s, long long r) const { atomicAdd(&calls[item], 1); }",
                    calls=calls)
    loop = Loop("walks", "gpu", lambda: segment_transform(2, bounds, visit),
                Functor("bool operator()() const { return false; }"))
    loop.run("device", 10)
    assert loop.wait_iterations() == (1, False) and bool((calls == 1).all())
    (captured,) = loop._graph.huge_lists.values()  # the CUDA graph's own
    assert captured[1].data.ptr not in (found["main"], found["loop"])


def test_segment_transform_checks_the_group(xp, device):
    f = Functor("void operator()(long long i, long long s, long long r) const {}")
    with pytest.raises(MinigrError, match="group must be a power of two"):
        segment_transform(1, Functor(SEGMENT_BOUNDS, starts=xp.zeros(1, numpy.int64), lengths=xp.zeros(1, numpy.int64)),
                          f, 3)


def test_read_waiting_and_copied_give_independent_copies(xp):
    """read_waiting: host copies of several small arrays of any dtype, in one wait; copied: a
    copy on the device. Later writes to the originals change neither."""
    from minigr.transforms import copied, read_waiting
    arrays = [xp.arange(n, dtype=dtype) * 3 for n, dtype in ((1, numpy.int32), (3, numpy.uint64), (5, numpy.float64),
                                                             (0, numpy.int64), (7, numpy.int8))]
    read = read_waiting(*arrays)
    copies = [copied(a) for a in arrays] + [copied(arrays[2][::2])]  # a strided view too
    for a in arrays:
        a += 1
    for a, r, c in zip(arrays, read, copies):
        assert isinstance(r, numpy.ndarray) and r.dtype == a.dtype and r.shape == a.shape
        numpy.testing.assert_array_equal(r, numpy.arange(len(a), dtype=a.dtype) * 3)
        numpy.testing.assert_array_equal(to_host(c), r)
    numpy.testing.assert_array_equal(to_host(copies[-1]), [0.0, 6.0, 12.0])
    assert read_waiting() == []
