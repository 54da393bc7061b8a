"""The transforms. Each sizes its launch, allocates what it returns on the
device of its inputs (unless given an `out`), and runs the generated kernel
for that device. transform, segment_transform and intersect_transform also
take a DeviceCount, a count that earlier kernels left on the device: they then
launch a fixed grid sized from its bound, and nobody waits to read it."""
import functools
import threading
import weakref

import numpy

from .backend import array_module, device_of, read_waiting
from .errors import MinigrError
from .functor import Functor, c_type
from .launch import call_device, current_gpu, launch, multiprocessors, recording_block
from .lookback import await_cell, host_cell, status_words
from .persistent import BLOCKS_PER_SM

BLOCK = 256
SCAN_ITEMS = 8        # items per thread in a scan tile
COMPACT_ITEMS = 64    # flags per thread in a compact tile (ballots make them cheap), loaded 32 at a time
COMPACT_BLOCKS_PER_SM = 5  # 48 registers: 6 blocks (40) or 4 (64) made a slower kernel
STATUS_STRIDE = 16    # look-back status words per tile: each word on its own 128-byte line
SEARCH_ITEMS = 8      # merge-path steps per thread in lbs and segreduce (for 4-byte values)
SEARCH_TILE = BLOCK * SEARCH_ITEMS
RESIDENT_BLOCKS_PER_SM = 8  # grid-stride launches over a DeviceCount: at most this many blocks per SM
HUGE = 4096                 # segments of at least this many items are walked by the whole grid (segments.cuh)
HUGE_LIST = 1024            # huge segments one segment_transform hands to the grid
INTERSECT_CHUNK = 32        # merge-path steps per work item of intersect_transform (see intersect.cuh)


class DeviceCount:
    """A count that lives on the device, array[index] of an int64 array (CuPy,
    or NumPy for the CPU backend), so that kernels can read it and nobody
    waits for it; `bound` (a host int) caps it and sizes the launches.
    stable: only one-thread kernels change it (a loop's step, a frontier's
    next_level, work before the loop), so a persistent loop reads it without
    waiting for the body's earlier transforms, and skips the barrier before a
    transform it leaves with nothing to do."""

    def __init__(self, array, bound, index=0, stable=False):
        if array.dtype != numpy.int64:
            raise MinigrError(f"a DeviceCount lives in an int64 array, got {array.dtype}")
        self.cell = array[index:index + 1]
        self.bound = _count(bound, "bound")
        self.stable = stable

    def wait_value(self):
        """The count, read on the host: waits for the work queued before it."""
        return int(read_waiting(self.cell)[0][0])


def _count(n, what="n"):
    if isinstance(n, bool) or not isinstance(n, (int, numpy.integer)) or n < 0:
        raise MinigrError(f"{what} must be a non-negative integer, got {n!r}")
    return int(n)


def _size(device, n):
    """(fixed parameter, argument, bound) of a count given as an int or a DeviceCount."""
    if isinstance(n, DeviceCount):
        if device_of(n.cell) != device:
            raise MinigrError("a DeviceCount on another device than the transform's functors")
        return ("const long long*", "n"), n.cell, n.bound
    n = _count(n)
    return ("long long", "n"), numpy.int64(n), n


def _grid(device, bound):
    """Blocks of a grid-stride launch over at most `bound` items."""
    if device == "cpu":
        return 1
    return max(1, min(-(-bound // BLOCK), multiprocessors(current_gpu()) * RESIDENT_BLOCKS_PER_SM))


def _single_pass(device, xp, n, items, entry, arguments, params, args, functors, min_blocks=None):
    """Runs minigr::<entry>(<arguments>) (scan or compact; on the GPU with the
    tile as template arguments) over n > 0 items in tiles of BLOCK * items, and
    returns the count it leaves in `result` (scan's total, compact's kept).
    The arguments also name `workspace`, the tiles' zeroed look-back status
    words (see scan.cuh), which the CPU kernels do not use. min_blocks: blocks
    per SM the GPU kernel must fit (its register budget), or None for the compiler's choice."""
    tiles = -(-n // (BLOCK * items))
    cell, result = host_cell(device)
    calls = {"gpu": f"minigr::{entry}<{BLOCK}, {items}, {STATUS_STRIDE}>({arguments})",
             "cpu": f"minigr::{entry}({arguments})"}

    def run(workspace):
        launch(device, params + [("long long*", "result"), ("unsigned long long*", "workspace")],
               args + [cell, workspace], functors, calls, tiles, BLOCK, min_blocks)

    if device == "cpu":
        run(numpy.zeros(1, dtype=numpy.uint64))
        return int(result[0])
    stream = xp.cuda.get_current_stream()
    words = status_words(stream, current_gpu())
    with words.lock:
        run(words.take(tiles * STATUS_STRIDE))
    await_cell(result, stream)
    return int(result[0])


def transform(n, f, sums=None):
    """Calls f(idx) for every idx in [0, n); n an int or a DeviceCount.
    sums: a float64 array of K values; f then returns minigr::Sums<K>, and
    the sum of its returns over every idx is added to sums (a pass that also
    sums, such as an iteration's change): on the GPU the same bits on every
    run of the same grid, whatever order its blocks end in (see
    transform.cuh). Launches that add into one sums array share its scratch:
    queue them in order (one stream), not at the same time."""
    device = call_device([f])
    param, arg, bound = _size(device, n)
    if bound == 0:
        return
    params, args, call = [param], [arg], "minigr::transform(n, f0)"
    if sums is not None:
        sums = _checked_sums(device, sums)
        params += [("double*", "sums"), ("double*", "partials"), ("unsigned*", "arrivals")]
        args += [sums, *_sums_scratch(device, sums)]
        call = f"minigr::transform_sums<{len(sums)}>(n, f0, sums, partials, arrivals)"
    launch(device, params, args, [f], {"gpu": call, "cpu": call}, _grid(device, bound), BLOCK, any_grid=True,
           count=n)


_scratch = {}  # {id of the array that owns a sums array's memory: {(GPU, address, K): (partials, arrivals)}}
_scratch_lock = threading.Lock()
_CPU_SCRATCH = (numpy.zeros(1), numpy.zeros(1, numpy.uint32))  # stand-ins: the CPU adds in order


def _sums_scratch(device, sums):
    """(partials, arrivals) of transform(sums=) on the GPU (see transform.cuh):
    a slot of K values for each block of the largest grid that a transform or a
    persistent loop launches, and a count at 0. Made on a sums array's first
    use and kept while the array owning its memory lives, at one address (CUDA
    graphs and persistent loops keep it): another array there later, another
    thread's sums, get their own. A first use may come in a loop body being
    captured (PageRank's), whose allocator refuses memory that the body could
    let go: this the body never does, so it comes from CuPy's pool itself,
    zeroed on a stream of its own that the host waits for (the capture records
    none of it)."""
    if device == "cpu":
        return _CPU_SCRATCH
    import cupy
    owner = sums
    while owner.base is not None:
        owner = owner.base
    gpu = current_gpu()
    key = (gpu, sums.data.ptr, len(sums))
    with _scratch_lock:
        kept = _scratch.get(id(owner))
        if kept is None:
            kept = _scratch[id(owner)] = {}
            weakref.finalize(owner, _scratch.pop, id(owner), None)  # runs before the id can be reused
        if key not in kept:
            slots = multiprocessors(gpu) * max(RESIDENT_BLOCKS_PER_SM, BLOCKS_PER_SM)
            side = cupy.cuda.Stream(non_blocking=True)
            with side, cupy.cuda.using_allocator(cupy.get_default_memory_pool().malloc):
                kept[key] = cupy.empty(slots * len(sums)), cupy.zeros(1, dtype=numpy.uint32)
            side.synchronize()
        return kept[key]


def _checked_sums(device, sums):
    """sums, when a transform may add its functor's Sums<K> into it: K float64 values on `device`."""
    if getattr(sums, "ndim", None) != 1 or sums.dtype != numpy.float64 or len(sums) == 0:
        raise MinigrError("sums must be a 1-D float64 array of the K values that the functor's "
                          f"minigr::Sums<K> adds to, got {getattr(sums, 'dtype', type(sums))} "
                          f"of shape {getattr(sums, 'shape', None)}")
    if not sums.flags.c_contiguous:
        raise MinigrError("sums must be contiguous, got a strided view: pass a slice of consecutive values")
    if device_of(sums) != device:
        raise MinigrError(f"sums must live on the functors' device ({device}), got an array on {device_of(sums)}")
    return sums


def segment_transform(n, bounds, f, group=1, longest=None):
    """Calls f(item, seg, rank) for every item of every segment seg in [0, n),
    where bounds(seg, begin, end) sets segment seg's items [begin, end) (two
    long long references) and rank = item - begin; n an int or a DeviceCount.
    Huge segments are walked by the whole grid, big ones by a block, mid-sized
    ones by a warp, small ones by a group of `group` threads (a power of two
    up to 32; see segments.cuh): two kernels, no scan; one when `longest`, a
    bound on the segments' lengths, says none is huge. The CPU walks each
    segment in turn."""
    device = call_device([bounds, f])
    param, arg, bound = _size(device, n)
    if group not in (1, 2, 4, 8, 16, 32):
        raise MinigrError(f"group must be a power of two from 1 to 32, got {group!r}")
    if bound == 0:
        return
    list_huge, block = longest is None or longest >= HUGE, recording_block(BLOCK)  # a persistent loop's, if recorded
    widest = 0 if longest is not None and longest < 32 else 1 if longest is not None and longest < block else 2
    huge = huge_list(device)
    params = [param, ("long long*", "huge_counters"), ("long long*", "huge_segments")]
    make_list = "minigr::HugeList huge{huge_counters, huge_segments}; "
    walk = f"minigr::segments<{block}, {group}, {str(list_huge).lower()}, {widest}>(n, huge, f0, f1)"
    calls = {"gpu": make_list + walk, "cpu": "minigr::segments(n, f0, f1)"}
    launch(device, params, [arg, *huge], [bounds, f], calls, _grid(device, bound * group), BLOCK, any_grid=True,
           count=n)
    if list_huge:
        grid = 2 * multiprocessors(current_gpu()) if device == "gpu" else 1
        launch(device, params[1:], huge, [f],
               {"gpu": make_list + f"minigr::huge_segments<{block}>(huge, f0)", "cpu": None}, grid, BLOCK,
               any_grid=True, count=DeviceCount(huge[0], HUGE_LIST))


_huge_lists = {}


def huge_list(device):
    """segment_transform's list of huge segments (counters, segments) on the
    current GPU, made once and left empty by each call, so that calls in a
    captured loop body allocate nothing (a stand-in on the CPU, which has no list)."""
    key = current_gpu() if device == "gpu" else device
    if key not in _huge_lists:
        xp = array_module(device)
        _huge_lists[key] = (xp.zeros(2, dtype=numpy.int64), xp.zeros(3 * HUGE_LIST, dtype=numpy.int64))
    return _huge_lists[key]


def scan_transform(n, count):
    """Exclusive prefix sums of count(idx) over [0, n), fused: the counts are
    never stored. Returns (offsets, total), offsets of length n + 1 (int64)
    ending in the total."""
    n = _count(n)
    device = call_device([count])
    xp = array_module(device)
    offsets = xp.empty(n + 1, dtype=numpy.int64)  # the kernel writes every entry
    if n == 0:
        offsets[0] = 0
        return offsets, 0
    return offsets, _single_pass(device, xp, n, SCAN_ITEMS, "scan", "n, offsets, result, workspace, f0",
                                 [("long long", "n"), ("long long*", "offsets")], [numpy.int64(n), offsets], [count])


def compact_transform(n, pred, write=None):
    """Keeps the idx in [0, n) where pred(idx) holds, in order: write(dest, src)
    places each kept item. Returns (out, count): without a writer, out holds the
    kept indices (int64); with one, out is None and the writer's captures hold
    the result."""
    n = _count(n)
    device = call_device([pred] + ([write] if write else []))
    xp = array_module(device)
    params, args, functors = [("long long", "n")], [numpy.int64(n)], [pred]
    if write is None:
        out = xp.empty(n, dtype=numpy.int64)
        params.append(("long long*", "out"))
        args.append(out)
        writer = "minigr::KeptIndex{out}"
    else:
        out = None
        functors.append(write)
        writer = "f1"
    kept = 0
    if n:
        kept = _single_pass(device, xp, n, COMPACT_ITEMS, "compact", f"n, result, workspace, f0, {writer}",
                            params, args, functors, COMPACT_BLOCKS_PER_SM)
    return (out[:kept] if out is not None else None), kept


def _segments(offsets, total):
    """(offset C type, segment count, total) of a CSR-style offsets array."""
    if getattr(offsets, "ndim", None) != 1 or offsets.dtype not in (numpy.int32, numpy.int64) or len(offsets) < 1:
        raise MinigrError("offsets must be a 1-D int32 or int64 array of segment starts with the total "
                          f"last (length nseg + 1), got {getattr(offsets, 'dtype', type(offsets))} "
                          f"of shape {getattr(offsets, 'shape', None)}")
    total = int(offsets[-1]) if total is None else _count(total, "total")
    return c_type(offsets.dtype), len(offsets) - 1, total


def _merge_splits(device, xp, offsets, ctype, nseg, total, out=None, identity=None):
    """Each block's start on the merge path of items and segment ends (GPU).
    With out, also stores the identity in the segments open at block boundaries
    (see segreduce.cuh)."""
    blocks = -(-(total + nseg) // SEARCH_TILE)
    splits = xp.empty(blocks + 1, dtype=numpy.int64)
    params = [(f"const {ctype}*", "offsets"), ("long long", "nseg"), ("long long", "total"), ("long long*", "splits")]
    args = [offsets, numpy.int64(nseg), numpy.int64(total), splits]
    open_segment = ""
    if out is not None:
        params += [(f"{c_type(out.dtype)}*", "out"), (c_type(out.dtype), "identity")]
        args += [out, identity]
        open_segment = f", minigr::StoreIdentity<{c_type(out.dtype)}>{{out, identity}}"
    launch(device, params, args, [],
           {"gpu": f"minigr::merge_partitions<{SEARCH_TILE}>(offsets, nseg, total, splits{open_segment})",
            "cpu": None},
           -(-(blocks + 1) // BLOCK), BLOCK)
    return splits, blocks


class Partition:
    """Where each block of lbs_transform and segreduce_transform starts on the
    merge path of the items and segment ends of `offsets` (see lbs.cuh). Finding
    it takes a kernel launch of its own; segments that are walked again and
    again (a graph's rows) keep theirs and pass it as `partition=`."""

    def __init__(self, offsets, total=None):
        ctype, nseg, self.total = _segments(offsets, total)
        self.offsets = offsets
        self.splits, self.blocks = None, 0
        if self.total:
            device = call_device([], [offsets])
            self.splits, self.blocks = _merge_splits(device, array_module(device), offsets, ctype, nseg, self.total)


def _splits(device, xp, offsets, ctype, nseg, total, partition, out=None, identity=None):
    """(splits, blocks) from `partition`, checked to be of these segments, or
    found now. With out, the segments that span blocks hold the identity after."""
    if partition is None:
        return _merge_splits(device, xp, offsets, ctype, nseg, total, out, identity)
    if partition.offsets is not offsets or partition.total != total:
        raise MinigrError("partition= was made for other offsets or another total; pass "
                          "Partition(offsets, total) of the segments being walked, or no partition")
    if out is not None:
        launch(device, [("long long", "nseg"), ("long long", "total"), ("const long long*", "splits"),
                        ("long long", "blocks"), (f"{c_type(out.dtype)}*", "out"), (c_type(out.dtype), "identity")],
               [numpy.int64(nseg), numpy.int64(total), partition.splits, numpy.int64(partition.blocks), out, identity],
               [], {"gpu": f"minigr::store_open_identity<{SEARCH_TILE}>(nseg, total, splits, blocks, out, identity)",
                    "cpu": None}, _grid(device, partition.blocks + 1), BLOCK, any_grid=True)
    return partition.splits, partition.blocks


def lbs_transform(offsets, f, total=None, partition=None):
    """Calls f(idx, seg, rank) for every item idx in [0, total), where segment seg
    holds items offsets[seg] .. offsets[seg + 1] - 1 and rank = idx - offsets[seg].
    offsets[0] must be 0; total defaults to offsets[-1] (read from the device).
    partition: a Partition of these offsets, to reuse."""
    ctype, nseg, total = _segments(offsets, total)
    device = call_device([f], [offsets])
    if total == 0:
        return
    splits, blocks = _splits(device, array_module(device), offsets, ctype, nseg, total, partition)
    calls = {"gpu": f"minigr::lbs<{BLOCK}, {SEARCH_ITEMS}>(offsets, nseg, total, splits, f0)",
             "cpu": "minigr::lbs(offsets, nseg, f0)"}
    launch(device, [(f"const {ctype}*", "offsets"), ("long long", "nseg"), ("long long", "total"),
                    ("const long long*", "splits")],
           [offsets, numpy.int64(nseg), numpy.int64(total), splits], [f], calls, blocks, BLOCK)


def _builtin_op(op, dtype):
    """(C expression in a and b, identity) of a built-in reduction."""
    info = numpy.finfo(dtype) if dtype.kind == "f" else numpy.iinfo(dtype)
    big = numpy.inf if dtype.kind == "f" else info.max
    small = -numpy.inf if dtype.kind == "f" else info.min
    return {"sum": ("a + b", 0), "min": ("a < b ? a : b", big), "max": ("a > b ? a : b", small)}[op]


@functools.lru_cache(maxsize=256)
def reduction(op, identity, dtype):
    """(combine functor, identity) of a reduction: op "sum", "min", "max" (identity
    optional), or a C expression in `a` and `b` with its identity. Cached: operators
    call it on every launch."""
    dtype = numpy.dtype(dtype)
    ctype = c_type(dtype)
    if dtype.itemsize not in (4, 8) or dtype.kind not in "iuf":
        raise MinigrError(f"reduced values must be 4- or 8-byte ints or floats, not {dtype}")
    if op in ("sum", "min", "max"):
        expression, builtin_identity = _builtin_op(op, dtype)
        identity = builtin_identity if identity is None else identity
    elif isinstance(op, str) and identity is not None:
        expression = op
    else:
        raise MinigrError(f"op must be 'sum', 'min', 'max' or a C expression in a and b with an identity; got "
                          f"op={op!r}, identity={identity!r}")
    source = f"__device__ {ctype} operator()({ctype} a, {ctype} b) const {{ return {expression}; }}"
    if op == "sum":  # every value type has a native atomic add (see segreduce.cuh)
        source += f"\n__device__ void atomic({ctype}* address, {ctype} value) const {{ atomicAdd(address, value); }}"
    combine = Functor(source, filename="<op>")
    return combine, dtype.type(identity)


def segreduce_transform(offsets, f, op="sum", identity=None, dtype=numpy.float64, total=None, partition=None,
                        out=None):
    """Per-segment reduction of f(idx, seg, rank) (see lbs_transform) with op:
    "sum", "min", "max", or a C expression in `a` and `b` (associative and
    commutative) with its identity. Empty segments get the identity. Returns
    an array of nseg values of `dtype` (4- or 8-byte int or float): `out` when
    given (then of its dtype). partition: a Partition of these offsets, to reuse."""
    dtype = numpy.dtype(dtype if out is None else out.dtype)
    ctype = c_type(dtype)
    combine, identity = reduction(op, identity, dtype)
    offsets_ctype, nseg, total = _segments(offsets, total)
    device = call_device([f], [offsets])
    xp = array_module(device)
    if out is None:
        out = xp.empty(nseg, dtype=dtype)  # the kernel writes every segment
    elif out.shape != (nseg,):
        raise MinigrError(f"out must hold one value per segment ({nseg}), got shape {out.shape}")
    if total == 0:
        out.fill(identity)
        return out
    # A block stages its values in shared memory, which the L1 cache shares (and
    # gathers need it): 8-byte values take half the items per thread over twice
    # the threads, so the tile stays and the shared memory per SM hardly grows.
    block = BLOCK * dtype.itemsize // 4
    items = SEARCH_TILE // block
    splits, blocks = _splits(device, xp, offsets, offsets_ctype, nseg, total, partition, out, identity)
    calls = {"gpu": f"minigr::segreduce<{block}, {items}>(offsets, nseg, total, splits, out, identity, f0, f1)",
             "cpu": "minigr::segreduce(offsets, nseg, out, identity, f0, f1)"}
    launch(device, [(f"const {offsets_ctype}*", "offsets"), ("long long", "nseg"), ("long long", "total"),
                    ("const long long*", "splits"), (f"{ctype}*", "out"), (ctype, "identity")],
           [offsets, numpy.int64(nseg), numpy.int64(total), splits, out, identity], [f, combine],
           calls, blocks, block)
    return out


# intersect_transform's functors when no f or no out is given: the kernel calls them, the compiler drops them.
_NO_MATCH = Functor("void operator()(long long p, long long ia, long long ib) const {}", filename="<no f>")
_NO_COUNT = Functor("void operator()(long long p, long long count) const {}", filename="<no out>")
_STORE_COUNT = "void operator()(long long p, long long count) const { out[p] = count; }"


def intersect_transform(n, pairs, items, f=None, out=None):
    """The common items of two sorted ranges of `items`, for every pair p in
    [0, n) (n an int or a DeviceCount). pairs(p, a_begin, a_end, b_begin, b_end)
    sets pair p's ranges [a_begin, a_end) and [b_begin, b_end) of positions in
    items (four long long references); each range is sorted ascending. Items
    pair up as in a merge: a value held j times in one range and k in the other
    is common min(j, k) times. f(p, ia, ib), when given, is called once per
    common item with its positions in items, ia in range a and ib in range b.
    out, when given (int64, one entry per pair), receives each pair's number of
    common items (written, not added). Returns out.
    On the GPU a pair's work is binary searches of its shorter range's items in
    the longer one, or chunks of their merge path when both are long, and each
    block deals its pairs' work out evenly to its threads (see intersect.cuh);
    on the CPU, a plain merge."""
    if getattr(items, "ndim", None) != 1 or items.dtype not in (numpy.int32, numpy.int64):
        raise MinigrError("items must be a 1-D int32 or int64 array (the ranges' sorted values), got "
                          f"{getattr(items, 'dtype', type(items))} of shape {getattr(items, 'shape', None)}")
    if not items.flags.c_contiguous:
        raise MinigrError("items must be contiguous, got a strided view: pass items.copy()")
    functors = [pairs] + ([f] if f is not None else [])
    device = call_device(functors, [items] + ([out] if out is not None else []))
    param, arg, bound = _size(device, n)
    if out is not None and (out.dtype != numpy.int64 or out.ndim != 1 or len(out) < bound
                            or (not isinstance(n, DeviceCount) and len(out) != bound)):
        at_least = "at least the bound of n, " if isinstance(n, DeviceCount) else ""
        raise MinigrError(f"out must be a 1-D int64 array of one count per pair ({at_least}{bound}), "
                          f"got {out.dtype} of shape {out.shape}")
    if bound == 0:
        return out
    count = _NO_COUNT if out is None else Functor(_STORE_COUNT, filename="<out>", out=out)
    calls = {"gpu": f"minigr::intersect<{BLOCK}, {INTERSECT_CHUNK}>(n, items, f0, f1, f2)",
             "cpu": "minigr::intersect(n, items, f0, f1, f2)"}
    launch(device, [param, (f"const {c_type(items.dtype)}*", "items")], [arg, items],
           [pairs, f if f is not None else _NO_MATCH, count], calls, _grid(device, bound), BLOCK)
    return out
