"""UnionFind: disjoint sets of vertices on the device, lock-free, as
connected components build them (WCC's Afforest): each vertex points at a
parent, the smallest id of a tree is its root, and hooking joins two trees by
putting the larger root under the smaller with a compare-and-swap."""
import numpy

from ..transforms import Functor, transform
from ..transforms.backend import array_module, resolve_device

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
    """Disjoint sets of the vertices [0, n) on a device, joined lock-free from any number of threads.

    As connected components build them (WCC's Afforest): each vertex points at a parent
    with an id no larger than its own, a set's root is its smallest vertex, and hooking
    two sets puts the larger root under the smaller with a compare-and-swap.

    Parameters
    ----------
    n : int
        The number of vertices.
    device : {'gpu', 'cpu'}, optional
        Where the sets live; by default $MINIGR_DEVICE, else the GPU when there is one
        (as Buckets and Frontier take it).

    Attributes
    ----------
    parent : array
        int32, each vertex's parent (a root is its own).
    view : Functor
        What functors capture (as ``sets``) to call ``sets.find(v)`` (v's root, halving
        the path to it) and ``sets.hook(u, v)`` (joins the sets of u and v).

    Examples
    --------
    Weakly connected components, every edge hooked at once:

    >>> import minigr
    >>> from minigr.operators import AdvanceFunctor, UnionFind, advance
    >>> graph = minigr.Graph.from_edges([0, 2, 4], [1, 3, 3])
    >>> sets = UnionFind(graph.num_vertices, graph.device)
    >>> sets.reset()
    >>> advance(graph, None, AdvanceFunctor(cond="sets.hook(src, dst); return false;", sets=sets.view))
    >>> component = graph.xp.empty(graph.num_vertices, dtype="int32")
    >>> sets.roots(component)
    >>> component.tolist()
    [0, 0, 2, 2, 2]
    """

    def __init__(self, n, device=None):
        self.n = n
        self.parent = array_module(resolve_device(device)).empty(max(n, 1), dtype=numpy.int32)
        self.view = Functor(_VIEW, filename="<union-find>", parent=self.parent)
        self._start = Functor(_START, filename="<union-find start>", parent=self.parent)
        self._compress = Functor(_COMPRESS, filename="<union-find compress>", sets=self.view, parent=self.parent)

    def reset(self):
        """Make every vertex a set of its own.

        Queued on the current stream; nothing waits.

        Examples
        --------
        >>> from minigr.operators import UnionFind
        >>> from minigr.transforms import resolve_device
        >>> sets = UnionFind(3, resolve_device())
        >>> sets.reset()
        >>> sets.parent.tolist()
        [0, 1, 2]
        """
        transform(self.n, self._start)

    def compress(self):
        """Point vertices at their roots, or nearer them, so that later finds are short.

        Each vertex ends under a smaller or equal id of its own set: its root, but where
        another thread's path halving during the compress wrote an ancestor back over a
        root just written (nothing orders them; a GPU has shown it). `roots` reads the
        roots exactly. Queued on the current stream; nothing waits.

        Examples
        --------
        >>> from minigr.operators import UnionFind
        >>> from minigr.transforms import Functor, resolve_device, transform
        >>> sets = UnionFind(4, resolve_device())
        >>> sets.reset()
        >>> chain = Functor("void operator()(long long i) const { if (i > 0) sets.hook((int)i - 1, (int)i); }",
        ...                 sets=sets.view)
        >>> transform(4, chain)
        >>> sets.compress()
        >>> root = sets.parent.copy()
        >>> sets.roots(root)
        >>> root.tolist()
        [0, 0, 0, 0]
        """
        transform(self.n, self._compress)

    def roots(self, out):
        """Write each vertex's root, the smallest vertex of its set, reading the sets only.

        Queued on the current stream; nothing waits.

        Parameters
        ----------
        out : array
            One int32 cell per vertex (n at least): out[v] becomes v's root.

        Examples
        --------
        >>> from minigr.operators import UnionFind
        >>> from minigr.transforms import Functor, resolve_device, transform
        >>> sets = UnionFind(5, resolve_device())
        >>> sets.reset()
        >>> transform(1, Functor("void operator()(long long) const { sets.hook(4, 1); sets.hook(3, 4); }",
        ...                      sets=sets.view))
        >>> root = sets.parent.copy()
        >>> sets.roots(root)
        >>> root.tolist()
        [0, 1, 2, 1, 1]
        """
        transform(self.n, Functor(_ROOT, filename="<union-find root>", parent=self.parent, root=out))
