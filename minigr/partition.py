"""A graph split over ranks (GPUs, or threads on the CPU backend) by vertex:
rank r owns the contiguous range bounds[r]..bounds[r+1] (balanced by edges)
and holds its own vertices' rows. Each part numbers its vertices locally:
its own first (global id - bounds[r]), then proxies, the other ranks'
vertices that its edges reach, sorted by global id, so the proxies of each
owner are one contiguous range. An owner's mirrors are its vertices that a
peer holds as proxies, in the peer's proxy order: the border. Primitives run
the same operators on every part and exchange border values (Border), or
one flag per border vertex (BorderFlags).

The global ids are those of the order the ranges are cut in (minigr.reorder:
the user's, or a renumbering that keeps the parts local); a part speaks the
user's ids at its surface (local_id, proxy_id, user_ids), so that results
come back in them."""
import time

import numpy

from . import generators, io
from .arrays import on_device, to_host
from .graph import Graph
from .io import specs
from .reorder import METHODS, choose, renumber, vertex_bounds
from .transforms import Functor, transform
from .transforms.backend import array_module
from .transforms.errors import MinigrError

_PACK = "void operator()(long long i) const { packed[i] = values[mirrors[i]]; }"
_UNPACK = "void operator()(long long i) const { combine(mirrors[i], packed[i]); }"
# Flags of one side of the border (entries: local ids, by peer; words: 32 flags
# each, a peer's first entry starting a word). A peer's words come in tiles of
# 32, and word k of a tile holds the tile's entries k, k + 32, ..., k + 992,
# so that neighbouring threads (one per word) read neighbouring entries.
# `place`: word w's flag b is entry first + 32 b, where that is below end.
_PLACE = """__device__ void place(long long w, long long& first, long long& end) const {
    int q = 0;
    while (word_offsets[q + 1] <= w) ++q;
    const long long k = w - word_offsets[q];
    first = entry_offsets[q] + k / 32 * 1024 + k % 32;
    end = entry_offsets[q + 1];
}"""
_PACK_FLAGS = _PLACE + """void operator()(long long w) const {
    long long first, end;
    place(w, first, end);
    unsigned bits = 0;
    for (int b = 0; b < 32; ++b)  // a fixed count, unrolled: the reads of all 32 are in flight at once
        if (first + 32 * b < end) bits |= (unsigned)test(entries[first + 32 * b]) << b;
    words[w] = bits;
}"""
_UNPACK_FLAGS = _PLACE + """void operator()(long long w) const {
    unsigned bits = words[w];
    if (!bits) return;
    long long first, end;
    place(w, first, end);
    for (int b = 0; bits; ++b, bits >>= 1)
        if (bits & 1u) apply(entries[first + 32 * b]);
}"""


# Parts whose proxies are fewer than this share of the graph's vertices (ids
# with locality: an ordered grid's halves share 0.1%, kron_s25_e16's 42%).
FEW_PROXIES = 0.05


class Part:
    """This rank's part: `graph` (its own vertices' rows, then proxies with no
    rows; its reverse holds its own vertices' in-edges), `global_ids` (of
    every local vertex), `user_ids` (the user's id of every local vertex:
    global_ids itself where the order is the user's), the proxy and mirror
    ranges per rank, and `comm`. num_vertices and num_edges are the whole
    graph's; `order` the minigr.reorder.Order the ranges are cut in, or None
    for the user's."""

    def __init__(self, comm, bounds, graph, global_ids, mirrors, mirror_offsets, num_edges, order=None):
        self.comm, self.rank, self.bounds = comm, comm.rank, bounds
        self.graph, self.global_ids, self.mirrors, self.mirror_offsets = graph, global_ids, mirrors, mirror_offsets
        self.xp = graph.xp
        self.first, self.owned = int(bounds[comm.rank]), int(bounds[comm.rank + 1] - bounds[comm.rank])
        self.num_vertices, self.num_edges = int(bounds[-1]), num_edges
        self._proxies = to_host(global_ids[self.owned:])  # their global ids, sorted
        self.proxy_offsets = self.owned + numpy.searchsorted(self._proxies, bounds)
        self._runs_apart = None
        self.order, self.renumber_ms = order, 0.0
        self.user_ids, self._global_id = global_ids, int
        if order is not None and order.user_ids is not None:
            self.user_ids = self.xp.asarray(order.user_ids[to_host(global_ids)])
            global_of_user = numpy.empty(self.num_vertices, dtype=numpy.int32)
            global_of_user[order.user_ids] = numpy.arange(self.num_vertices, dtype=numpy.int32)
            self._global_id = lambda vertex: int(global_of_user[vertex])

    @classmethod
    def build(cls, comm, bounds, out_edges, in_edges=None, *, device, clean=False, order=None):
        """This rank's part from global (src, dst, weights) arrays on `device`:
        out_edges holds the edges from its own vertices (as the graph stores
        them), in_edges those into them (directed graphs; None: undirected,
        the out-edges are the in-edges). clean: drop self-loops and
        duplicates (edges straight from a generator). order: the
        minigr.reorder.Order whose numbering the global ids are in."""
        xp = array_module(device)
        first, last = int(bounds[comm.rank]), int(bounds[comm.rank + 1])
        owned = last - first
        ends = [out_edges[1]] + ([in_edges[0]] if in_edges is not None else [])
        proxies = xp.unique(xp.concatenate([ids[(ids < first) | (ids >= last)] for ids in ends]))

        def local(ids):
            return xp.where((ids >= first) & (ids < last), ids - first, owned + xp.searchsorted(proxies, ids))

        total = owned + len(proxies)
        src, dst, weights = out_edges
        graph = Graph._build(src - first, local(dst), weights, total, remove_self_loops=clean,
                             remove_duplicates=clean, device=device)
        if in_edges is None:
            graph = Graph(graph.row_offsets, graph.col_indices, graph.weights, directed=False, device=device)
        else:
            src, dst, weights = in_edges
            reverse = Graph._build(dst - first, local(src), weights, total, device=device)
            graph._reverse, reverse._reverse = reverse, graph
        global_ids = xp.concatenate([xp.arange(first, last), proxies]).astype(numpy.int32)
        mirrors, mirror_offsets = _mirrors(comm, bounds, to_host(proxies), xp)
        num_edges = xp.asarray([graph.num_edges], dtype=numpy.int64)
        comm.allreduce(num_edges)
        return cls(comm, bounds, graph, global_ids, mirrors, mirror_offsets, int(num_edges[0]), order)

    @classmethod
    def from_graph(cls, comm, graph, device=None, order=None):
        """This rank's part of a whole Graph (on any device), on `device`
        (default the graph's): cut at vertex_bounds, or in the numbering
        and at the bounds of `order` (minigr.reorder.choose of a graph on the
        host)."""
        device = device or graph.device
        start = time.perf_counter()
        if order is None:
            bounds = vertex_bounds(to_host(graph.out_degrees()), comm.size)
        else:
            graph, bounds = renumber(graph, order), order.bounds
        renumber_ms = (time.perf_counter() - start) * 1e3
        first, last = int(bounds[comm.rank]), int(bounds[comm.rank + 1])

        def rows(g):
            begin, end = int(g.row_offsets[first]), int(g.row_offsets[last])
            edges = (g.edge_sources()[begin:end], g.col_indices[begin:end].astype(numpy.int64),
                     None if g.weights is None else g.weights[begin:end])
            return tuple(on_device(a, device) for a in edges)

        in_edges = None
        if graph.directed:
            dst, src, weights = rows(graph.reverse())
            in_edges = (src, dst, weights)
        part = cls.build(comm, bounds, rows(graph), in_edges, device=device, order=order)
        part.renumber_ms = renumber_ms
        return part

    def local_id(self, vertex):
        """The local id of a (user's) vertex this rank owns, else None."""
        vertex = self._global_id(vertex)
        return vertex - self.first if self.first <= vertex < self.first + self.owned else None

    def proxy_id(self, vertex):
        """The local id of a (user's) vertex this rank holds as a proxy, else None."""
        vertex = self._global_id(vertex)
        # the key in the proxies' own type: a Python int would make NumPy copy them all to int64 (5 ms at 7M)
        i = int(numpy.searchsorted(self._proxies, self._proxies.dtype.type(vertex)))
        return self.owned + i if i < len(self._proxies) and self._proxies[i] == vertex else None

    def runs_apart(self):
        """Whether the parts (two or more) share so few vertices, their proxies
        under FEW_PROXIES of the graph's, that a primitive should run several
        iterations on each part between exchanges (waits for the parts once)."""
        if self._runs_apart is None:
            proxies = self.xp.asarray([self.graph.num_vertices - self.owned], dtype=numpy.int64)
            self.comm.allreduce(proxies)
            self._runs_apart = self.comm.size > 1 and int(proxies[0]) < FEW_PROXIES * self.num_vertices
        return self._runs_apart

    def highest_degree_vertex(self):
        """The whole graph's (user's) vertex of highest out-degree, lowest id on
        ties (as the CLI's default source): waits for the parts."""
        best = self.xp.zeros(1, dtype=numpy.int64)
        if self.owned:
            degrees = self.graph.out_degrees()[:self.owned]
            highest = degrees.max()
            v = int(self.user_ids[:self.owned][degrees == highest].min())
            best[0] = int(highest) << 32 | (2**31 - 1 - v)
        self.comm.allreduce(best, "max")
        return 2**31 - 1 - (int(best[0]) & 0xFFFFFFFF)

    def owned_user_ids(self):
        """The user's ids of this rank's own vertices on the host, or None where the order is the user's."""
        return None if self.user_ids is self.global_ids else to_host(self.user_ids[:self.owned])

    def order_facts(self):
        """What a report says of the order the parts are cut in (minigr.reorder.Order.facts), its
        time including renumbering the graph; nothing for a graph split in the user's order unasked."""
        if self.order is None:
            return {}
        return dict(self.order.facts(), reorder_ms=round(self.order.ms + self.renumber_ms, 3))

    def facts(self):
        """What a report says of the whole graph and this part (numbers and words only)."""
        return dict(vertices=self.num_vertices, edges=self.num_edges, directed=self.graph.directed,
                    weighted=self.graph.weights is not None, **self.order_facts(), owned=self.owned,
                    part_edges=self.graph.num_edges, proxies=self.graph.num_vertices - self.owned,
                    mirrors=len(self.mirrors))

    def __repr__(self):
        return (f"Part(rank={self.rank} of {self.comm.size}, vertices {self.first}..{self.first + self.owned - 1}, "
                f"{self.graph.num_vertices - self.owned} proxies, {len(self.mirrors)} mirrors, "
                f"{self.graph.num_edges} edges)")


def load_part(comm, source, *, device, reorder="auto", **options):
    """This rank's part of the graph that minigr.load(source, **options) gives,
    on `device`, cut in the order minigr.reorder.choose(graph, ranks,
    reorder) keeps. A generator spec with no options but weights, and
    reorder "none" (or "auto" for a Kronecker spec, whose ids no order gives
    locality), is generated on the device, keeping this rank's edges only
    (Kronecker edges chunk by chunk, so no rank holds them all: a graph
    larger than one GPU); anything else is loaded whole on the host first."""
    if reorder not in METHODS:
        raise MinigrError(f"reorder must be one of {', '.join(METHODS)}, got {reorder!r}")
    by_parts = specs.is_spec(source) and set(options) <= {"weights", "weight_seed"} and (
        reorder == "none" or reorder == "auto" and specs.parse(source)[0] is generators.kronecker)
    if not by_parts:
        graph = io.load(source, device="cpu", **options)
        return Part.from_graph(comm, graph, device, choose(graph, comm.size, reorder))
    weights = options.get("weights", "keep")
    if weights not in ("keep", "random"):
        raise MinigrError(f"weights must be 'keep' or 'random' for a generated graph, got {weights!r}")
    xp = array_module(device)
    n, chunks = generators.edge_chunks(*specs.parse(source), xp)
    degrees = xp.zeros(n, dtype=numpy.int64)
    for src, dst in chunks():  # the degrees before duplicates go, to balance the parts
        loops = src == dst
        degrees += xp.bincount(src[~loops], minlength=n) + xp.bincount(dst[~loops], minlength=n)
    bounds = vertex_bounds(to_host(degrees), comm.size)
    del degrees
    first, last = int(bounds[comm.rank]), int(bounds[comm.rank + 1])
    mine = []
    ids = numpy.int32 if n < 2**31 else numpy.int64  # half the memory: kron_s28_e16's part is 2.1G edges
    for src, dst in chunks():  # both directions of each edge, from this rank's vertices
        for a, b in ((src, dst), (dst, src)):
            keep = (a >= first) & (a < last)
            mine.append((a[keep].astype(ids), b[keep].astype(ids)))
    src, dst = (xp.concatenate([xp.zeros(0, ids)] + [pair[i] for pair in mine]) for i in (0, 1))
    del mine
    part = Part.build(comm, bounds, (src, dst, None), device=device, clean=True)
    if weights == "random":
        graph = part.graph
        weights = generators.pair_weights(xp, graph.edge_sources() + first, part.global_ids[graph.col_indices],
                                          options.get("weight_seed", 0))
        part.graph = Graph(graph.row_offsets, graph.col_indices, weights, directed=False, device=device)
    return part


def _mirrors(comm, bounds, proxies, xp):
    """(mirrors, offsets): every peer's proxies of this rank's vertices, as
    local ids, by peer (offsets on the host): each rank tells each owner."""
    first = int(bounds[comm.rank])
    owners = numpy.searchsorted(proxies, bounds)
    sends = [xp.asarray(proxies[owners[q]:owners[q + 1]] - bounds[q], dtype=numpy.int32) for q in range(comm.size)]
    counts = [xp.asarray([len(s)], dtype=numpy.int64) for s in sends]
    received = [xp.zeros(1, dtype=numpy.int64) for _ in range(comm.size)]
    comm.exchange(counts, received)
    sizes = [0 if q == comm.rank else int(received[q][0]) for q in range(comm.size)]
    receives = [xp.empty(size, dtype=numpy.int32) for size in sizes]
    comm.exchange(sends, receives)
    offsets = numpy.concatenate([[0], numpy.cumsum(sizes)]).astype(numpy.int64)
    mirrors = xp.concatenate([xp.zeros(0, numpy.int32)] + receives)
    if len(mirrors) and int(mirrors.max()) >= int(bounds[comm.rank + 1]) - first:
        raise MinigrError("internal error: a peer's proxy is not one of this rank's vertices")
    return mirrors, offsets


class Border:
    """The border values of one per-local-vertex array (`values`) of a part,
    exchanged with buffers made once (so a loop on the device can hold it):
    to_proxies() copies owners' values to their proxies on the other ranks;
    to_owners() sends proxies' values to their owners, where combine (a
    Functor with `void operator()(int v, T value) const`, T the values' type)
    takes each one in, v the owner's local id."""

    def __init__(self, part, values, combine=None):
        self.part, self.values = part, values
        self.packed = part.xp.empty(len(part.mirrors), dtype=values.dtype)
        captures = dict(packed=self.packed, mirrors=part.mirrors)
        self._pack = Functor(_PACK, filename="<border pack>", values=values, **captures)
        self._unpack = None if combine is None else Functor(_UNPACK, filename="<border unpack>", combine=combine,
                                                             **captures)
        size = part.comm.size
        self._proxies = [values[part.proxy_offsets[q]:part.proxy_offsets[q + 1]] for q in range(size)]
        self._mirrors = [self.packed[part.mirror_offsets[q]:part.mirror_offsets[q + 1]] for q in range(size)]

    def to_proxies(self):
        transform(len(self.packed), self._pack)
        self.part.comm.exchange(self._mirrors, self._proxies)

    def to_owners(self):
        self.part.comm.exchange(self._proxies, self._mirrors)
        transform(len(self.packed), self._unpack)

    def volume(self):
        """Bytes this rank sends in one exchange, either way summed over peers: (to proxies, to owners)."""
        return self.packed.nbytes, sum(p.nbytes for p in self._proxies)


class BorderFlags:
    """One flag per border vertex, 32 to a word (a bitmap: 32 times less than
    Border's int32 values), exchanged with buffers made once. to_owners():
    each proxy's flag is test(v) on its rank, and each owner calls apply(v)
    on its mirrors whose flag is set; to_proxies(): owners test their mirrors
    and apply reaches the flagged proxies. test: a Functor with `bool
    operator()(int v) const`, apply one with `void operator()(int v) const`,
    v local ids; Functors are given per direction as (test, apply)."""

    def __init__(self, part, to_owners, to_proxies):
        xp, owned = part.xp, part.owned
        proxies = xp.arange(owned, part.graph.num_vertices, dtype=numpy.int32)
        self.part = part
        self.proxies = _FlagSide(xp, proxies, part.proxy_offsets - owned)
        self.mirrors = _FlagSide(xp, part.mirrors, part.mirror_offsets)
        self._to_owners = (self.proxies.pack(to_owners[0]), self.mirrors.unpack(to_owners[1]))
        self._to_proxies = (self.mirrors.pack(to_proxies[0]), self.proxies.unpack(to_proxies[1]))

    def to_owners(self):
        pack, unpack = self._to_owners
        pack()
        self.part.comm.exchange(self.proxies.by_peer, self.mirrors.by_peer)
        unpack()

    def to_proxies(self):
        pack, unpack = self._to_proxies
        pack()
        self.part.comm.exchange(self.mirrors.by_peer, self.proxies.by_peer)
        unpack()

    def volume(self):
        """Bytes this rank sends in one exchange: (to proxies, to owners)."""
        return self.mirrors.words.nbytes, self.proxies.words.nbytes


class _FlagSide:
    """One side of a BorderFlags: its entries (local ids), their words, and the words of each peer."""

    def __init__(self, xp, entries, entry_offsets):
        tiles = -(-numpy.diff(entry_offsets) // 1024)  # of 32 words, 1024 flags
        word_offsets = numpy.concatenate([[0], numpy.cumsum(tiles * 32)]).astype(numpy.int64)
        self.words = xp.zeros(int(word_offsets[-1]), dtype=numpy.uint32)
        self.by_peer = [self.words[a:b] for a, b in zip(word_offsets, word_offsets[1:])]
        self.captures = dict(entries=entries, words=self.words, entry_offsets=xp.asarray(entry_offsets),
                             word_offsets=xp.asarray(word_offsets))

    def pack(self, test):
        f = Functor(_PACK_FLAGS, filename="<border flags pack>", test=test, **self.captures)
        return lambda: transform(len(self.words), f)

    def unpack(self, apply):
        f = Functor(_UNPACK_FLAGS, filename="<border flags unpack>", apply=apply, **self.captures)
        return lambda: transform(len(self.words), f)
