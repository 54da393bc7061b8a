"""Graph: a CSR adjacency on one device, with a transpose built on demand."""
import contextlib
import numbers
import threading

import numpy as np

from .arrays import check_room, from_any, on_device, sort, to_host
from .transforms import Functor, compact_transform, lbs_transform, transform
from .transforms.api import Partition
from .transforms.backend import array_module, resolve_device
from .transforms.errors import MinigrError
from .transforms.loop import capturing

MAX_VERTICES = np.iinfo(np.int32).max  # column indices are int32
DROPPED = np.int64(np.iinfo(np.int64).max)  # the key of an edge left out; it sorts last

# Graph's steps on either device, as functors: CuPy would compile a kernel for each
# elementwise operation on first use (0.1 s apiece on an H100; a functor's kernel, 0.02 s).
DEGREES = "void operator()(long long v) const { degrees[v] = row_offsets[v + 1] - row_offsets[v]; }"
ROWS = "void operator()(long long idx, long long row, long long rank) const { rows[idx] = row; }"
# Edge i's key, src << shift | dst, and with symmetrize its reverse's, at m + i.
EDGE_KEYS = """void operator()(long long i) const {
    const long long s = src[i], d = dst[i];
    key[i] = s == d && drop_loops ? dropped : s << shift | d;
    if (symmetrize) key[m + i] = s == d ? dropped : d << shift | s;
}"""
# Sorted keys kept: all but the dropped ones, and with dedupe all but repeats; and where
# they (and their weights) go.
KEPT_KEY = """bool operator()(long long i) const {
    return key[i] != dropped && !(dedupe && i > 0 && key[i] == key[i - 1]);
}"""
WRITE_KEY = "void operator()(long long dest, long long i) const { kept[dest] = key[i]; }"
WRITE_WEIGHTED_KEY = """void operator()(long long dest, long long i) const {
    kept[dest] = key[i];
    kept_weights[dest] = weights[i];
}"""
# The CSR of `count` sorted keys: column i, and row i's offset, the first key of row i or a
# later row (a binary search).
CSR = """void operator()(long long i) const {
    if (i < count) col_indices[i] = key[i] & ((1ll << shift) - 1);
    if (i <= n) {
        long long low = 0, high = count;
        while (low < high) {
            const long long middle = (low + high) / 2;
            if (key[middle] < i << shift) low = middle + 1; else high = middle;
        }
        row_offsets[i] = low;
    }
}"""

# Edge e, from row u to v: its reverse v -> u, of duplicate copies the one of the same rank among
# its copies (rows sort copies by weight); -1 where there is none.
REVERSE_EDGE = """void operator()(long long e, long long u, long long) const {
    const int v = col_indices[e];
    const long long mirror = lower_bound(v, (int)u) + (e - lower_bound((int)u, v));
    reverse[e] = mirror < row_offsets[v + 1] && col_indices[mirror] == u ? mirror : -1;
}
long long lower_bound(int row, int col) const {
    long long low = row_offsets[row], high = row_offsets[row + 1];
    while (low < high) { const long long m = (low + high) / 2; if (col_indices[m] < col) low = m + 1; else high = m; }
    return low;
}"""


class Graph:
    """A graph in CSR form: out-neighbours of vertex v are
    ``col_indices[row_offsets[v]:row_offsets[v + 1]]``, sorted, with the matching weights.

    Build one with `minigr.load` or the ``from_*`` constructors, which check their input;
    the constructor itself wraps arrays that are valid already. An undirected graph stores
    every edge in both directions.

    Parameters
    ----------
    row_offsets : array
        int64, length V + 1.
    col_indices : array
        int32, one per stored edge.
    weights : array or None
        float32, one per stored edge.
    directed : bool, default True
        Whether the edges have a direction.
    device : {'cpu', 'gpu'}, default 'cpu'
        Where the arrays live: NumPy on the CPU, CuPy on the GPU. ``xp`` is that array
        module, and ``gpu`` the id of the GPU that holds them (None on the CPU). ``lock``:
        the primitives (minigr.bfs, ...) hold it for their run, so threads may share a graph.

    Examples
    --------
    >>> import minigr
    >>> graph = minigr.Graph.from_edges([0, 0, 1], [1, 2, 2])
    >>> graph.num_vertices, graph.num_edges, graph.col_indices.tolist()
    (3, 3, [1, 2, 2])
    """

    def __init__(self, row_offsets, col_indices, weights=None, *, directed=True, device="cpu"):
        """Wrap CSR arrays that are already valid (use the from_* constructors to validate)."""
        self.device = device
        self.xp = array_module(device)
        self.row_offsets = on_device(row_offsets, device)
        self.col_indices = on_device(col_indices, device)
        self.weights = on_device(weights, device)
        self.gpu = self.row_offsets.device.id if device == "gpu" else None
        self.directed = bool(directed)
        self._reverse = self._vertex_partition = self._self_loops = None
        self._in_blocks = {}  # parts -> in_blocks(parts)
        self.problems = {}  # primitives' buffers and loops on this graph (minigr.enactor.problem)
        self.lock = threading.RLock()  # held by a primitive's run, which uses those buffers
        # What operators look up on every call, made now: inside a loop captured on
        # the device, nothing may wait for the GPU or allocate.
        with self.on_its_gpu():
            self.max_out_degree = int(self.out_degrees().max()) if self.num_vertices else 0
            self.row_partition = Partition(self.row_offsets, self.num_edges)  # merge-path partition of the rows

    @property
    def num_vertices(self):
        return len(self.row_offsets) - 1

    @property
    def num_edges(self):
        """Stored directed edges (an undirected edge counts twice, a self-loop once)."""
        return len(self.col_indices)

    def __repr__(self):
        kind = "directed" if self.directed else "undirected"
        weighted = "weighted" if self.weights is not None else "unweighted"
        return (f"Graph(num_vertices={self.num_vertices}, num_edges={self.num_edges}, "
                f"{kind}, {weighted}, device={self.device!r})")

    def on_its_gpu(self):
        """A `with` context in which CuPy's current device is the graph's GPU
        (where its primitives must run); nothing on the CPU."""
        if self.gpu is None:
            return contextlib.nullcontext()
        import cupy
        return cupy.cuda.Device(self.gpu)

    def out_degrees(self):
        """Out-degree of every vertex (int64, on the graph's device)."""
        degrees = self.xp.empty(self.num_vertices, np.int64)
        transform(self.num_vertices, Functor(DEGREES, filename="<out degrees>", row_offsets=self.row_offsets,
                                             degrees=degrees))
        return degrees

    def edge_sources(self):
        """Source vertex of every stored edge (int64, on the graph's device): the CSR rows
        expanded to one entry per edge."""
        return _edge_rows(self.xp, self.row_offsets, self.num_edges, self.row_partition)

    def simple(self, self_loops=True):
        """This graph with one copy of each stored edge (its smallest weight) and,
        with self_loops=False, no edge from a vertex to itself: (graph, edge_map),
        edge_map[e] being the simple graph's index of stored edge e (int64; -1
        for a self-loop left out). For primitives that count a neighbour once."""
        xp = self.xp
        src, dst = self.edge_sources(), self.col_indices
        first = xp.ones(self.num_edges, dtype=bool)  # copies of an edge sit side by side in CSR order
        first[1:] = (src[1:] != src[:-1]) | (dst[1:] != dst[:-1])
        loop = src == dst
        kept = first & ~loop if not self_loops else first
        before = xp.concatenate([xp.zeros(1, np.int64), xp.cumsum(kept)])  # kept edges before each position
        edge_map = before[1:] - 1
        if not self_loops:
            edge_map[loop] = -1
        weights = None if self.weights is None else self.weights[kept]
        return Graph(before[self.row_offsets], dst[kept], weights, directed=self.directed,
                     device=self.device), edge_map

    def has_self_loops(self):
        """Whether any stored edge goes from a vertex to itself (found once, waiting
        for the device; primitives that networkx refuses such graphs for ask)."""
        if self._self_loops is None:
            self._self_loops = bool((self.edge_sources() == self.col_indices).any())
        return self._self_loops

    def reverse_edges(self):
        """The index of each stored edge's reverse (v -> u for u -> v; int64), -1
        where it has none. Of duplicate copies of an edge, the k-th copy's reverse
        is the k-th copy of the reverse edge (an undirected graph's rows list the
        copies by weight, so the two weigh the same)."""
        reverse = self.xp.empty(self.num_edges, np.int64)
        lbs_transform(self.row_offsets, Functor(REVERSE_EDGE, filename="<reverse edges>", row_offsets=self.row_offsets,
                                                col_indices=self.col_indices, reverse=reverse),
                      total=self.num_edges, partition=self.row_partition)
        return reverse

    def undirected_edge_ids(self):
        """An id per stored edge that its reverse shares (v -> u for u -> v, the same copy
        among duplicates, as reverse_edges pairs them): the lower of their two indices
        (int64; -1 where it has none). For primitives that take an undirected edge once."""
        return self.xp.minimum(self.xp.arange(self.num_edges), self.reverse_edges())

    def reverse(self):
        """The transpose (in-neighbours as CSR, i.e. the CSC of this graph), built once and
        cached; an undirected graph is its own transpose, so it returns self."""
        if not self.directed:
            return self
        if self._reverse is None:
            self._check_not_capturing("graph.reverse()")
            self._reverse = self._transpose(self.edge_sources(), 0, self.num_edges)
            self._reverse._reverse = self
        return self._reverse

    def in_blocks(self, parts):
        """The in-edges cut by source id into blocks, each the transpose of one range of rows.

        A pull over them block by block gathers per-source values from one range at a
        time, which may fit a cache where the whole array does not (minigr.operators.Pull).
        Built once for each `parts` and cached; like reverse(), first needed outside a
        loop body being captured.

        Parameters
        ----------
        parts : int
            How many equal ranges of source ids to cut by.

        Returns
        -------
        list of Graph
            `parts` graphs of all V vertices, the b-th holding, as CSR rows by target, the
            edges from the b-th range's sources (weights alongside); one part is [reverse()].

        Examples
        --------
        >>> import minigr
        >>> graph = minigr.Graph.from_edges([0, 1, 3], [2, 2, 2])
        >>> [block.col_indices.tolist() for block in graph.in_blocks(2)]  # 2's sources 0, 1 | 3
        [[0, 1], [3]]
        """
        if parts == 1:
            return [self.reverse()]
        if parts not in self._in_blocks:
            self._check_not_capturing("graph.in_blocks()")
            sources, n = self.edge_sources(), self.num_vertices
            bounds = to_host(self.row_offsets[[n * b // parts for b in range(parts + 1)]]).tolist()
            self._in_blocks[parts] = [self._transpose(sources, first, last)
                                      for first, last in zip(bounds[:-1], bounds[1:])]
        return self._in_blocks[parts]

    def _transpose(self, sources, first, last):
        """Stored edges first..last-1 (sources: edge_sources()) as CSR rows by target, with
        their weights: a Graph of all V vertices."""
        xp, targets = self.xp, self.col_indices[first:last]
        order = xp.argsort(targets, kind="stable")  # keeps sources sorted per target
        row_offsets = xp.concatenate([xp.zeros(1, np.int64),
                                      xp.cumsum(xp.bincount(targets, minlength=self.num_vertices))])
        weights = None if self.weights is None else self.weights[first:last][order]
        return Graph(row_offsets, sources[first:last][order].astype(np.int32), weights, directed=True,
                     device=self.device)

    def _check_not_capturing(self, what):
        """A MinigrError where `what`, which allocates, is first needed inside a loop body being
        captured for the device."""
        if self.device == "gpu" and capturing():
            raise MinigrError(f"{what} was first needed inside a loop body being captured for the device, which "
                              f"may not allocate; call {what} before making the loop")

    def vertex_partition(self):
        """The merge-path Partition of one segment holding every vertex (for
        reductions over all vertices), built once; like reverse(), first needed
        outside a loop body being captured."""
        if self._vertex_partition is None:
            self._check_not_capturing("graph.vertex_partition()")
            offsets = self.xp.asarray(np.array([0, self.num_vertices], dtype=np.int64))
            self._vertex_partition = Partition(offsets, self.num_vertices)
        return self._vertex_partition

    def to(self, device):
        """This graph on `device` ("gpu" or "cpu"); self when it is already there."""
        device = resolve_device(device)
        if device == self.device:
            return self
        return Graph(self.row_offsets, self.col_indices, self.weights,
                     directed=self.directed, device=device)

    def to_scipy(self):
        """A scipy.sparse.csr_matrix copy on the host; data is the weights, or ones."""
        import scipy.sparse  # here, not at the top: it takes 0.4 s to import
        weights = (np.ones(self.num_edges, np.float32) if self.weights is None
                   else to_host(self.weights))
        n = self.num_vertices
        return scipy.sparse.csr_matrix((weights, to_host(self.col_indices),
                                        to_host(self.row_offsets)), shape=(n, n), copy=True)

    def to_networkx(self):
        """A networkx.Graph (undirected) or DiGraph copy of vertices 0..V-1 and the edges, as
        networkx holds them: duplicate edges once, self-loops kept, no weights."""
        import networkx
        found = networkx.DiGraph() if self.directed else networkx.Graph()
        found.add_nodes_from(range(self.num_vertices))
        found.add_edges_from(zip(to_host(self.edge_sources()).tolist(), to_host(self.col_indices).tolist()))
        return found

    # ---- constructors -------------------------------------------------------------------
    # Arrays may come from any library (see arrays.from_any); they are moved once to the
    # device the graph goes to, and the CSR is built there, by the same NumPy/CuPy code.

    @classmethod
    def from_edges(cls, src, dst, weights=None, *, num_vertices=None, directed=True,
                   symmetrize=False, remove_self_loops=False, remove_duplicates=False, device=None):
        """A graph from edge arrays: edge i goes from ``src[i]`` to ``dst[i]``.

        Parameters
        ----------
        src, dst : array or sequence
            0-based vertex ids: NumPy, CuPy, anything with ``__cuda_array_interface__`` or
            ``__dlpack__`` (PyTorch, JAX), or sequences. GPU arrays stay on the GPU when the
            graph goes there.
        weights : array or sequence, optional
            One weight per edge.
        num_vertices : int, optional
            Default: the largest id + 1.
        directed : bool, default True
            False requires the edges to be symmetric already (or `symmetrize`).
        symmetrize : bool, default False
            Add the reverse of every edge that is not a loop, and make the graph undirected.
        remove_self_loops : bool, default False
            Drop edges v -> v.
        remove_duplicates : bool, default False
            Keep one copy of each (src, dst) pair, with the smallest of its weights.
        device : {'gpu', 'cpu'}, optional
            Default: $MINIGR_DEVICE, else the GPU when there is one.

        Returns
        -------
        Graph

        Examples
        --------
        >>> import minigr
        >>> graph = minigr.Graph.from_edges([0, 1], [1, 2], symmetrize=True)
        >>> graph.num_edges, graph.directed
        (4, False)
        """
        check_flags(directed=directed, symmetrize=symmetrize, remove_self_loops=remove_self_loops,
                    remove_duplicates=remove_duplicates)
        device = resolve_device(device)
        xp = array_module(device)
        src, dst = _id_array(src, "src", xp), _id_array(dst, "dst", xp)
        if len(src) != len(dst):
            raise MinigrError(f"src and dst lengths differ: {len(src)} vs {len(dst)}")
        weights = _weight_array(weights, len(src), xp)
        n = _vertex_count(num_vertices, src, dst)
        for name, ids in (("src", src), ("dst", dst)):
            _check_ids(xp, ids, n, name)
        return cls._build(src, dst, weights, n, directed=directed, symmetrize=symmetrize,
                          remove_self_loops=remove_self_loops,
                          remove_duplicates=remove_duplicates, device=device)

    @classmethod
    def from_csr(cls, row_offsets, col_indices, weights=None, *, directed=True, device=None):
        """A graph from CSR arrays, checked; columns are sorted within rows if they are not.

        Parameters
        ----------
        row_offsets : array or sequence
            Length V + 1, from 0, non-decreasing, ending at the number of edges (any array
            library, as for `from_edges`).
        col_indices : array or sequence
            The target of every edge, row by row.
        weights : array or sequence, optional
            One weight per edge.
        directed : bool, default True
            False requires the adjacency to be symmetric.
        device : {'gpu', 'cpu'}, optional
            Default: $MINIGR_DEVICE, else the GPU when there is one.

        Returns
        -------
        Graph

        Examples
        --------
        >>> import minigr
        >>> graph = minigr.Graph.from_csr([0, 2, 2, 3], [2, 1, 0])
        >>> graph.col_indices.tolist()
        [1, 2, 0]
        """
        check_flags(directed=directed)
        device = resolve_device(device)
        xp = array_module(device)
        row_offsets = _id_array(row_offsets, "row_offsets", xp)
        col_indices = _id_array(col_indices, "col_indices", xp)
        check_csr(xp, row_offsets, col_indices)
        n = len(row_offsets) - 1
        weights = _weight_array(weights, len(col_indices), xp)
        rows = _edge_rows(xp, row_offsets.astype(np.int64, copy=False), len(col_indices))
        same_row = rows[1:] == rows[:-1]
        unsorted = (col_indices[1:] < col_indices[:-1]) & same_row
        if weights is not None:  # an edge's copies by weight, the smallest first (as simple() keeps it)
            unsorted |= (col_indices[1:] == col_indices[:-1]) & same_row & (weights[1:] < weights[:-1])
        if bool(unsorted.any()) or not directed:
            return cls._build(rows, col_indices, weights, n, directed=directed, device=device)
        return cls(row_offsets.astype(np.int64), col_indices.astype(np.int32), weights,
                   directed=True, device=device)

    @classmethod
    def from_scipy(cls, matrix, *, weighted=True, **options):
        """A graph from a square SciPy sparse matrix or array: entry (i, j) is edge i -> j.

        Parameters
        ----------
        matrix : scipy.sparse matrix or array
            Square; explicit zeros are edges too, and repeated entries (i, j) one edge, their
            values summed, as SciPy reads them.
        weighted : bool, default True
            Take the entries' values as the edge weights.
        **options
            As for `from_edges` (``directed``, ``symmetrize``, ``device``, ...).

        Returns
        -------
        Graph

        Examples
        --------
        >>> import minigr, scipy.sparse
        >>> graph = minigr.Graph.from_scipy(scipy.sparse.csr_array([[0, 2], [0, 0]]))
        >>> graph.num_edges, graph.weights.tolist()
        (1, [2.0])
        """
        check_flags(weighted=weighted)
        import scipy.sparse  # here, not at the top: it takes 0.4 s to import
        if not scipy.sparse.issparse(matrix):
            raise MinigrError(f"matrix must be a SciPy sparse matrix or array, got {type(matrix).__name__}; for a "
                              "dense adjacency matrix A, pass scipy.sparse.csr_array(A)")
        rows, cols = matrix.shape
        if rows != cols:
            raise MinigrError(f"an adjacency matrix must be square, got {rows} x {cols}")
        if matrix.dtype.kind in "iu":  # repeats summed in float64 (by tocsr too): in int8, 100 + 100 is -56
            matrix = matrix.astype(np.float64)
        matrix = matrix.tocsr(copy=True)  # copied: summing in place would change the caller's matrix
        matrix.sum_duplicates()
        coo = matrix.tocoo()
        return cls.from_edges(coo.row, coo.col, coo.data if weighted else None,
                              num_vertices=rows, **options)

    @classmethod
    def from_networkx(cls, g, weight="weight", *, device=None):
        """A graph from a networkx graph: vertex i is the i-th node of ``list(g)``; an
        undirected networkx graph becomes an undirected one.

        Parameters
        ----------
        g : networkx.Graph
            Any networkx graph class.
        weight : str or None, default 'weight'
            The edge attribute that holds the weights (edges without it weigh 1, as in
            networkx); None gives an unweighted graph.
        device : {'gpu', 'cpu'}, optional
            Default: $MINIGR_DEVICE, else the GPU when there is one.

        Returns
        -------
        Graph

        Examples
        --------
        >>> import minigr, networkx
        >>> graph = minigr.Graph.from_networkx(networkx.path_graph(3))
        >>> graph.num_edges, graph.directed
        (4, False)
        """
        index = {node: i for i, node in enumerate(g)}
        edges = list(g.edges(data=weight, default=1)) if weight is not None else list(g.edges())
        src = np.fromiter((index[e[0]] for e in edges), np.int64, len(edges))
        dst = np.fromiter((index[e[1]] for e in edges), np.int64, len(edges))
        weights = None if weight is None else np.fromiter((_real_weight(e, weight) for e in edges), np.float64,
                                                          len(edges))
        undirected = not g.is_directed()
        return cls.from_edges(src, dst, weights, num_vertices=len(index), directed=not undirected,
                              symmetrize=undirected, device=device)

    @classmethod
    def _build(cls, src, dst, weights, n, *, directed=True, symmetrize=False,
               remove_self_loops=False, remove_duplicates=False, device="cpu"):
        """Checked edge arrays (already on `device`) into a sorted CSR Graph there.

        Edges become int64 keys src << shift | dst, whose sorted order is the CSR order (left
        out edges get a key that sorts last): one sort (two with weights: by weight, then
        stably by key, so each pair's smallest weight comes first), one compaction of the keys
        kept, then columns and row offsets (by binary search) in one pass."""
        xp = array_module(device)
        check_room(build_bytes(n, len(src), weights is not None, symmetrize), device,
                   f"a graph of {n} vertices and {len(src)} edges")
        shift = max(n - 1, 0).bit_length()
        key = xp.empty(len(src) * (2 if symmetrize else 1), np.int64)
        transform(len(src), Functor(EDGE_KEYS, filename="<edge keys>", src=src, dst=dst, key=key,
                                    shift=np.int32(shift), m=np.int64(len(src)), dropped=DROPPED,
                                    drop_loops=bool(remove_self_loops), symmetrize=bool(symmetrize)))
        if symmetrize:
            weights = None if weights is None else xp.concatenate([weights, weights])
            directed = False
        key, weights = _kept_keys(xp, *_sorted_keys(xp, key, weights), remove_duplicates)
        unmatched = None if directed or symmetrize else _first_unmatched_edge(xp, key, weights, shift)
        if unmatched:
            raise MinigrError(f"the edges are not symmetric ({unmatched}), so the graph cannot be undirected; "
                              "pass symmetrize=True to add the reverse edges")
        row_offsets, col_indices = xp.empty(n + 1, np.int64), xp.empty(len(key), np.int32)
        transform(max(n + 1, len(key)), Functor(CSR, filename="<csr>", key=key, count=np.int64(len(key)),
                                                n=np.int64(n), shift=np.int32(shift), row_offsets=row_offsets,
                                                col_indices=col_indices))
        return cls(row_offsets, col_indices, weights, directed=directed, device=device)


def _id_array(ids, name, xp):
    """A 1-D contiguous integer array of vertex ids or offsets, in native byte order, on the
    device of `xp`."""
    ids = from_any(ids, name)
    if not ids.dtype.isnative:  # say big-endian ids on a little-endian machine: kernels read native ones
        ids = ids.astype(ids.dtype.newbyteorder("="))
    ids = on_device(ids, "cpu" if xp is np else "gpu")
    if ids.ndim != 1:
        raise MinigrError(f"{name} must be one-dimensional, got shape {ids.shape}")
    if ids.size and ids.dtype.kind not in "iu":
        raise MinigrError(f"{name} must hold integers, got dtype {ids.dtype}")
    return xp.ascontiguousarray(ids) if ids.size else ids.astype(np.int64)


def _weight_array(weights, count, xp):
    """A float32 array of `count` finite weights on the device of `xp`, or None."""
    if weights is None:
        return None
    weights = on_device(from_any(weights, "weights"), "cpu" if xp is np else "gpu")
    if weights.shape != (count,):
        raise MinigrError(f"weights must have one entry per edge ({count}), got shape "
                          f"{weights.shape}")
    if weights.dtype.kind not in "biuf":
        raise MinigrError(f"weights must hold numbers, got dtype {weights.dtype}")
    with np.errstate(over="ignore"):
        as_float32 = weights.astype(np.float32)
    bad = ~xp.isfinite(as_float32)
    if bool(bad.any()):
        i = int(xp.flatnonzero(bad)[0])
        raise MinigrError(f"weights must be finite float32 values, but weights[{i}] is "
                          f"{weights[i].item()}")
    return as_float32


def build_bytes(n, edges, weighted, symmetrize):
    """About the most memory Graph._build takes at once for `n` vertices and `edges` edges
    (doubled by symmetrize): per edge its key, the sorted and the kept copies and its column
    (with weights: their copies and the sort's orders); per vertex an offset and its degree."""
    keys = edges * (2 if symmetrize else 1)
    return keys * (28 + (28 if weighted else 0)) + 16 * (n + 1)


def check_csr(xp, row_offsets, col_indices):
    """A MinigrError unless CSR arrays (of `xp`) describe a graph: offsets from 0, non-decreasing,
    ending at the number of columns; every column a vertex id; vertex ids that fit int32."""
    if len(row_offsets) == 0:
        raise MinigrError("row_offsets must have num_vertices + 1 entries, got an empty array")
    if int(row_offsets[0]) != 0:
        raise MinigrError(f"row_offsets must start at 0, got {int(row_offsets[0])}")
    decreasing = row_offsets[1:] < row_offsets[:-1]  # compared, not subtracted: unsigned differences wrap around
    if bool(decreasing.any()):
        row = int(xp.flatnonzero(decreasing)[0])
        raise MinigrError(f"row_offsets must be non-decreasing: row {row} has a negative "
                          f"count ({int(row_offsets[row + 1]) - int(row_offsets[row])})")
    if int(row_offsets[-1]) != len(col_indices):
        raise MinigrError(f"row_offsets ends at {int(row_offsets[-1])} but col_indices has "
                          f"{len(col_indices)} entries; they must be equal")
    _check_ids(xp, col_indices, _vertex_count(len(row_offsets) - 1), "col_indices")


def _vertex_count(n, *id_arrays):
    """The vertex count: `n` checked, or the largest id + 1."""
    if n is None:
        n = max((int(ids.max()) + 1 for ids in id_arrays if ids.size), default=0)
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, numbers.Integral):  # int(2.5) would drop a vertex
        raise MinigrError(f"num_vertices must be an integer, got {n!r}")
    if n < 0:
        raise MinigrError(f"num_vertices must be >= 0, got {n}")
    if n > MAX_VERTICES:
        raise MinigrError(f"{n} vertices do not fit int32 column indices (max {MAX_VERTICES})")
    return int(n)


def check_flags(**flags):
    """A MinigrError naming the first of `flags` that is not True or False: a string such as
    'no' is truthy, and would ask for the opposite of what it says."""
    for name, value in flags.items():
        if not isinstance(value, (bool, np.bool_)):
            raise MinigrError(f"{name} must be True or False, got {value!r}")


def _check_ids(xp, ids, n, name):
    if ids.size and (int(ids.min()) < 0 or int(ids.max()) >= n):  # two reductions, no temporaries
        i = int(xp.flatnonzero((ids < 0) | (ids >= n))[0])
        raise MinigrError(f"{name}[{i}] = {int(ids[i])} is out of range for {n} vertices "
                          f"(ids are 0 to {n - 1})")


def _edge_rows(xp, row_offsets, count, partition=None):
    """The row of each of the `count` entries a CSR's row_offsets (int32 or int64) describe
    (int64); partition: a Partition of row_offsets, to reuse."""
    rows = xp.empty(count, np.int64)
    lbs_transform(row_offsets, Functor(ROWS, filename="<edge rows>", rows=rows), total=count, partition=partition)
    return rows


def _sorted_keys(xp, key, weights):
    """Edge keys sorted; with weights, equal keys ordered by weight (smallest first)."""
    if weights is None:
        return sort(xp, key), None
    order = xp.argsort(weights, kind="stable")
    order = order[xp.argsort(key[order], kind="stable")]
    return key[order], weights[order]


def _kept_keys(xp, key, weights, dedupe):
    """The sorted keys (and their weights) that are not DROPPED, and with dedupe not repeats."""
    kept = xp.empty(len(key), np.int64)
    if weights is None:
        write = Functor(WRITE_KEY, filename="<write key>", key=key, kept=kept)
    else:
        kept_weights = xp.empty(len(key), np.float32)
        write = Functor(WRITE_WEIGHTED_KEY, filename="<write key>", key=key, kept=kept, weights=weights,
                        kept_weights=kept_weights)
    _, count = compact_transform(len(key), Functor(KEPT_KEY, filename="<kept key>", key=key, dropped=DROPPED,
                                                   dedupe=bool(dedupe)), write)
    return kept[:count], None if weights is None else kept_weights[:count]


def unmatched_edge(graph):
    """What breaks the symmetry of a graph's stored edges, or None: an undirected graph holds
    each edge both ways, the k-th copy of u -> v weighing what the k-th copy of v -> u weighs
    (reverse_edges pairs them so). Its rows must be sorted (the keys then are)."""
    shift = max(graph.num_vertices - 1, 0).bit_length()
    key = graph.edge_sources() << shift | graph.col_indices.astype(np.int64)
    return _first_unmatched_edge(graph.xp, key, graph.weights, shift)


def _first_unmatched_edge(xp, key, weights, shift):
    """Where the edges (src << shift | dst keys, sorted, with `weights`) differ from their
    reverses, said as "edge u -> v has no v -> u" or "edge u -> v weighs a one way and b the
    other", or None. One stable sort of the flipped keys: an edge's copies keep their order
    (by weight, as _sorted_keys leaves them), so each meets the same copy of its reverse. Up
    to the first difference the two sorted lists agree: there the smaller key is the edge
    whose reverse is missing."""
    mask = (1 << shift) - 1
    flipped = (key & mask) << shift | key >> shift
    order = xp.argsort(flipped, kind="stable")
    flipped = flipped[order]
    differ = xp.flatnonzero(key != flipped)
    if len(differ):
        mine, theirs = int(key[int(differ[0])]), int(flipped[int(differ[0])])
        if mine < theirs:  # edge u -> v
            u, v = mine >> shift, mine & mask
        else:  # the reverse of edge u -> v
            u, v = theirs & mask, theirs >> shift
        return f"edge {u} -> {v} has no {v} -> {u}"
    mirrored = None if weights is None else weights[order]
    differ = () if weights is None else xp.flatnonzero(weights != mirrored)
    if not len(differ):
        return None
    at = int(differ[0])
    edge = int(key[at])
    return (f"edge {edge >> shift} -> {edge & mask} weighs {float(weights[at])} one way and "
            f"{float(mirrored[at])} the other")


def _real_weight(edge, weight):
    """A networkx edge (u, v, value)'s value of attribute `weight`, or a MinigrError: not a real number."""
    if not isinstance(edge[2], numbers.Real):
        raise MinigrError(f"edge ({edge[0]!r}, {edge[1]!r}) has {weight}={edge[2]!r}, not a real number")
    return edge[2]
