"""Transform benchmarks: each transform against the device's copy bandwidth, for
the bytes it must move, and against the same work composed from CuPy calls."""
import numpy

from ..transforms import (Functor, compact_transform, intersect_transform, lbs_transform, scan_transform,
                          segreduce_transform, transform)
from . import progress
from .timing import copy_bandwidth, gpu_ms


def _segments(cupy, rng, total, skewed):
    """Offsets (int64) of segments holding `total` items: lengths uniform in
    [0, 32), or (skewed) half the items in one segment and many empty ones."""
    if skewed:
        lengths = numpy.zeros(total // 16, numpy.int64)
        lengths[0] = total // 2
        lengths[1:: 64][: total // 2 // 64] = 64
        lengths[-1] += total - lengths.sum()
    else:
        lengths = rng.integers(0, 32, size=total // 15)
        lengths[-1] += max(0, total - lengths.sum())
    offsets = numpy.concatenate([[0], numpy.cumsum(lengths)])
    return cupy.asarray(offsets), int(offsets[-1])


def _rows(rng, n):
    """Rows of sorted distinct values, of power-law lengths (about n items in
    all, the longest n // 64), each made of random gaps (no sort needed) that
    spread it over about [0, n // 4): their offsets (int64), items (int32),
    and each item's key row * span + item (int64, sorted), `span` above every item."""
    lengths = rng.zipf(1.7, size=n // 8).clip(max=n // 64)
    lengths = lengths[:max(1, int(numpy.searchsorted(numpy.cumsum(lengths), n)))]
    offsets = numpy.concatenate([[0], numpy.cumsum(lengths)])
    row_length = numpy.repeat(lengths, lengths)
    gaps = 1 + (rng.random(offsets[-1]) * (n // 2 / row_length)).astype(numpy.int64)
    ends = numpy.cumsum(gaps)
    items = ends - numpy.repeat(ends[offsets[:-1]] - gaps[offsets[:-1]], lengths)  # below n // 2 + n // 64
    span = n
    return offsets, items.astype(numpy.int32), numpy.repeat(numpy.arange(lengths.size) * span, lengths) + items, span


def _intersect_case(cupy, rng, n):
    """(bytes, minigr run, CuPy run, check) of counting the common items of
    n // 32 pairs of rows (see _rows): the first row of a pair uniform, the
    second drawn by length, so that long rows are in many pairs, as a
    power-law graph's hubs are. CuPy: each pair's shorter row looked up in the
    longer one, one searchsorted over all rows' keys."""
    offsets, items, keys, span = _rows(rng, n)
    lengths = numpy.diff(offsets)
    npairs = n // 32  # the CuPy form holds ~40 bytes per item of the shorter rows: ~20 GB at n = 2^27
    first = rng.integers(0, lengths.size, size=npairs)
    second = rng.choice(lengths.size, size=npairs, p=lengths / lengths.sum())
    offsets, items, keys, first, second = (cupy.asarray(a) for a in (offsets, items, keys, first, second))
    out = cupy.empty(npairs, numpy.int64)
    pairs = Functor("void operator()(long long p, long long& a0, long long& a1, long long& b0, long long& b1) const "
                    "{ a0 = off[ra[p]]; a1 = off[ra[p] + 1]; b0 = off[rb[p]]; b1 = off[rb[p] + 1]; }",
                    off=offsets, ra=first, rb=second)

    def cupy_counts():
        first_length, second_length = offsets[first + 1] - offsets[first], offsets[second + 1] - offsets[second]
        first_shorter = first_length <= second_length
        shorter, longer = cupy.where(first_shorter, first, second), cupy.where(first_shorter, second, first)
        short_length = cupy.minimum(first_length, second_length)
        ends = cupy.cumsum(short_length)
        index = cupy.arange(int(ends[-1]))
        pair = cupy.searchsorted(ends, index, side="right")
        rank = index - (ends - short_length)[pair]
        wanted = longer[pair] * span + items[offsets[shorter[pair]] + rank]
        found = keys[cupy.minimum(cupy.searchsorted(keys, wanted), keys.size - 1)] == wanted
        return cupy.bincount(pair[found], minlength=npairs)

    return (4 * items.size + npairs * (16 + 32 + 8), lambda: intersect_transform(npairs, pairs, items, out=out),
            cupy_counts, lambda: bool((intersect_transform(npairs, pairs, items, out=out) == cupy_counts()).all()))


def cases(cupy, n, rng):
    """(name, bytes moved, minigr run, CuPy run, check) for each transform at size n."""
    x = cupy.asarray(rng.standard_normal(n, dtype=numpy.float32))
    y = cupy.empty_like(x)
    scale = Functor("void operator()(long long i) const { y[i] = a * x[i]; }", x=x, y=y, a=numpy.float32(1.5))
    def check_transform():
        y.fill(numpy.nan)
        transform(n, scale)
        return bool(cupy.allclose(y, 1.5 * x))

    yield ("transform", 8 * n, lambda: transform(n, scale), lambda: cupy.multiply(x, numpy.float32(1.5), out=y),
           check_transform)

    counts = cupy.asarray(rng.integers(0, 32, size=n, dtype=numpy.int32))
    count = Functor("long long operator()(long long i) const { return c[i]; }", c=counts)
    yield ("scan", 4 * n + 8 * (n + 1), lambda: scan_transform(n, count),
           lambda: cupy.cumsum(counts, dtype=numpy.int64),
           lambda: bool((scan_transform(n, count)[0][1:] == cupy.cumsum(counts, dtype=numpy.int64)).all()))

    keep = cupy.asarray(rng.random(n) < 0.5)
    kept = int(keep.sum())
    pred = Functor("bool operator()(long long i) const { return keep[i]; }", keep=keep)
    yield ("compact", n + 8 * kept, lambda: compact_transform(n, pred), lambda: cupy.flatnonzero(keep),
           lambda: bool((compact_transform(n, pred)[0] == cupy.flatnonzero(keep)).all()))

    for skewed in (False, True):
        offsets, total = _segments(cupy, rng, n, skewed)
        nseg = len(offsets) - 1
        seg = cupy.empty(total, numpy.int32)
        record = Functor("void operator()(long long i, long long s, long long r) const { seg[i] = (int)s; }",
                         seg=seg)

        def cupy_lbs(offsets=offsets, total=total):
            return cupy.searchsorted(offsets[1:], cupy.arange(total), side="right").astype(numpy.int32)

        def check_lbs(offsets=offsets, total=total, seg=seg, record=record):
            lbs_transform(offsets, record, total)
            return bool((seg == cupy_lbs(offsets, total)).all())

        name = "lbs (skewed)" if skewed else "lbs"
        yield (name, 8 * (nseg + 1) + 4 * total, lambda o=offsets, t=total, r=record: lbs_transform(o, r, t),
               cupy_lbs, check_lbs)

    offsets, total = _segments(cupy, rng, n, False)
    nseg = len(offsets) - 1
    values = cupy.asarray(rng.random(total, dtype=numpy.float32))
    value = Functor("float operator()(long long i, long long s, long long r) const { return v[i]; }", v=values)

    def cupy_segsum():
        sums = cupy.concatenate([cupy.zeros(1, numpy.float64), cupy.cumsum(values, dtype=numpy.float64)])
        return (sums[offsets[1:]] - sums[offsets[:-1]]).astype(numpy.float32)

    yield ("segreduce", 4 * total + 8 * (nseg + 1) + 4 * nseg,
           lambda: segreduce_transform(offsets, value, dtype=numpy.float32, total=total), cupy_segsum,
           lambda: bool(cupy.allclose(segreduce_transform(offsets, value, dtype=numpy.float32), cupy_segsum(),
                                      rtol=1e-4, atol=1e-3)))

    yield ("intersect",) + _intersect_case(cupy, rng, n)


def run(args):
    import cupy
    rng = numpy.random.default_rng(2024)
    copy = copy_bandwidth(1 << 30, args.runs, args.warmup)
    device = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)["name"].decode()
    print(f"{device}: device-to-device copy {copy:.0f} GB/s (read + write)")
    rows = []
    for log2 in range(20, args.max_log2 + 1, 2 if args.max_log2 % 2 == 0 else 1):
        n = 1 << log2
        progress(f"transforms at n = 2^{log2} ...")
        for name, nbytes, ours, theirs, check in cases(cupy, n, rng):
            ms = gpu_ms(ours, args.runs, args.warmup)
            cupy_ms = gpu_ms(theirs, args.runs, args.warmup)
            rows.append({"suite": "transforms", "device": device, "transform": name, "n": n, "bytes": nbytes,
                         "ms": ms, "GBps": nbytes / ms / 1e6, "copy_GBps": copy,
                         "fraction_of_copy": nbytes / ms / 1e6 / copy, "cupy_ms": cupy_ms,
                         "speedup_vs_cupy": cupy_ms / ms, "validated": check()})
        cupy.get_default_memory_pool().free_all_blocks()
    print(f"{'transform':<14}{'n':>12}{'ms':>10}{'GB/s':>8}{'of copy':>9}{'CuPy ms':>10}{'speedup':>9}  valid")
    for r in rows:
        print(f"{r['transform']:<14}{r['n']:>12}{r['ms']:>10.3f}{r['GBps']:>8.0f}{r['fraction_of_copy']:>9.0%}"
              f"{r['cupy_ms']:>10.3f}{r['speedup_vs_cupy']:>8.1f}x  {r['validated']}")
    return rows
