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

# bucket = [threshold, delta, ..., at LOWEST the lowest label far took since it was last split (inf:
# none)], on a 128-byte line of its own, away from the threshold every offer reads (SSSP, persistent
# loop, rgg_n22: 34.5 -> 33.7 ms, H100). Non-negative doubles order as their bits as integers:
# atomicMin on those.
LOWEST = 16
_VIEW = f"static constexpr int LOWEST = {LOWEST};\n" + """
__device__ static double infinity() { return minigr::bit_cast<double>(0x7ff0000000000000LL); }  // NVRTC has no INFINITY
__device__ bool offer(int v, double label) const {  // true: v is near, for the caller to append
    if (label < bucket[0]) return true;
    minigr::aggregated_min((unsigned long long*)&bucket[LOWEST], minigr::bit_cast<unsigned long long>(label));
    far.append_unique(v, 0);
    return false;
}
__device__ void place(int v, double label) const { if (offer(v, label)) near.append_unique(v, 0); }
// `root` (or none, -1) alone in near, far empty, the threshold at delta. By one thread.
__device__ void reset(int root, double delta) const {
    near.reset(root);
    far.reset(-1);
    bucket[0] = bucket[1] = delta;
    bucket[LOWEST] = infinity();
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
    const double raised = bucket[0] + deltas * bucket[1];
    bucket[0] = raised > bucket[0] ? raised : nextafter(bucket[0], infinity());  // a delta under its precision adds 0
    bucket[LOWEST] = infinity();
    return far.next_level();
}
// After an iteration: near's next level if it has vertices, else the threshold raised to the
// first bucket that holds a far label and far's vertices made current, to be split. Whether
// any vertex is left. By one thread.
__device__ bool next() const {
    if (next_near() > 0) return true;
    const double threshold = bucket[0], delta = bucket[1], lowest = bucket[LOWEST];
    const long long far = raise_threshold(lowest >= threshold ? floor((lowest - threshold) / delta) + 1 : 1);
    // past far's lowest label whatever the rounding (a delta far under the labels' precision), lest the
    // split send it far again, and again
    if (lowest < infinity() && !(bucket[0] > lowest)) bucket[0] = nextafter(lowest, infinity());
    return far > 0;
}"""
_SPLIT = "void operator()(long long i) const { const int v = buckets.far.vertex(i); buckets.place(v, label(v)); }"
_NEXT = "bool operator()() const { return buckets.next(); }"


class Buckets:
    """Delta-stepping's buckets over the vertices of an n-vertex graph, on the device.

    The near and far piles of Gunrock's SSSP (see the module's text): a vertex whose
    label fell is offered with it, and joins near below the threshold, else far, which
    keeps its lowest label; when near runs dry the threshold rises past the empty
    buckets, and `split` offers far's vertices again. Labels are non-negative; the state
    stays on the device, so a loop over the buckets needs no host round trip. SSSP's relax
    (apps/sssp.py) captures the view: its cond ends with ``return improved &&
    buckets.offer(dst, candidate);``, and advance appends to near.

    Parameters
    ----------
    n : int
        The number of vertices.
    device : {'gpu', 'cpu'}, optional
        Where the buckets live; by default $MINIGR_DEVICE, else the GPU when there is one.

    Attributes
    ----------
    near, far : Frontier
        The two buckets.
    bucket : array
        float64 [threshold, delta, far's lowest label]; `threshold` is its first cell.
    view : Functor
        What functors capture (as ``buckets``) to call, on the device, ``offer(v, label)``
        (true: v is near, for the caller to append), ``place(v, label)`` (offers, and
        appends a near v), ``reset(root, delta)`` (`root`, or none for -1, alone in near,
        far empty, the threshold at delta), ``next()`` and its two steps ``next_near()``
        and ``raise_threshold(deltas)``, each by one thread.

    Examples
    --------
    Labels below 1 go near, the others far; once near ran dry, the threshold rises to the
    bucket of far's lowest label, 1.7, and a split sends that vertex near:

    >>> from minigr.operators import Buckets
    >>> from minigr.transforms import Functor, array_module, resolve_device, transform
    >>> device = resolve_device()
    >>> label = array_module(device).asarray([0.0, 0.5, 3.2, 1.7])
    >>> buckets = Buckets(4, device)
    >>> transform(1, Functor('''void operator()(long long) const {
    ...     buckets.reset(-1, 1.0);  // empty, delta 1
    ...     for (int v = 0; v < 4; ++v) buckets.place(v, label[v]);
    ... }''', buckets=buckets.view, label=label))
    >>> step = Functor("void operator()(long long) const { next(); }", next=buckets.next_condition())
    >>> transform(1, step)
    >>> sorted(buckets.near.wait_ids().tolist())
    [0, 1]
    >>> transform(1, step)
    >>> buckets.threshold.tolist()
    [2.0]
    >>> buckets.split(Functor("double operator()(int v) const { return label[v]; }", label=label))
    >>> transform(1, step)
    >>> buckets.near.wait_ids().tolist()
    [3]
    """

    def __init__(self, n, device=None):
        self.near, self.far = Frontier(n, device), Frontier(n, device)
        self.bucket = self.near.xp.zeros(LOWEST + 1, dtype=numpy.float64)
        self.threshold = self.bucket[0:1]
        self.view = Functor(_VIEW, filename="<buckets>", headers=(FRONTIER_HEADER,), near=self.near.view,
                            far=self.far.view, bucket=self.bucket)

    def split(self, label):
        """Offer far's current level again, each vertex with its label: near or far again.

        Each vertex v of far's current level is offered with label(v): it joins near's
        next level or stays far. Nothing to do (a launch with no items) unless next() just
        raised the threshold. Queued on the current stream; nothing waits.

        Parameters
        ----------
        label : Functor
            ``double operator()(int v) const``: v's label now.

        Examples
        --------
        >>> from minigr.operators import Buckets
        >>> from minigr.transforms import Functor, array_module, resolve_device, transform
        >>> device = resolve_device()
        >>> label = array_module(device).asarray([2.5, 1.5])
        >>> buckets = Buckets(2, device)
        >>> transform(1, Functor('''void operator()(long long) const {
        ...     buckets.reset(-1, 1.0);
        ...     buckets.place(0, label[0]);
        ...     buckets.place(1, label[1]);
        ...     buckets.next();  // near is empty: the threshold rises to 2, far's level made current
        ... }''', buckets=buckets.view, label=label))
        >>> buckets.split(Functor("double operator()(int v) const { return label[v]; }", label=label))
        >>> buckets.near.next_level()
        >>> buckets.near.wait_ids().tolist()
        [1]
        """
        transform(self.far.size, Functor(_SPLIT, filename="<buckets split>", buckets=self.view, label=label))

    def next_condition(self):
        """A loop condition that moves the buckets on: next(), by one thread.

        next() makes near's next level current if it has vertices; else it raises the
        threshold to the first bucket that holds a far label and makes far's vertices
        current, for `split`. It holds while any vertex is left.

        Returns
        -------
        Functor
            ``bool operator()() const``, for a `minigr.enactor.Loop`.

        Examples
        --------
        >>> from minigr.enactor import Loop
        >>> from minigr.operators import Buckets
        >>> from minigr.transforms import Functor, array_module, resolve_device
        >>> device = resolve_device()
        >>> label = array_module(device).asarray([0.0, 0.5, 1.5])
        >>> buckets = Buckets(3, device)
        >>> start = Functor('''void operator()(long long) const {
        ...     buckets.reset(0, 1.0);  // 0 alone in near, the threshold at 1
        ...     buckets.place(1, label[1]);
        ...     buckets.place(2, label[2]);
        ... }''', buckets=buckets.view, label=label)
        >>> distance = Functor("double operator()(int v) const { return label[v]; }", label=label)
        >>> loop = Loop("buckets", device, lambda: buckets.split(distance), buckets.next_condition(),
        ...             checks=buckets.overflow_checks())
        >>> loop.run("device", 10, before=(1, start))
        >>> loop.wait_iterations()  # bodies: near {0}, near {1}, far {2} split, near {2}
        (4, False)
        """
        return Functor(_NEXT, filename="<buckets next>", buckets=self.view)

    def overflow_checks(self):
        """The overflow checks of both buckets' frontiers, for a Loop's `checks`.

        Returns
        -------
        list of tuple
            (flag, message) of near, then of far (see Frontier.overflow_check).

        Examples
        --------
        >>> from minigr.operators import Buckets
        >>> from minigr.transforms import resolve_device
        >>> [flag.tolist() for flag, message in Buckets(3, resolve_device()).overflow_checks()]
        [[0], [0]]
        """
        return [self.near.overflow_check(), self.far.overflow_check()]
