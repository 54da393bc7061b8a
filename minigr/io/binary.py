"""The minigr binary graph file (.mgr): what save writes and load caches beside a text file.

Layout: PREFIX, then a JSON header (counts, directedness, what the file was built from), then
row_offsets (int64), col_indices (int32) and weights (float32, when weighted), little-endian.
The CRC-32 covers the header and the arrays, which are checked as a CSR when read (and, for a
.mgr given to load, an undirected graph's edges as symmetric). Reading one is the fastest way to
a graph: the arrays are read straight into place. A cache beside a text file is keyed to the
SHA-256 of the text's bytes that were parsed and to the load options, and is read only when no
one but this user could have written it."""
import hashlib
import json
import os
import struct
import sys
import zlib

import numpy as np

from ..arrays import to_host
from ..graph import MAX_VERTICES, Graph, check_csr, unmatched_edge
from ..transforms.errors import MinigrError
from ..transforms.files import open_own_file, write_atomically

SUFFIX = ".mgr"
FORMAT_VERSION = 1
MAGIC = b"MINIGR\x00\x1a"
PREFIX = struct.Struct("<8sIII")  # magic, format version, header length, CRC-32 of the rest


def save(graph, path):
    """Write `graph` as a minigr binary file (.mgr), atomically."""
    path = os.fspath(path)
    if not path.lower().endswith(SUFFIX):
        raise MinigrError(f"{path}: a minigr binary graph file must end in {SUFFIX}")
    _write(path, graph, {"source": None, "options": None})


def read_binary(path, device="cpu"):
    """The Graph stored in a .mgr file, on `device`; MinigrError when the file is damaged. Such a
    file may come from anyone, so an undirected graph's edges are checked to be symmetric where
    the graph lives (primitives that pair an edge with its reverse would index outside their
    arrays, and pulls read wrong in-neighbours); a cache of the user's own, written by load, is
    not (see read_cache)."""
    with open(path, "rb") as f:
        header = _read_header(f, path)
        graph = _read_arrays(f, header, path).to(device)
    unmatched = None if graph.directed else unmatched_edge(graph)
    if unmatched:
        raise MinigrError(f"{path}: damaged binary graph (marked undirected, but {unmatched})")
    return graph


def _cache_path(path):
    return path + SUFFIX


def _file_digest(path):
    """The SHA-256 (hex) of a file's bytes: what a cache is keyed to."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def read_cache(path, options):
    """The cached graph for `path` under `options`, or None when absent, stale or damaged, or
    when someone else could have written it (see files.open_own_file: said on stderr)."""
    cache = _cache_path(path)
    f, why = open_own_file(cache)
    if why:
        print(f"minigr: warning: ignoring the binary cache {cache}: {why}; the graph is parsed again",
              file=sys.stderr)
    if f is None:
        return None
    with f:
        try:
            header = _read_header(f, cache)
            if header.get("source") != {"sha256": _file_digest(path)} or header.get("options") != options:
                return None
            return _read_arrays(f, header, cache)
        except (OSError, MinigrError):
            return None


def write_cache(path, graph, options, digest):
    """Cache `graph`, parsed from bytes whose SHA-256 is `digest` (hex), beside `path`; skipped
    silently where that folder cannot be written."""
    try:
        _write(_cache_path(path), graph, {"source": {"sha256": digest}, "options": options})
    except OSError:
        pass


def _arrays(graph):
    """The arrays of `graph` on the host, in the file's byte order."""
    arrays = [(graph.row_offsets, "<i8"), (graph.col_indices, "<i4"), (graph.weights, "<f4")]
    return [to_host(a).astype(t, copy=False) for a, t in arrays if a is not None]


def _write(path, graph, meta):
    """Write `graph` (on any device) with `meta` in its header, whole or not at all."""
    header = json.dumps({"num_vertices": graph.num_vertices, "num_edges": graph.num_edges,
                         "directed": graph.directed, "weighted": graph.weights is not None,
                         **meta}).encode()
    arrays = _arrays(graph)
    crc = zlib.crc32(header)
    for array in arrays:
        crc = zlib.crc32(array, crc)

    def contents(f):
        f.write(PREFIX.pack(MAGIC, FORMAT_VERSION, len(header), crc))
        f.write(header)
        for array in arrays:
            f.write(array.data)
    write_atomically(path, contents)


def _read_header(f, path):
    """The JSON header of an open .mgr file, with its CRC-32 and raw bytes; MinigrError unless
    it is a minigr binary graph whose counts make sense."""
    prefix = f.read(PREFIX.size)
    if len(prefix) < PREFIX.size or not prefix.startswith(MAGIC):
        raise MinigrError(f"{path}: not a minigr binary graph (bad magic)")
    _, version, length, crc = PREFIX.unpack(prefix)
    if version != FORMAT_VERSION:
        raise MinigrError(f"{path}: binary format version {version}; this minigr reads "
                          f"version {FORMAT_VERSION}")
    raw = f.read(length)
    try:
        header = json.loads(raw)
    except ValueError:
        header = None
    if not isinstance(header, dict):
        raise MinigrError(f"{path}: damaged binary graph (unreadable header)")
    for key, valid in (("num_vertices", lambda n: 0 <= n <= MAX_VERTICES), ("num_edges", lambda m: m >= 0),
                       ("directed", None), ("weighted", None)):
        value = header.get(key)
        kind = bool if valid is None else int
        if type(value) is not kind or valid and not valid(value):
            raise MinigrError(f"{path}: damaged binary graph (header {key} is {value!r})")
    return {**header, "_crc": crc, "_raw": raw}


def _read_arrays(f, header, path):
    """The Graph (on the CPU) whose arrays follow `header` in `f`, checked against the file
    size, the CRC-32 and as a CSR (see graph.check_csr): a damaged file is a MinigrError,
    never a graph that indexes outside its arrays."""
    n, m, weighted = header["num_vertices"], header["num_edges"], header["weighted"]
    expected = PREFIX.size + len(header["_raw"]) + 8 * (n + 1) + 4 * m + (4 * m if weighted else 0)
    actual = os.fstat(f.fileno()).st_size
    if actual != expected:
        raise MinigrError(f"{path}: damaged binary graph ({actual} bytes, expected {expected})")
    arrays = [np.empty(n + 1, "<i8"), np.empty(m, "<i4")] + ([np.empty(m, "<f4")] if weighted else [])
    crc = zlib.crc32(header["_raw"])
    for array in arrays:
        f.readinto(array.data)
        crc = zlib.crc32(array, crc)
    if crc != header["_crc"]:
        raise MinigrError(f"{path}: damaged binary graph (checksum mismatch)")
    try:
        check_csr(np, arrays[0], arrays[1])
    except MinigrError as exc:
        raise MinigrError(f"{path}: damaged binary graph ({exc})") from None
    if weighted and not np.isfinite(arrays[2]).all():
        raise MinigrError(f"{path}: damaged binary graph (weights that are not finite)")
    row = _first_unsorted_row(*arrays)
    if row is not None:
        raise MinigrError(f"{path}: damaged binary graph (the columns of row {row} are not sorted, by column "
                          "and an edge's copies by weight)")
    return Graph(*arrays, directed=header["directed"], device="cpu")


def _first_unsorted_row(row_offsets, col_indices, weights=None):
    """The first row whose columns go down (or an edge's copies down in weight), or None: minigr
    writes them sorted, and the intersections (triangles, similarity, ktruss) read them so, as
    simple() takes an edge's first copy for its lightest; a file that says otherwise would give
    wrong answers."""
    down = col_indices[1:] < col_indices[:-1]
    if weights is not None:
        down |= (col_indices[1:] == col_indices[:-1]) & (weights[1:] < weights[:-1])
    starts = row_offsets[1:-1]
    down[starts[(starts > 0) & (starts < len(col_indices))] - 1] = False  # a row's first column after the last row's
    if not down.any():
        return None
    return int(np.searchsorted(row_offsets, int(np.flatnonzero(down)[0]) + 1, side="right")) - 1
