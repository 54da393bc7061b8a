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
WORDS, BOUND, SMALLEST, TO_SPLIT, PUSHES = 10, 3, 4, 8, 9  # worklist.h's worklist_word
# Threads per SM that work the queue. Fewer poll the queue less and take pairs
# more nearly in order: BFS on USA-road-d.NY 2.66 ms with 64, 2.93 with 128,
# 3.98 with 256 (H100, 2026-11-26, .devrun/asyncprobe.py).
WORKERS_PER_SM = 64
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
    """A queue of up to `capacity` pushes (pairs of an int32 item and a uint32
    key) on a device, for worklist_transform: its words and slots, and with
    `buckets`, two lists of as many deferred pairs. Made once and reset by
    each run; one run at a time may use it."""

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
        """Empties the queue, then queues the pairs (items[i], keys[i]) (host
        sequences). Pairs pushed with a key from `bound` on are deferred (a
        queue with buckets; by default none is, as with NO_BOUND)."""
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
        """Between two runs of a queue with buckets: raises the bound to
        next_bound(the smallest key deferred, the pairs the last run queued) (a
        Functor with `unsigned operator()(unsigned smallest, unsigned long long
        queued) const`) and queues the deferred pairs below it (the others stay
        deferred). Waits for nothing."""
        if self._split is None or self._split[0] is not next_bound:
            step = Functor(_NEXT_BUCKET, filename="<next bucket>", next=next_bound, **self._captures)
            self._split = (next_bound, step, Functor(_SPLIT, filename="<split deferred>", **self._captures))
        transform(1, self._split[1])
        transform(DeviceCount(self.words.view(numpy.int64), self.capacity, TO_SPLIT), self._split[2])

    def holds_pairs(self):
        """A loop condition: the queue has pairs (after a split), and did not overflow."""
        return Functor(_HOLDS_PAIRS, filename="<worklist holds pairs>", words=self.words)

    def wait_pushes(self):
        """The pairs the last run pushed (its first ones included; with buckets,
        over all its buckets, a deferred pair again when queued again), or None
        where a push found the queue full (the run's result is then void):
        waits for it."""
        (words,) = read_waiting(self.words)
        overflowed = bool(words[2])
        self._empty = not overflowed
        return None if overflowed else int(words[PUSHES]) + (int(words[0]) >> 32)


def workers(device, lone=False):
    """Threads that work a queue at once on `device` (worklist_transform's, with
    its `lone`): one on the CPU."""
    return multiprocessors(current_gpu()) * (LONE_WORKERS_PER_SM if lone else WORKERS_PER_SM) if device == "gpu" else 1


def worklist_transform(queue, f, lone=False):
    """Calls f(item, key, queue) for every pair of `queue`, those it holds and
    those that f pushes with queue.push(item, key) (a minigr::Worklist), until
    none is left: one launch. f is `void operator()(int item, unsigned key,
    const minigr::Worklist& queue) const`. The GPU takes pairs in about the
    order pushed, many at once: WORKERS_PER_SM a multiprocessor, the lanes of
    whole warps, or with `lone` LONE_WORKERS_PER_SM, each a warp of its own (for
    queues that hold little at once, where a warp's lanes would wait on each
    other's work); the CPU in exactly that order. Past its capacity a queue
    drops pushes and says so (Worklist.wait_pushes)."""
    device = call_device([f], [queue.slots])
    blocks = multiprocessors(current_gpu()) if device == "gpu" else 1
    call = "minigr::worklist{}(minigr::worklist_of(words, slots, deferred, capacity), f0)"
    launch(device, [("unsigned long long*", "words"), ("unsigned long long*", "slots"),
                    ("unsigned long long*", "deferred"), ("long long", "capacity")],
           [queue.words, queue.slots, queue.deferred, numpy.int64(queue.capacity)], [f],
           {"gpu": call.format("<1>" if lone else "<32>"), "cpu": call.format("")}, blocks,
           LONE_WORKERS_PER_SM * 32 if lone else WORKERS_PER_SM)
