"""Buckets: delta-stepping's two-level priority queue over vertices (the
near and far piles of Gunrock's SSSP). A vertex whose label fell is offered
with that label: below the threshold it joins the near bucket's next level,
which an advance works through; else the far bucket, which keeps its lowest
label. When near runs dry, the threshold rises past the empty buckets to the
first that holds a far label (next; the parts of a partitioned graph, whose
far labels no part sees all of, raise it one delta at a time), and far's
vertices are offered again (split).
Labels are non-negative; the state stays on the device, so a loop over the
buckets needs no host round trip."""
import numpy

from ..frontier import HEADER as FRONTIER_HEADER
from ..frontier import Frontier
from ..transforms import Functor, transform

# bucket = [threshold, delta, the lowest label far took since it was last split (inf: none)].
# Non-negative doubles order as their bits as integers: atomicMin on those.
_VIEW = """__device__ bool offer(int v, double label) const {  // true: v is near, for the caller to append
    if (label < bucket[0]) return true;
    atomicMin((long long*)&bucket[2], minigr::bit_cast<long long>(label));
    far.append_unique(v, 0);
    return false;
}
__device__ void place(int v, double label) const { if (offer(v, label)) near.append_unique(v, 0); }
// `root` (or none, -1) alone in near, far empty, the threshold at delta. By one thread.
__device__ void reset(int root, double delta) const {
    near.reset(root);
    far.reset(-1);
    bucket[0] = bucket[1] = delta;
    bucket[2] = minigr::bit_cast<double>(0x7ff0000000000000LL);
}
// Near's next level made current (far's level, split already, dropped): its size. By one thread.
__device__ long long next_near() const {
    far.drop_level();
    return near.next_level();
}
// The threshold raised by `deltas` deltas, far's lowest label forgotten and far's vertices made
// current, to be split: how many. next() skips the empty buckets; parts of a graph raise by one
// in lockstep, as another part may hold labels where this one has none. By one thread.
__device__ long long raise_threshold(double deltas) const {
    bucket[0] += deltas * bucket[1];
    bucket[2] = minigr::bit_cast<double>(0x7ff0000000000000LL);
    return far.next_level();
}
// After an iteration: near's next level if it has vertices, else the threshold raised to the
// first bucket that holds a far label and far's vertices made current, to be split. Whether
// any vertex is left. By one thread.
__device__ bool next() const {
    if (next_near() > 0) return true;
    const double threshold = bucket[0], delta = bucket[1], lowest = bucket[2];
    return raise_threshold(lowest >= threshold ? floor((lowest - threshold) / delta) + 1 : 1) > 0;
}"""
_SPLIT = "void operator()(long long i) const { const int v = buckets.far.vertex(i); buckets.place(v, label(v)); }"
_NEXT = "bool operator()() const { return buckets.next(); }"


class Buckets:
    """Delta-stepping's buckets over the vertices of an n-vertex graph on
    `device`: `near` and `far` (Frontiers), and `view`, which functors capture
    (as `buckets`) to call offer(v, label), place(v, label), reset(root, delta),
    next(), and its two steps next_near() and raise_threshold(deltas), on the
    device (see the module's text). `bucket` holds [threshold, delta, far's
    lowest label]; `threshold` is its first cell. SSSP's relax (apps/sssp.py)
    captures it: its cond ends with `return improved && buckets.offer(dst,
    candidate);`, and advance appends to near."""

    def __init__(self, n, device):
        self.near, self.far = Frontier(n, device), Frontier(n, device)
        self.bucket = self.near.xp.zeros(3, dtype=numpy.float64)
        self.threshold = self.bucket[0:1]
        self.view = Functor(_VIEW, filename="<buckets>", headers=(FRONTIER_HEADER,), near=self.near.view,
                            far=self.far.view, bucket=self.bucket)

    def split(self, label):
        """Offers far's current level again, each vertex v with label(v) (a
        Functor with `double operator()(int v) const`): it joins near's next
        level or stays far. Nothing to do (a launch with no items) unless next()
        just raised the threshold."""
        transform(self.far.size, Functor(_SPLIT, filename="<buckets split>", buckets=self.view, label=label))

    def next_condition(self):
        """A loop condition: next() (see the module's text)."""
        return Functor(_NEXT, filename="<buckets next>", buckets=self.view)

    def overflow_checks(self):
        """The checks of both frontiers, for a Loop."""
        return [self.near.overflow_check(), self.far.overflow_check()]
