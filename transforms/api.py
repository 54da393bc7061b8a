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
from .launch import call_device, current_gpu, huge_lists, launch, multiprocessors, recording_block
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
    """A count that lives on the device, so that kernels read it and nobody waits for it.

    array[index] of an int64 array (CuPy, or NumPy for the CPU backend), left there by
    earlier kernels (a frontier's size, say). transform, segment_transform and
    intersect_transform take one as their count: they launch a fixed grid sized from
    `bound`, walked grid-stride, so that they can run inside a loop that stays on the GPU.

    Parameters
    ----------
    array : array
        The int64 array that holds the count.
    bound : int
        A host-known cap on the count, which sizes the launches.
    index : int, default 0
        The count's cell in `array`.
    stable : bool, default False
        Only one-thread kernels change it (a loop's step, a frontier's next_level, work
        before the loop), so a persistent loop reads it without waiting for the body's
        earlier transforms, and skips the barrier before a transform it leaves with
        nothing to do.

    Attributes
    ----------
    cell : array
        The one-element view of `array` that holds the count.
    bound : int
        The cap.
    stable : bool
        As given.

    Examples
    --------
    >>> from minigr.transforms import DeviceCount, Functor, array_module, resolve_device, transform
    >>> xp = array_module(resolve_device())
    >>> sizes = xp.asarray([7, 2], dtype="int64")  # as a kernel would have left them
    >>> x = xp.zeros(5, dtype="int32")
    >>> count = DeviceCount(sizes, bound=5, index=1)
    >>> transform(count, Functor("void operator()(long long i) const { x[i] = 1; }", x=x))
    >>> x.tolist(), count.wait_value()
    ([1, 1, 0, 0, 0], 2)
    """

    def __init__(self, array, bound, index=0, stable=False):
        if array.dtype != numpy.int64:
            raise MinigrError(f"a DeviceCount lives in an int64 array, got {array.dtype}")
        self.cell = array[index:index + 1]
        self.bound = _count(bound, "bound")
        self.stable = stable

    def wait_value(self):
        """The count, read on the host: waits for the work queued before it.

        Returns
        -------
        int
            The count.

        Examples
        --------
        >>> from minigr.transforms import DeviceCount, array_module, resolve_device
        >>> DeviceCount(array_module(resolve_device()).asarray([3], dtype="int64"), bound=10).wait_value()
        3
        """
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
    """Call f(idx) for every idx in [0, n): a parallel for, the simplest transform.

    With `sums`, a pass that also sums (an update and its change, as PageRank's): f
    returns ``minigr::Sums<K>`` (``return {change, mass};``) and their sum over every idx
    is added to the K values of sums, per block on the GPU, with no per-item atomics, and
    with the same bits on every run of the same grid, whatever order its blocks end in
    (the last block adds the blocks' sums in a fixed order; see transform.cuh). Queued on
    the current stream; nothing waits.

    Parameters
    ----------
    n : int or DeviceCount
        The items; a DeviceCount is read by the kernel itself, on a fixed grid.
    f : Functor
        ``void operator()(long long idx) const``, or with sums ``minigr::Sums<K>
        operator()(long long idx) const``.
    sums : array, optional
        K float64 values on f's device, added to. Launches that add into one sums array
        share its scratch: queue them in order (one stream), not at the same time.

    Examples
    --------
    >>> from minigr.transforms import Functor, array_module, resolve_device, transform
    >>> xp = array_module(resolve_device())
    >>> x, totals = xp.asarray([0.5, -2.0, 1.5]), xp.zeros(2)
    >>> transform(3, Functor('''minigr::Sums<2> operator()(long long i) const {
    ...     const double old = x[i];
    ...     x[i] = 2 * old;
    ...     return {fabs(old), 1.0};
    ... }''', x=x), sums=totals)
    >>> totals.tolist(), x.tolist()
    ([4.0, 3.0], [1.0, -4.0, 3.0])
    """
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
    """Call f(item, seg, rank) for every item of segments that a functor bounds: no scan.

    bounds(seg, begin, end) sets segment seg's items [begin, end) (a frontier's vertex's
    edges, say), and f is called for each, with rank = item - begin. Huge segments
    (4096+ items) are walked by the whole grid, big ones by a block, mid-sized ones by a
    warp, small ones by a group of `group` threads, wider (up to `longest`) where the grid
    has threads to spare (see segments.cuh): two kernels, no scan; one when `longest` says
    none is huge. The CPU walks each segment in turn. Queued on the current stream; nothing waits.

    Parameters
    ----------
    n : int or DeviceCount
        The segments; a DeviceCount is read by the kernels themselves.
    bounds : Functor
        ``void operator()(long long seg, long long& begin, long long& end) const``.
    f : Functor
        ``void operator()(long long item, long long seg, long long rank) const``.
    group : int, default 1
        The fewest threads that share a small segment: a power of two up to 32.
    longest : int, optional
        A bound on the segments' lengths, when known.

    Examples
    --------
    >>> from minigr.transforms import Functor, array_module, resolve_device, segment_transform
    >>> xp = array_module(resolve_device())
    >>> starts, ends, out = xp.asarray([4, 0, 9]), xp.asarray([6, 3, 9]), xp.full(6, -1)
    >>> bounds = Functor("void operator()(long long s, long long& begin, long long& end) const "
    ...                  "{ begin = starts[s]; end = ends[s]; }", starts=starts, ends=ends)
    >>> segment_transform(3, bounds, Functor("void operator()(long long item, long long s, long long rank) const "
    ...                                      "{ out[item] = 10 * s + rank; }", out=out), longest=3)
    >>> out.tolist()
    [10, 11, 12, -1, 0, 1]
    """
    device = call_device([bounds, f])
    param, arg, bound = _size(device, n)
    if group not in (1, 2, 4, 8, 16, 32):
        raise MinigrError(f"group must be a power of two from 1 to 32, got {group!r}")
    if bound == 0:
        return
    list_huge, block = longest is None or longest >= HUGE, recording_block(BLOCK)  # a persistent loop's, if recorded
    widest = 0 if longest is not None and longest < 32 else 1 if longest is not None and longest < block else 2
    widened = max(group, min(32, 1 << max(longest - 1, 0).bit_length())) if longest is not None else 32
    huge = huge_list(device)
    params = [param, ("long long*", "huge_counters"), ("long long*", "huge_segments")]
    make_list = "minigr::HugeList huge{huge_counters, huge_segments}; "
    walk = f"minigr::segments<{block}, {group}, {widened}, {str(list_huge).lower()}, {widest}>(n, huge, f0, f1)"
    calls = {"gpu": make_list + walk, "cpu": "minigr::segments(n, f0, f1)"}
    launch(device, params, [arg, *huge], [bounds, f], calls, _grid(device, bound * widened), BLOCK, any_grid=True,
           count=n)
    if list_huge:
        grid = 2 * multiprocessors(current_gpu()) if device == "gpu" else 1
        launch(device, params[1:], huge, [f],
               {"gpu": make_list + f"minigr::huge_segments<{block}>(huge, f0)", "cpu": None}, grid, BLOCK,
               any_grid=True, count=DeviceCount(huge[0], HUGE_LIST))


_CPU_HUGE = (numpy.zeros(2, dtype=numpy.int64), numpy.zeros(1, dtype=numpy.int64))  # the CPU walks huge ones itself


def huge_list(device):
    """segment_transform's list of huge segments (counters, segments) on the current GPU,
    the calling thread's or a captured loop's (launch.huge_lists), made on first use and left
    empty by each call; a stand-in on the CPU, which has no list."""
    if device != "gpu":
        return _CPU_HUGE
    lists, gpu = huge_lists(), current_gpu()
    if gpu not in lists:
        xp = array_module(device)
        lists[gpu] = (xp.zeros(2, dtype=numpy.int64), xp.zeros(3 * HUGE_LIST, dtype=numpy.int64))
    return lists[gpu]


def scan_transform(n, count):
    """Exclusive prefix sums of count(idx) over [0, n), fused: the counts are never stored.

    One pass (decoupled look-back on the GPU, see scan.cuh) turns per-item counts into
    offsets, where each item's output starts: a CSR's rows, a compaction's places. Waits
    only until its kernel knows the total it returns.

    Parameters
    ----------
    n : int
        The items.
    count : Functor
        ``long long operator()(long long idx) const``: item idx's count.

    Returns
    -------
    offsets : array
        int64, n + 1 of them: offsets[i] is the sum of the counts before i, and the last
        is the total.
    total : int
        The sum of all counts.

    Examples
    --------
    >>> from minigr.transforms import Functor, array_module, resolve_device, scan_transform
    >>> deg = array_module(resolve_device()).asarray([3, 0, 2], dtype="int32")
    >>> offsets, total = scan_transform(3, Functor("long long operator()(long long i) const { return deg[i]; }",
    ...                                            deg=deg))
    >>> offsets.tolist(), total
    ([0, 3, 3, 5], 5)
    """
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
    """Keep the idx in [0, n) where pred(idx) holds, in order.

    A stream compaction: without a writer it returns the kept indices; with one,
    write(dest, src) places each kept item src at its place dest among them (a filter of
    values, of pairs). Waits only until its kernel knows the count it returns.

    Parameters
    ----------
    n : int
        The items.
    pred : Functor
        ``bool operator()(long long idx) const``: whether item idx is kept.
    write : Functor, optional
        ``void operator()(long long dest, long long src) const``: places a kept item.

    Returns
    -------
    out : array or None
        Without a writer, the kept indices (int64); with one, None (the writer's captures
        hold the result).
    count : int
        The items kept.

    Examples
    --------
    >>> from minigr.transforms import Functor, array_module, compact_transform, resolve_device
    >>> xp = array_module(resolve_device())
    >>> values = xp.asarray([5, 2, 8, 3, 4])
    >>> even = Functor("bool operator()(long long i) const { return values[i] % 2 == 0; }", values=values)
    >>> kept, count = compact_transform(5, even)
    >>> kept.tolist(), count
    ([1, 2, 4], 3)
    >>> out = xp.zeros(5, dtype=values.dtype)
    >>> place = Functor("void operator()(long long dest, long long src) const { out[dest] = values[src]; }",
    ...                 out=out, values=values)
    >>> compact_transform(5, even, place), out.tolist()
    ((None, 3), [2, 8, 4, 0, 0])
    """
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
    """Where each block of lbs_transform and segreduce_transform starts on the merge path.

    The merge path of the items and segment ends of `offsets` (see lbs.cuh). Finding it
    takes a kernel launch of its own; segments that are walked again and again (a
    graph's rows) keep theirs and pass it as ``partition=``, which saves that launch.

    Parameters
    ----------
    offsets : array
        The segments, CSR-style (int32 or int64, nseg + 1, from 0); calls that pass the
        partition must pass this very array.
    total : int, optional
        The items in all; default offsets[-1] (read from the device).

    Attributes
    ----------
    offsets : array
        As given.
    total : int
        The items in all.
    splits : array or None
        Each block's start on the GPU (int64, blocks + 1; not filled on the CPU, which
        walks the segments in order); None where there are no items.
    blocks : int
        The blocks of a launch over these segments (0 where there are no items).

    Examples
    --------
    >>> from minigr.transforms import Functor, Partition, array_module, lbs_transform, resolve_device
    >>> xp = array_module(resolve_device())
    >>> offsets = xp.asarray([0, 3, 3, 5])
    >>> rows = Partition(offsets)
    >>> seg = xp.empty(5, dtype="int32")
    >>> owner = Functor("void operator()(long long i, long long s, long long rank) const { seg[i] = s; }", seg=seg)
    >>> for _ in range(2):  # the partition found once, used twice
    ...     lbs_transform(offsets, owner, partition=rows)
    >>> rows.total, seg.tolist()
    (5, [0, 0, 0, 2, 2])
    """

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
    """Call f(idx, seg, rank) for every item of every segment, load-balanced by merge path.

    Segment seg holds items offsets[seg] .. offsets[seg + 1] - 1, and rank = idx -
    offsets[seg]: an edge of a row, say. The GPU splits the merge path of items and
    segment ends evenly over its blocks, so any skew of segment lengths balances. Queued
    on the current stream; nothing waits.

    Parameters
    ----------
    offsets : array
        The segments, CSR-style: int32 or int64, nseg + 1 of them, offsets[0] == 0.
    f : Functor
        ``void operator()(long long idx, long long seg, long long rank) const``.
    total : int, optional
        The items in all; default offsets[-1] (read from the device).
    partition : Partition, optional
        A Partition of these offsets, to reuse (it saves a launch).

    Examples
    --------
    >>> from minigr.transforms import Functor, array_module, lbs_transform, resolve_device
    >>> xp = array_module(resolve_device())
    >>> seg, ranks = xp.empty(5, dtype="int32"), xp.empty(5, dtype="int32")
    >>> f = Functor("void operator()(long long i, long long s, long long rank) const { seg[i] = s; ranks[i] = rank; }",
    ...             seg=seg, ranks=ranks)
    >>> lbs_transform(xp.asarray([0, 3, 3, 5]), f)
    >>> seg.tolist(), ranks.tolist()
    ([0, 0, 0, 2, 2], [0, 1, 2, 0, 1])
    """
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
    """Per-segment reduction of f(idx, seg, rank), load-balanced by merge path.

    The segments and f are as for `lbs_transform`; each segment's values are reduced with
    `op`, and an empty segment gets the identity: a row's sum, a neighbourhood's minimum.
    On the GPU a segment that spans blocks is combined into out atomically, in the order
    its blocks end, so a float sum may differ in its last bits from run to run; the CPU
    reduces in order. Queued on the current stream; nothing waits.

    Parameters
    ----------
    offsets : array
        The segments, CSR-style: int32 or int64, nseg + 1 of them, offsets[0] == 0.
    f : Functor
        ``T operator()(long long idx, long long seg, long long rank) const``: item idx's
        value.
    op : str, default 'sum'
        "sum", "min", "max", or a C expression in `a` and `b` (associative and
        commutative) with its `identity`.
    identity : scalar, optional
        The reduction's identity; required for a C expression.
    dtype : dtype, default numpy.float64
        The values' type: a 4- or 8-byte int or float (out's own when out is given).
    total : int, optional
        The items in all; default offsets[-1] (read from the device).
    partition : Partition, optional
        A Partition of these offsets, to reuse (it saves a launch).
    out : array, optional
        Receives the nseg values (allocated when None).

    Returns
    -------
    array
        `out`: one value per segment.

    Examples
    --------
    >>> from minigr.transforms import Functor, array_module, resolve_device, segreduce_transform
    >>> xp = array_module(resolve_device())
    >>> offsets, values = xp.asarray([0, 3, 3, 5]), xp.asarray([1.0, 2.0, 3.0, 4.0, 5.0])
    >>> value = Functor("double operator()(long long i, long long s, long long rank) const { return values[i]; }",
    ...                 values=values)
    >>> segreduce_transform(offsets, value).tolist()
    [6.0, 0.0, 9.0]
    >>> segreduce_transform(offsets, value, op="a > b ? a : b", identity=-1.0).tolist()
    [3.0, -1.0, 5.0]
    """
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
    """The common items of two sorted ranges of `items`, for every pair p in [0, n).

    pairs(p, ...) sets pair p's ranges [a_begin, a_end) and [b_begin, b_end) of positions
    in items, each sorted ascending (two vertices' neighbour lists, say). Items pair up as
    in a merge: a value held j times in one range and k in the other is common min(j, k)
    times. On the GPU a pair's work is binary searches of its shorter range's items in
    the longer one, or chunks of their merge path when both are long, and each block deals
    its pairs' work out evenly to its threads (see intersect.cuh); on the CPU, a plain
    merge. Queued on the current stream; nothing waits.

    Parameters
    ----------
    n : int or DeviceCount
        The pairs.
    pairs : Functor
        ``void operator()(long long p, long long& a_begin, long long& a_end, long long&
        b_begin, long long& b_end) const``.
    items : array
        The ranges' values: 1-D, int32 or int64, contiguous.
    f : Functor, optional
        ``void operator()(long long p, long long ia, long long ib) const``, called once per
        common item with its positions in items, ia in range a and ib in range b.
    out : array, optional
        One int64 entry per pair (at least the bound of a DeviceCount n), which receives
        the pair's number of common items (written, not added).

    Returns
    -------
    array or None
        `out` (None without one).

    Examples
    --------
    >>> from minigr.transforms import Functor, array_module, intersect_transform, resolve_device
    >>> xp = array_module(resolve_device())
    >>> items = xp.asarray([1, 3, 5, 7, 3, 4, 5], dtype="int32")
    >>> ranges = xp.asarray([0, 4, 4, 7, 0, 2, 2, 4])  # pair 0: [1 3 5 7] and [3 4 5]; pair 1: [1 3] and [5 7]
    >>> pairs = Functor('''void operator()(long long p, long long& a_begin, long long& a_end,
    ...                                    long long& b_begin, long long& b_end) const {
    ...     a_begin = ranges[4 * p]; a_end = ranges[4 * p + 1]; b_begin = ranges[4 * p + 2]; b_end = ranges[4 * p + 3];
    ... }''', ranges=ranges)
    >>> found = xp.zeros(7, dtype="int32")
    >>> mark = Functor("void operator()(long long p, long long ia, long long ib) const { found[ia] = 1; }", found=found)
    >>> intersect_transform(2, pairs, items, mark, out=xp.zeros(2, dtype="int64")).tolist(), found.tolist()
    ([2, 0], [0, 1, 1, 0, 0, 0, 0])
    """
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
