"""The minigr binary graph file (.mgr): what save writes and load caches beside a text file.

Layout: PREFIX, then a JSON header (counts, directedness, what the file was built from), then
row_offsets (int64), col_indices (int32) and weights (float32, when weighted), little-endian.
The CRC-32 covers the header and the arrays. Reading one is the fastest way to a graph: the
arrays are read straight into place."""
import json
import os
import struct
import zlib

import numpy as np

from ..arrays import to_host
from ..graph import Graph
from ..transforms.errors import MinigrError
from ..transforms.files import write_atomically

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


def read_binary(path):
    """The Graph (on the CPU) stored in a .mgr file; MinigrError when the file is damaged."""
    with open(path, "rb") as f:
        header = _read_header(f, path)
        return _read_arrays(f, header, path)


def _cache_path(path):
    return path + SUFFIX


def _source_key(path):
    stat = os.stat(path)
    return {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns}


def read_cache(path, options):
    """The cached graph for `path` under `options`, or None when absent, stale or damaged."""
    try:
        with open(_cache_path(path), "rb") as f:
            header = _read_header(f, path)
            if header["source"] != _source_key(path) or header["options"] != options:
                return None
            return _read_arrays(f, header, path)
    except (OSError, MinigrError, KeyError, TypeError, ValueError):
        return None


def write_cache(path, graph, options):
    """Cache `graph` beside `path`; skipped silently where that folder cannot be written."""
    try:
        _write(_cache_path(path), graph,
                      {"source": _source_key(path), "options": options})
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
    """The JSON header of an open .mgr file, its CRC-32 and where the arrays start."""
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
    return {**header, "_crc": crc, "_raw": raw}


def _read_arrays(f, header, path):
    """The Graph (on the CPU) whose arrays follow `header` in `f`, checked against the file
    size and the CRC-32."""
    n, m = header["num_vertices"], header["num_edges"]
    arrays = [np.empty(n + 1, "<i8"), np.empty(m, "<i4")]
    if header["weighted"]:
        arrays.append(np.empty(m, "<f4"))
    expected = PREFIX.size + len(header["_raw"]) + sum(a.nbytes for a in arrays)
    actual = os.fstat(f.fileno()).st_size
    if actual != expected:
        raise MinigrError(f"{path}: damaged binary graph ({actual} bytes, expected {expected})")
    crc = zlib.crc32(header["_raw"])
    for array in arrays:
        f.readinto(array.data)
        crc = zlib.crc32(array, crc)
    if crc != header["_crc"]:
        raise MinigrError(f"{path}: damaged binary graph (checksum mismatch)")
    return Graph(*arrays, directed=header["directed"], device="cpu")
