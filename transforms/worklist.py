"""worklist_transform: one kernel works through a queue of (item, key) pairs
that its own calls add to, until none is left: no levels, no barrier, no
launch or host round trip per step (see kernels/worklist.h and worklist.cuh)."""
import numpy

from .backend import array_module
from .errors import MinigrError
from .launch import call_device, current_gpu, launch, multiprocessors

EMPTY = numpy.uint64(2**64 - 1)  # a slot with no pair (worklist.h)
# Threads per SM that work the queue. Fewer poll the queue less and take pairs
# more nearly in order: BFS on USA-road-d.NY 2.66 ms with 64, 2.93 with 128,
# 3.98 with 256 (H100, 2026-11-26, .devrun/asyncprobe.py).
WORKERS_PER_SM = 64


class Worklist:
    """A queue of up to `capacity` pushes (pairs of an int32 item and a uint32
    key) on a device, for worklist_transform: its slots and counters. Made
    once and reset by each run; one run at a time may use it."""

    def __init__(self, capacity, device):
        if isinstance(capacity, bool) or not isinstance(capacity, (int, numpy.integer)) or not 1 <= capacity < 2**31:
            raise MinigrError(f"a Worklist's capacity must be an int in [1, 2^31), got {capacity!r}")
        self.xp = array_module(device)
        self.capacity = int(capacity)
        # counters [pushed << 32 | finished, taken, overflowed], then the slots: a reset is one copy
        self._words = self.xp.full(3 + self.capacity, EMPTY, dtype=numpy.uint64)
        self.counters, self.slots = self._words[:3], self._words[3:]
        self._empty = True  # every slot EMPTY, as a run that ran dry leaves them

    def reset(self, items, keys):
        """Empties the queue, then queues the pairs (items[i], keys[i]) (host sequences)."""
        items, keys = numpy.asarray(items, dtype=numpy.int64), numpy.asarray(keys, dtype=numpy.uint64)
        if items.shape != keys.shape or items.ndim != 1 or len(items) > self.capacity:
            raise MinigrError(f"a Worklist starts with as many keys as items, at most its capacity "
                              f"({self.capacity}); got {items.shape} items and {keys.shape} keys")
        if not self._empty:  # a run that overflowed, or that nobody checked
            self.slots.fill(EMPTY)
        start = numpy.empty(3 + len(items), dtype=numpy.uint64)
        start[:3] = len(items) << 32, 0, 0
        start[3:] = keys << numpy.uint64(32) | (items.astype(numpy.uint64) & numpy.uint64(0xffffffff))
        self._words[:len(start)] = self.xp.asarray(start)
        self._empty = False

    def wait_pushes(self):
        """The pairs the last run pushed (its first ones included), or None where
        a push found the queue full (the run's result is then void): waits for it."""
        counts, _, overflowed = (int(x) for x in self.counters.tolist())
        self._empty = not overflowed
        return None if overflowed else counts >> 32


def worklist_transform(queue, f):
    """Calls f(item, key, queue) for every pair of `queue`, those it holds and
    those that f pushes with queue.push(item, key) (a minigr::Worklist), until
    none is left: one launch. f is `void operator()(int item, unsigned key,
    const minigr::Worklist& queue) const`. The GPU takes pairs in about the
    order pushed, many at once; the CPU in exactly that order. Past its
    capacity a queue drops pushes and says so (Worklist.wait_pushes)."""
    device = call_device([f], [queue.slots])
    blocks = multiprocessors(current_gpu()) if device == "gpu" else 1
    call = "minigr::Worklist queue{slots, counters, capacity}; minigr::worklist(queue, f0)"
    launch(device, [("unsigned long long*", "slots"), ("unsigned long long*", "counters"), ("long long", "capacity")],
           [queue.slots, queue.counters, numpy.int64(queue.capacity)], [f], {"gpu": call, "cpu": call}, blocks,
           WORKERS_PER_SM)
