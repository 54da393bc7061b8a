"""UnionFind: disjoint sets of vertices on the device, lock-free, as
connected components build them (WCC's Afforest): each vertex points at a
parent, the smallest id of a tree is its root, and hooking joins two trees by
putting the larger root under the smaller with a compare-and-swap."""
import numpy

from ..transforms import Functor, transform
from ..transforms.backend import array_module

# parent[v] <= v always: hooking puts a root under a smaller one, halving skips to an ancestor.
_VIEW = """
int find(int v) const {          // v's root, halving the path on the way
    for (;;) {
        const int p = parent[v];
        if (p == v) return v;
        const int g = parent[p];
        if (g == p) return p;
        parent[v] = g;
        v = g;
    }
}
void hook(int u, int v) const {  // joins the trees of u and v
    u = find(u);
    v = find(v);
    while (u != v) {
        if (u < v) { const int t = u; u = v; v = t; }
        const int old = atomicCAS(&parent[u], u, v);
        if (old == u) return;
        u = find(old);           // u got a parent meanwhile: go on from its root
        v = find(v);
    }
}"""
_START = "void operator()(long long v) const { parent[v] = (int)v; }"
_COMPRESS = "void operator()(long long v) const { parent[v] = sets.find((int)v); }"
# The roots, read only: during a compress another thread's halving may write an
# ancestor back over a root just written (not seen in 2300 runs on an H200,
# but nothing orders it), and a label per root must not see that.
_ROOT = "void operator()(long long v) const { int r = (int)v; while (parent[r] != r) r = parent[r]; root[v] = r; }"


class UnionFind:
    """Disjoint sets of the vertices [0, n) on a device: `parent` (int32),
    and `view`, which functors capture (as `sets`) to call sets.find(v) (v's
    root, halving the path to it) and sets.hook(u, v) (joins the sets of u
    and v) from any number of threads at once."""

    def __init__(self, n, device):
        self.n = n
        self.parent = array_module(device).empty(max(n, 1), dtype=numpy.int32)
        self.view = Functor(_VIEW, filename="<union-find>", parent=self.parent)
        self._start = Functor(_START, filename="<union-find start>", parent=self.parent)
        self._compress = Functor(_COMPRESS, filename="<union-find compress>", sets=self.view, parent=self.parent)

    def reset(self):
        """Every vertex a set of its own (queued)."""
        transform(self.n, self._start)

    def compress(self):
        """Every vertex pointed at its root (queued)."""
        transform(self.n, self._compress)

    def roots(self, out):
        """out[v] becomes v's root, the smallest vertex of its set (queued)."""
        transform(self.n, Functor(_ROOT, filename="<union-find root>", parent=self.parent, root=out))
