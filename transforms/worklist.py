"""worklist_transform: one kernel works through a queue of (item, key) pairs
that its own calls add to, until none is left: no levels, no barrier, no
launch or host round trip per step (see kernels/worklist.h and worklist.cuh).
A queue with buckets defers the pairs whose key reaches its bound, and
split() raises the bound and queues them again: a loop of runs, one a bucket."""
import numpy

from .api import DeviceCount, transform
from .backend import array_module, read_waiting
from .errors import MinigrError
from .functor import Functor
from .launch import call_device, current_gpu, launch, multiprocessors

EMPTY = numpy.uint64(2**64 - 1)  # a slot with no pair (worklist.h)
NO_BOUND = 2**32 - 1  # a bound that defers nothing (worklist.h)
WORDS, BOUND, SMALLEST, TO_SPLIT, PUSHES = 48, 3, 32, 8, 9  # worklist.h's worklist_word
# Threads per SM that work the queue. Fewer poll the queue less and take pairs
# more nearly in order: BFS on USA-road-d.NY 2.66 ms with 64, 2.93 with 128,
# 3.98 with 256 (H100, 2026-11-26, .devrun/asyncprobe.py). Relax's runs in whole
# warps are on graphs of 2^21 vertices or more since its BFS on smaller ones went
# lone; there, async BFS / SSSP on grid_22 with 64 / 96 / 128: 10.8-11.1 / 19.2-19.5,
# 10.3-10.7 / 18.2, 10.7-10.8 / 17.7-18.3 ms; with 32 BFS took 70 (2026-11-27, wps.sh).
WORKERS_PER_SM = 96
# Lone workers (worklist_transform's lone): warps per SM, one lane of each working.
LONE_WORKERS_PER_SM = 8
# The queue as worklist.h's struct, from a functor's captures (uint64_t is not unsigned long long on every C++).
_QUEUE = """minigr::Worklist queue() const {
    using word = unsigned long long;
    return minigr::worklist_of((word*)words, (word*)slots, (word*)deferred, capacity);
}
"""
_NEXT_BUCKET = _QUEUE + "void operator()(long long) const { minigr::next_bucket(queue(), next); }"
_SPLIT = _QUEUE + "void operator()(long long i) const { minigr::split_deferred(queue(), i); }"
_HOLDS_PAIRS = "bool operator()() const { return (words[0] >> 32) > 0 && !words[2]; }"


class Worklist:
    """A queue of (item, key) pairs on a device, which worklist_transform works through.

    Up to `capacity` pushes of pairs of an int32 item and a uint32 key: its words and
    slots, and with `buckets`, two lists of as many deferred pairs (a pair pushed with a
    key from the run's bound on waits for `split`). Made once and reset by each run; one
    run at a time may use it.

    Parameters
    ----------
    capacity : int
        The pushes a run may make, its first pairs included: 1 to 2^31 - 1.
    device : {'gpu', 'cpu'}
        Where the queue lives.
    buckets : bool, default False
        Keep deferred pairs, for runs in buckets of keys.

    Attributes
    ----------
    capacity : int
        As given.
    words, slots, deferred : array
        The queue's state (uint64; see worklist.h).

    Examples
    --------
    A chain of pushes: each item's key is its hops from item 0.

    >>> from minigr.transforms import Functor, Worklist, array_module, resolve_device, worklist_transform
    >>> device = resolve_device()
    >>> hops = array_module(device).full(5, -1, dtype="int64")
    >>> walk = Functor('''void operator()(int item, unsigned key, const minigr::Worklist& queue) const {
    ...     hops[item] = key;
    ...     if (item + 1 < 5) queue.push(item + 1, key + 1);
    ... }''', hops=hops)
    >>> queue = Worklist(16, device)
    >>> queue.reset([0], [0])
    >>> worklist_transform(queue, walk)
    >>> queue.wait_pushes(), hops.tolist()
    (5, [0, 1, 2, 3, 4])
    """

    def __init__(self, capacity, device, buckets=False):
        if isinstance(capacity, bool) or not isinstance(capacity, (int, numpy.integer)) or not 1 <= capacity < 2**31:
            raise MinigrError(f"a Worklist's capacity must be an int in [1, 2^31), got {capacity!r}")
        self.xp, self.capacity = array_module(device), int(capacity)
        # the words, then the slots (so that a reset is one copy), then the deferred pairs
        self._all = self.xp.full(WORDS + (3 if buckets else 1) * self.capacity, EMPTY, dtype=numpy.uint64)
        self.words, self.slots = self._all[:WORDS], self._all[WORDS:WORDS + self.capacity]
        self.buckets = buckets
        self.deferred = self._all[WORDS + self.capacity:] if buckets else self.xp.zeros(1, dtype=numpy.uint64)
        self._captures = dict(words=self.words, slots=self.slots, deferred=self.deferred,
                              capacity=numpy.int64(self.capacity))
        self._empty = True  # every slot EMPTY, as a run that ran dry leaves them
        self._split = None  # split's (next_bound, its two functors), made on first use

    def reset(self, items, keys, bound=None):
        """Empty the queue, then queue the pairs (items[i], keys[i]).

        Parameters
        ----------
        items, keys : sequence of int
            The first pairs (host values), at most the capacity; they are queued whatever
            their keys.
        bound : int, optional
            Pairs pushed with a key from `bound` on are deferred, for `split` (a queue with
            buckets only); by default none is, as with NO_BOUND.

        Examples
        --------
        >>> from minigr.transforms import Functor, Worklist, array_module, resolve_device, worklist_transform
        >>> device = resolve_device()
        >>> seen = array_module(device).full(4, -1, dtype="int64")
        >>> note = Functor('''void operator()(int item, unsigned key, const minigr::Worklist& queue) const {
        ...     seen[item] = key;
        ...     if (item == 0) { queue.push(2, 1); queue.push(3, 5); }  // 3's key is past the bound
        ... }''', seen=seen)
        >>> queue = Worklist(8, device, buckets=True)
        >>> queue.reset([0, 1], [0, 7], bound=4)
        >>> worklist_transform(queue, note)
        >>> seen.tolist()  # 3 deferred
        [0, 7, 1, -1]
        """
        items, keys = numpy.asarray(items, dtype=numpy.int64), numpy.asarray(keys, dtype=numpy.uint64)
        if items.shape != keys.shape or items.ndim != 1 or len(items) > self.capacity:
            raise MinigrError(f"a Worklist starts with as many keys as items, at most its capacity "
                              f"({self.capacity}); got {items.shape} items and {keys.shape} keys")
        if bound is not None and not self.buckets:
            raise MinigrError("a bound defers pairs: make the Worklist with buckets=True")
        if not self._empty:  # a run that overflowed, or that nobody checked
            self.slots.fill(EMPTY)
        start = numpy.zeros(WORDS + len(items), dtype=numpy.uint64)
        start[0], start[BOUND], start[SMALLEST] = len(items) << 32, NO_BOUND if bound is None else bound, EMPTY
        start[WORDS:] = keys << numpy.uint64(32) | (items.astype(numpy.uint64) & numpy.uint64(0xffffffff))
        self._all[:len(start)] = self.xp.asarray(start)
        self._empty = False

    def split(self, next_bound):
        """Between two runs of a queue with buckets: raise the bound, and queue the deferred pairs below it.

        The bound becomes next_bound(the smallest key deferred, the pairs the last run
        queued); the deferred pairs below it are queued, the others stay deferred. Waits
        for nothing (two launches).

        Parameters
        ----------
        next_bound : Functor
            ``unsigned operator()(unsigned smallest, unsigned long long queued) const``.

        Examples
        --------
        >>> from minigr.transforms import Functor, Worklist, array_module, resolve_device, worklist_transform
        >>> device = resolve_device()
        >>> seen = array_module(device).full(4, -1, dtype="int64")
        >>> note = Functor('''void operator()(int item, unsigned key, const minigr::Worklist& queue) const {
        ...     seen[item] = key;
        ...     if (item == 0) { queue.push(1, 6); queue.push(2, 9); queue.push(3, 20); }
        ... }''', seen=seen)
        >>> queue = Worklist(8, device, buckets=True)
        >>> queue.reset([0], [0], bound=4)
        >>> worklist_transform(queue, note)  # 1, 2 and 3 deferred
        >>> queue.split(Functor("unsigned operator()(unsigned smallest, unsigned long long queued) const "
        ...                     "{ return smallest + 4; }"))
        >>> worklist_transform(queue, note)  # below 10: 1 and 2
        >>> seen.tolist()
        [0, 6, 9, -1]
        """
        if self._split is None or self._split[0] is not next_bound:
            step = Functor(_NEXT_BUCKET, filename="<next bucket>", next=next_bound, **self._captures)
            self._split = (next_bound, step, Functor(_SPLIT, filename="<split deferred>", **self._captures))
        transform(1, self._split[1])
        transform(DeviceCount(self.words.view(numpy.int64), self.capacity, TO_SPLIT), self._split[2])

    def holds_pairs(self):
        """A loop condition: the queue holds pairs (after a split), and did not overflow.

        A loop of runs in buckets has a body of ``worklist_transform(queue, f)`` and
        ``queue.split(next_bound)``, and this condition.

        Returns
        -------
        Functor
            ``bool operator()() const``, for a `minigr.enactor.Loop`.

        Examples
        --------
        >>> from minigr.enactor import Loop
        >>> from minigr.transforms import Functor, Worklist, array_module, resolve_device, worklist_transform
        >>> device = resolve_device()
        >>> hops = array_module(device).full(6, -1, dtype="int64")
        >>> walk = Functor('''void operator()(int item, unsigned key, const minigr::Worklist& queue) const {
        ...     hops[item] = key;
        ...     if (item + 1 < 6) queue.push(item + 1, key + 1);
        ... }''', hops=hops)
        >>> queue = Worklist(16, device, buckets=True)
        >>> two_more = Functor("unsigned operator()(unsigned smallest, unsigned long long queued) const "
        ...                    "{ return smallest + 2; }")
        >>> loop = Loop("chain", device, lambda: (worklist_transform(queue, walk), queue.split(two_more)),
        ...             queue.holds_pairs())
        >>> queue.reset([0], [0], bound=2)
        >>> loop.run("device", 100)
        >>> loop.wait_iterations(), hops.tolist()  # runs: keys 0-1, 2-3, 4-5
        ((3, False), [0, 1, 2, 3, 4, 5])
        """
        return Functor(_HOLDS_PAIRS, filename="<worklist holds pairs>", words=self.words)

    def wait_pushes(self):
        """The pairs the last run pushed, or None where it overflowed: waits for the run.

        Read it after a run, not before: it also tells the next reset whether the run left
        the slots empty.

        Returns
        -------
        int or None
            The pairs pushed, its first ones included (with buckets, over all its buckets,
            a deferred pair again when queued again); None where a push found the queue
            full: the run's result is then void.

        Examples
        --------
        >>> from minigr.transforms import Functor, Worklist, array_module, resolve_device, worklist_transform
        >>> device = resolve_device()
        >>> hops = array_module(device).full(5, -1, dtype="int64")
        >>> walk = Functor('''void operator()(int item, unsigned key, const minigr::Worklist& queue) const {
        ...     hops[item] = key;
        ...     if (item + 1 < 5) queue.push(item + 1, key + 1);
        ... }''', hops=hops)
        >>> queue = Worklist(3, device)
        >>> queue.reset([0], [0])
        >>> worklist_transform(queue, walk)  # 5 pushes in all, room for 3
        >>> print(queue.wait_pushes())
        None
        """
        (words,) = read_waiting(self.words)
        overflowed = bool(words[2])
        self._empty = not overflowed
        return None if overflowed else int(words[PUSHES]) + (int(words[0]) >> 32)


def workers(device, lone=False):
    """Threads that work a queue at once on `device` (worklist_transform's, with
    its `lone`): one on the CPU."""
    return multiprocessors(current_gpu()) * (LONE_WORKERS_PER_SM if lone else WORKERS_PER_SM) if device == "gpu" else 1


def worklist_transform(queue, f, lone=False, ordered=True):
    """Call f(item, key, queue) for every pair of a queue, and the pairs f pushes, until none is left.

    One launch with no levels: every thread takes the queue's next position, waits for
    its pair, calls f, which may push more with ``queue.push(item, key)``, and takes the
    next, until nothing is queued or being worked on. A chain of pushes then runs at the
    latency of its own loads, not a barrier's (label correcting: `minigr.operators.Relax`).
    The GPU takes pairs in about the order pushed, many at once; the CPU in exactly that
    order. Past its capacity a queue drops pushes and says so (`Worklist.wait_pushes`).
    Queued on the current stream; nothing waits.

    Parameters
    ----------
    queue : Worklist
        The queue, reset with its first pairs.
    f : Functor
        ``void operator()(int item, unsigned key, const minigr::Worklist& queue) const``.
    lone : bool, default False
        On the GPU, LONE_WORKERS_PER_SM (8) workers a multiprocessor, each a warp of its
        own, rather than WORKERS_PER_SM (96) threads in whole warps: for queues that hold
        little at once, where a warp's lanes would wait on each other's work.
    ordered : bool, default True
        A pair is published with a release store and taken with an acquire load, so f sees
        what its pusher wrote before the push. False: both relaxed, f sees the pair alone
        (and what atomics give it); a hop then skips a fence, for functors that need no more
        (Relax: async BFS / SSSP on USA-road-d.NY 1.75 / 2.9 ms -> 1.4 / 2.2, grid_22 12.7 /
        22.5 -> 10.9 / 19.3, H100, 2026-11-27).

    Examples
    --------
    >>> from minigr.transforms import Functor, Worklist, array_module, resolve_device, worklist_transform
    >>> device = resolve_device()
    >>> hops = array_module(device).asarray([0, 99, 99, 0, 99], dtype="int32")  # from 0 and 3
    >>> relax = Functor('''void operator()(int item, unsigned key, const minigr::Worklist& queue) const {
    ...     const int next = item + 1, better = (int)key + 1;
    ...     if (next < 5 && atomicMin(&hops[next], better) > better) queue.push(next, better);
    ... }''', hops=hops)
    >>> queue = Worklist(16, device)
    >>> queue.reset([0, 3], [0, 0])
    >>> worklist_transform(queue, relax)
    >>> hops.tolist()
    [0, 1, 2, 0, 1]
    """
    device = call_device([f], [queue.slots])
    blocks = multiprocessors(current_gpu()) if device == "gpu" else 1
    call = "minigr::worklist%s(minigr::worklist_of(words, slots, deferred, capacity, %s), f0)"
    launch(device, [("unsigned long long*", "words"), ("unsigned long long*", "slots"),
                    ("unsigned long long*", "deferred"), ("long long", "capacity")],
           [queue.words, queue.slots, queue.deferred, numpy.int64(queue.capacity)], [f],
           {"gpu": call % ("<1>" if lone else "<32>", str(ordered).lower()), "cpu": call % ("", "true")}, blocks,
           LONE_WORKERS_PER_SM * 32 if lone else WORKERS_PER_SM)
