"""The graphs the operator and primitive benchmarks run on, and the arrays each
system needs, built once per graph outside any timing."""
import functools
import os

import numpy

from ..io import specs
from ..transforms.errors import MinigrError

STANDARD = {"kron_s21_e16": "kron:scale=21,edge_factor=16,seed=1",
            "rgg_n22": "rgg:scale=22,seed=1",
            "grid_22": "grid:scale=22,seed=1"}
QUICK = {"kron_s16_e16": "kron:scale=16,edge_factor=16,seed=1",
         "rgg_n16": "rgg:scale=16,seed=1",
         "grid_16": "grid:scale=16,seed=1"}
# Larger than one GPU (kron_s28_e16: 268M vertices, 8.6G stored edges; its CSR and weights alone
# 69 GB), for `bench scaling`, which generates them part by part on each GPU; kron_s27_e16 is half.
LARGER = {"kron_s27_e16": "kron:scale=27,edge_factor=16,seed=1",
          "kron_s28_e16": "kron:scale=28,edge_factor=16,seed=1"}


def selected(graphs, quick):
    """name -> spec: the --graph arguments (a file, a generator spec, checked
    to exist or to parse, or the name of one of the graphs here), else the
    standard or --quick graphs."""
    if not graphs:
        return dict(QUICK if quick else STANDARD)
    chosen = {}
    named = {**STANDARD, **QUICK, **LARGER}
    for spec in graphs:
        if spec in named and not os.path.exists(spec):
            chosen[spec] = named[spec]
            continue
        if not os.path.exists(spec):
            try:
                specs.parse(spec)
            except MinigrError as exc:
                raise MinigrError(f"--graph: {exc} ({specs.FORMS})") from None
        name = next((n for n, s in {**STANDARD, **QUICK}.items() if s == spec), None)
        chosen[name or os.path.basename(spec)] = spec
    return chosen


class Inputs:
    """One graph on the GPU (random integer weights in [1, 64]) with the arrays
    the systems use, each built on first use: BFS/SSSP source (the highest-degree
    vertex), CuPy sparse matrices of the in-neighbours, SciPy CSR and networkx on the host."""

    def __init__(self, name, spec, device="gpu"):
        from .. import load
        self.name = name
        self.graph = load(spec, weights="random", device=device)
        self._in_adjacency = {}

    @functools.cached_property
    def degrees(self):
        return self.graph.out_degrees()

    @functools.cached_property
    def source(self):
        return int(self.degrees.argmax())

    def in_adjacency(self, dtype):
        """cupyx CSR of in-neighbours (row v lists v's in-neighbours) with ones of `dtype`, built once."""
        from ..alternatives import csr_matrix
        dtype = numpy.dtype(dtype)
        if dtype not in self._in_adjacency:
            reverse = self.graph.reverse()
            ones = self.graph.xp.ones(reverse.num_edges, dtype)
            self._in_adjacency[dtype] = csr_matrix(reverse.row_offsets, reverse.col_indices, ones)
        return self._in_adjacency[dtype]

    @functools.cached_property
    def scipy(self):
        """The weighted graph as a host scipy.sparse CSR (for csgraph)."""
        return self.graph.to_scipy()

    @functools.cached_property
    def scipy_in_ones(self):
        """Host CSR of in-neighbours with float64 ones (CPU PageRank)."""
        pattern = self.scipy.T.tocsr()
        pattern.data = numpy.ones(pattern.nnz)
        return pattern

    @functools.cached_property
    def networkx(self):
        """The graph as a networkx.DiGraph (both directions of an undirected edge)."""
        import networkx
        return networkx.from_scipy_sparse_array(self.scipy, create_using=networkx.DiGraph)
