"""TEMPORARY, tests only: a stand-in for transforms.intersect_transform (issue 19, branch
issue-19i) so that the triangle primitives can be tested before the transform lands on main;
conftest installs it only where minigr.transforms has none. Built from segment_transform: each
item of a pair's range a is binary-searched in range b. Items are taken to be distinct within a
range (the primitives' lists are). Delete with the rebase onto the real transform."""
import numpy

from minigr.transforms import Functor, segment_transform
from minigr.transforms.functor import c_type

_BOUNDS = """void operator()(long long p, long long& begin, long long& end) const {
    long long b_begin = 0, b_end = 0;
    pairs(p, begin, end, b_begin, b_end);
}"""
_SEARCH = """void operator()(long long ia, long long p, long long) const {
    long long a_begin = 0, a_end = 0, lo = 0, hi = 0;
    pairs(p, a_begin, a_end, lo, hi);
    const long long end = hi;
    while (lo < hi) {
        const long long mid = (lo + hi) / 2;
        if (items[mid] < items[ia]) lo = mid + 1; else hi = mid;
    }
    if (lo < end && items[lo] == items[ia]) {
        f(p, ia, lo);
        atomicAdd(&out[p], 1ll);
    }
}"""
_NOTHING = "void operator()(long long p, long long ia, long long ib) const {}"


def intersect_transform(n, pairs, items, f=None, out=None):
    """As the real one (see the module docstring for what it leaves out)."""
    xp = numpy if isinstance(items, numpy.ndarray) else __import__("cupy")
    counts = xp.zeros(max(int(n), 1), dtype=numpy.int64)
    assert c_type(items.dtype) in ("int32_t", "int64_t")
    segment_transform(int(n), Functor(_BOUNDS, filename="<standin bounds>", pairs=pairs),
                      Functor(_SEARCH, filename="<standin search>", pairs=pairs, items=items, out=counts,
                              f=f or Functor(_NOTHING, filename="<standin nothing>")))
    if out is not None:
        out[...] = counts[:int(n)]
    return out
