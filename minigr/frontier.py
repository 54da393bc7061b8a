"""Frontier: the vertices of a traversal's current level and the next one
being built, on one device, in buffers that live as long as the frontier.
Operators read the current level and append to the next; next_level() (or a
loop's condition, on the device) makes the next level current. Its sizes stay
on the device, so a loop over levels needs no host round trip. A frontier may
keep its levels, for a backward pass that walks them again (previous_level)."""
from pathlib import Path

import numpy

from .transforms import DeviceCount, Functor, transform
from .transforms.backend import array_module, read_waiting, resolve_device
from .transforms.errors import MinigrError

HEADER = Path(__file__).parent / "operators" / "kernels" / "frontier.h"
FIELDS, HEAD, END, TAIL, SIZE, EDGES, NEXT_EDGES, NUMBER, OVERFLOW, LEVEL = 33, 0, 1, 16, 3, 4, 32, 6, 7, 8
MAX_IDS = 2**31 - 1  # a frontier's ids are int32

# The device view that operators and conditions capture (see frontier.h).
_VIEW = """__device__ int vertex(long long i) const { return minigr::level_vertex(*this, i); }
__device__ void append(int v, long long edges) const { minigr::append_vertex<%(edges)s>(*this, v, edges); }
__device__ void append_unique(int v, long long edges) const { minigr::append_unique<%(edges)s>(*this, v, edges); }
__device__ bool first_this_level(int v) const { return minigr::first_this_level(*this, v); }
// Appends staged by a block's pass (see frontier.h): every thread opens and closes the pass together.
__device__ void stage(int v, long long edges) const { minigr::stage_vertex<%(edges)s>(*this, v, edges); }
__device__ void open_staged() const { minigr::open_staged(*this); }
__device__ void close_staged() const { minigr::close_staged<%(edges)s>(*this); }
__device__ long long next_level() const { return minigr::next_level(*this); }
__device__ long long previous_level() const { return minigr::previous_level(*this); }
__device__ long long level() const { return bounds[minigr::level::LEVEL] - 1; }
__device__ long long kept_vertices() const { return bounds[minigr::level::END]; }
__device__ void drop_level() const { minigr::drop_level(*this); }
__device__ long long size() const { return bounds[minigr::level::SIZE]; }
__device__ long long level_edges() const { return bounds[minigr::level::EDGES]; }
__device__ long long appended() const { return bounds[minigr::level::TAIL] - bounds[minigr::level::END]; }
__device__ long long appended_edges() const { return bounds[minigr::level::NEXT_EDGES]; }
// Empty levels, and a new level number, so that no stamp matches; `one` (a vertex, or -1 for
// none) alone is made the current level. By one thread, with no other work on the frontier.
__device__ void reset(int one) const {
    const long long number = bounds[minigr::level::NUMBER] + 1;
    for (int field = 0; field < minigr::level::FIELDS; ++field) bounds[field] = 0;
    bounds[minigr::level::NUMBER] = number;
    if (one < 0) return;
    append_unique(one, 0);
    next_level();
}"""
_NEXT_LEVEL = "void operator()(long long) const { frontier.next_level(); }"
_PREVIOUS_LEVEL = "void operator()(long long) const { frontier.previous_level(); }"
_NOT_EMPTY = "bool operator()() const { return frontier.next_level() > 0; }"
_PREVIOUS_NOT_EMPTY = "bool operator()() const { return frontier.previous_level() > 0; }"
_SEED = "void operator()(long long i) const { frontier.append_unique(ids[i], 0); }"
# Functors rather than CuPy calls, which CuPy would compile on first use (0.1 s each on an H100).
_UNSTAMPED = "void operator()(long long v) const { stamps[v] = -1; }"
_RESET = "void operator()(long long) const { frontier.reset(one); }"


class Frontier:
    """Vertex ids in [0, num_vertices): a ring of `capacity` ids (default twice
    the vertex count, enough for a level and the next when each holds a vertex
    at most once; unique appends ensure that). edges: keep the out-edge count
    of each level (what advance appends says it), for direction choices.
    levels: keep up to that many levels since the reset, their room never
    reused (capacity must then hold them all), so that previous_level() can
    walk them back; on the device, level() is the current one's number and
    kept_vertices() counts the vertices of the levels up to it. 0: a ring."""

    def __init__(self, num_vertices, device=None, capacity=None, edges=False, levels=0):
        self.num_vertices = int(num_vertices)
        if self.num_vertices > MAX_IDS:  # ktruss's frontier holds edge ids, which can pass int32
            raise MinigrError(f"a frontier holds int32 ids, below {MAX_IDS + 1}; got {self.num_vertices} items")
        self.device = resolve_device(device)
        self.xp = array_module(self.device)
        self.capacity = max(1, 2 * self.num_vertices if capacity is None else int(capacity))
        self.ids = self.xp.empty(self.capacity, dtype=numpy.int32)
        self.stamps = self.xp.empty(max(self.num_vertices, 1), dtype=numpy.int64)  # level numbers: they never wrap
        transform(len(self.stamps), Functor(_UNSTAMPED, filename="<frontier unstamped>", stamps=self.stamps))
        self.bounds = self.xp.zeros(FIELDS, dtype=numpy.int64)
        self.levels = self.xp.zeros(int(levels) + 1, dtype=numpy.int64)  # where each kept level starts
        self.view = Functor(_VIEW % {"edges": "true" if edges else "false"}, filename="<frontier>",
                            headers=(HEADER,), ids=self.ids, bounds=self.bounds, stamps=self.stamps,
                            capacity=numpy.int64(self.capacity), levels=self.levels, kept=numpy.int64(levels))
        self.size = DeviceCount(self.bounds, min(self.capacity, max(self.num_vertices, 1)), SIZE, stable=True)
        self._reset = Functor(_RESET, filename="<frontier reset>", frontier=self.view, one=numpy.int32(-1))

    @classmethod
    def from_ids(cls, ids, num_vertices, device=None, capacity=None):
        """A frontier whose current level is the given vertex ids (each once)."""
        frontier = cls(num_vertices, device, capacity)
        frontier.reset(ids)
        return frontier

    def reset(self, ids=()):
        """Makes `ids` (one vertex, or an array of them; checked to be in range;
        duplicates dropped) the current level, level 0, with an empty next one.
        One vertex needs no copy to the device. Without ids, the frontier is
        empty and no level current yet: what is appended becomes level 0 at
        the next next_level() (seeds appended on the device)."""
        one = isinstance(ids, (int, numpy.integer))
        on_device = type(ids).__module__.startswith("cupy")  # checked there, then read
        checked = ids.ravel() if on_device else numpy.asarray([ids] if one else ids).ravel()
        if len(checked) and (int(checked.min()) < 0 or int(checked.max()) >= self.num_vertices):
            raise MinigrError(f"frontier ids must be in [0, {self.num_vertices}), got "
                              f"{int(checked.min())}..{int(checked.max())}")
        if one:  # one launch
            transform(1, self._reset.with_values(one=ids))
            return
        transform(1, self._reset)
        if not len(checked):
            return
        ids = self.xp.asarray(checked, dtype=numpy.int32)
        transform(len(ids), Functor(_SEED, filename="<frontier seed>", frontier=self.view, ids=ids))
        self.next_level()

    def next_level(self):
        """Makes the appended vertices the current level (a one-thread kernel)."""
        transform(1, Functor(_NEXT_LEVEL, filename="<next level>", frontier=self.view))

    def previous_level(self):
        """Makes the level before the current one current again (a frontier
        keeping its levels; an empty level where there is none): a one-thread kernel."""
        transform(1, Functor(_PREVIOUS_LEVEL, filename="<previous level>", frontier=self.view))

    def not_empty(self):
        """A loop condition: makes the next level current and holds if it has vertices."""
        return Functor(_NOT_EMPTY, filename="<frontier not empty>", frontier=self.view)

    def previous_not_empty(self):
        """A loop condition for a frontier keeping its levels, the backward
        counterpart of not_empty(): makes the previous level current and holds
        if there was one, so that a loop walks the levels back down to level 0."""
        return Functor(_PREVIOUS_NOT_EMPTY, filename="<frontier previous not empty>", frontier=self.view)

    def wait_size(self):
        """The current level's vertex count, or a MinigrError where an append found the ring
        full (see overflow_check): waits for the work queued before it."""
        (bounds,) = read_waiting(self.bounds[SIZE:OVERFLOW + 1])  # one copy: the size and the flag
        if bounds[OVERFLOW - SIZE]:
            raise MinigrError(self.overflow_check()[1])
        return int(bounds[0])

    def wait_ids(self):
        """The current level's ids (a copy, int32, in ring order): waits for them."""
        self.check_waiting()
        head, end = (int(x) for x in self.bounds[HEAD:END + 1].tolist())
        if end <= self.capacity:
            return self.ids[head:end].copy()
        return self.xp.concatenate([self.ids[head:], self.ids[:end - self.capacity]])

    def overflow_check(self):
        """(flag, message): the device cell an append sets where it found the ring full (the
        results are then void), and what to say then; a Loop reads it with its state (its checks)."""
        return self.bounds[OVERFLOW:OVERFLOW + 1], (
            f"a frontier of capacity {self.capacity} overflowed: a level and the next (or the levels it keeps) "
            "held more vertices than that, or it kept more levels than it may; pass a larger capacity, or "
            "append each vertex once a level")

    def check_waiting(self):
        """Raises if an append ever found the ring full (see overflow_check): waits."""
        flag, message = self.overflow_check()
        if read_waiting(flag)[0][0]:
            raise MinigrError(message)

    def __repr__(self):
        return f"Frontier(num_vertices={self.num_vertices}, capacity={self.capacity}, device={self.device!r})"
