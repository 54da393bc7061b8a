"""Loading graphs from files and generator specs, with a binary cache beside text files.

Sources, each read by its own module here:
  Matrix Market  .mtx (.mtx.gz): coordinate; pattern, integer or real; general or symmetric
                 (symmetric means undirected: both directions are stored); 1-based ids.
                 matrix_market.py
  edge list      .txt .el .edges .tsv (optionally .gz): SNAP style, one "src dst [weight]"
                 per line, whitespace separated, 0-based ids, '#' starts a comment. edge_list.py
  minigr binary  .mgr: what load caches and save writes (CSR arrays, a header, a checksum).
                 binary.py
  generator      kron:scale=S,edge_factor=E,seed=K  rgg:scale=S,seed=K  grid:scale=S,seed=K
                 specs.py

Both text formats read their numbers through columns.py (pyarrow's multithreaded CSV reader,
numpy.loadtxt for irregular text, a line scan to name the first bad line). options.py checks
the load options and shapes what was read into the Graph they ask for, built on the device the
graph goes to. A text file's graph is cached as `<file>.mgr`, keyed to the SHA-256 of the
bytes parsed, the format version and the load options; a stale or damaged cache, or one that
someone else could have written, is rebuilt.
"""
import hashlib
import os
import sys

from ..graph import check_flags
from ..progress import Progress
from ..transforms.backend import resolve_device
from ..transforms.errors import MinigrError
from . import binary, edge_list, matrix_market, options, specs
from .binary import read_binary, save
from .options import WEIGHT_MODES

__all__ = ["load", "save", "read_binary", "ACCEPTED", "WEIGHT_MODES"]

ACCEPTED = ("a Matrix Market file (.mtx, .mtx.gz), an edge list (.txt, .el, .edges, .tsv, "
            f"optionally .gz), a minigr binary (.mgr) or a generator spec ({specs.FORMS})")
BIG_INPUT = 16 << 20  # bytes of text from which load shows progress on a terminal


def load(source, *, directed=None, symmetrize=False, remove_self_loops=False,
         remove_duplicates=False, weights="keep", weight_seed=0, cache=True, device=None,
         progress=None):
    """A Graph from a file or a generator spec.

    Parameters
    ----------
    source : str or path
        A Matrix Market file (.mtx, .mtx.gz), an edge list (.txt, .el, .edges, .tsv:
        "src dst [weight]" per line, 0-based, optionally .gz), a minigr binary (.mgr), or a
        generator spec: ``kron:scale=S,edge_factor=E,seed=K``, ``rgg:scale=S,seed=K`` or
        ``grid:scale=S,seed=K`` (see `minigr.io`).
    directed : bool, optional
        None takes it from the source (symmetric Matrix Market files and generators are
        undirected, the rest directed); True marks the graph directed; False requires
        symmetric edges (or `symmetrize`).
    symmetrize, remove_self_loops, remove_duplicates : bool, default False
        As in `Graph.from_edges` (duplicates keep their smallest weight).
    weights : {'keep', 'ignore', 'random'}, default 'keep'
        The file's weights, none, or integers 1..64 drawn from `weight_seed`, one per
        undirected edge.
    weight_seed : int, default 0
        The seed of random weights.
    cache : bool, default True
        Read and write ``<file>.mgr`` beside a text file (skipped where it cannot be written).
    device : {'gpu', 'cpu'}, optional
        Where generators and the CSR build run. Default: $MINIGR_DEVICE, else the GPU when
        there is one.
    progress : bool, optional
        Stage lines and the time on stderr; None shows them for big inputs on a terminal.

    Returns
    -------
    Graph

    Examples
    --------
    >>> import minigr
    >>> minigr.load("grid:scale=4", device="cpu")
    Graph(num_vertices=16, num_edges=..., undirected, unweighted, device='cpu')
    >>> graph = minigr.load("kron:scale=6,edge_factor=4", weights="random")
    >>> graph.weights.min() >= 1 and graph.weights.max() <= 64 and bool((graph.weights % 1 == 0).all())
    True
    """
    device = resolve_device(device)
    check_flags(cache=cache, **{} if progress is None else {"progress": progress})  # 'no' is truthy
    chosen = options.normalise(directed=directed, symmetrize=symmetrize,
                               remove_self_loops=remove_self_loops,
                               remove_duplicates=remove_duplicates, weights=weights,
                               weight_seed=weight_seed)
    source = os.fsdecode(source)  # a bytes path too, as open() takes it
    if specs.is_spec(source):
        generate, params = specs.parse(source)
        with Progress(f"generating {source}", _shown(progress, params["scale"] >= 20)):
            return options.from_graph(generate(**params, device=device), chosen, source)
    read = _reader(source)
    with Progress(f"loading {source}", _shown(progress, os.path.getsize(source) >= BIG_INPUT)
                  ) as report:
        if read is None:
            return options.from_graph(read_binary(source, device), chosen, source)
        graph = binary.read_cache(source, chosen) if cache else None
        if graph is not None:
            return graph.to(device)
        report.stage("parsing")
        digest = hashlib.sha256()  # of the bytes parsed: the cache's key
        edges = read(source, digest)
        report.stage("building the graph")
        graph = options.from_edges(edges, chosen, source, device)
        if cache:
            report.stage("writing the binary cache")
            binary.write_cache(source, graph, chosen, digest.hexdigest())
    return graph


def _reader(path):
    """The text reader for `path` by its name (None for a .mgr binary); MinigrError for
    missing files and other names."""
    if os.path.isdir(path):
        raise MinigrError(f"{path} is a folder; give the graph file in it, or a generator spec")
    if not os.path.isfile(path):
        raise MinigrError(f"{path}: no such file; load takes {ACCEPTED}")
    name = path.lower()
    if name.endswith(binary.SUFFIX):
        return None
    name = name.removesuffix(".gz")
    if name.endswith(matrix_market.SUFFIXES):
        return matrix_market.read
    if name.endswith(edge_list.SUFFIXES):
        return edge_list.read
    raise MinigrError(f"{path}: unknown file type; load takes {ACCEPTED}")


def _shown(progress, big):
    """Whether to show progress: as asked, else for big inputs when stderr is a terminal."""
    return progress if progress is not None else big and sys.stderr.isatty()
