"""Loading graphs from files and generator specs, with a binary cache beside text files.

Sources:
  Matrix Market  .mtx (.mtx.gz): coordinate; pattern, integer or real; general or symmetric
                 (symmetric means undirected: both directions are stored); 1-based ids.
  edge list      .txt .el .edges .tsv (optionally .gz): SNAP style, one "src dst [weight]"
                 per line, whitespace separated, 0-based ids, '#' starts a comment.
  minigr binary  .mgr: what load caches and save writes (CSR arrays, a header, a checksum).
  generator      kron:scale=S,edge_factor=E,seed=K  rgg:scale=S,seed=K  grid:scale=S,seed=K

A text file is parsed in bulk (numpy.loadtxt); only when that fails is it scanned line by
line, to report the first bad line. The result is cached as `<file>.mgr`, keyed to the file's
size and mtime, the format version and the load options; a stale or damaged cache is rebuilt.
"""
import gzip
import json
import os
import re
import struct
import sys
import tempfile
import warnings
import zlib
from collections import namedtuple

import numpy as np

from . import generators
from .graph import Graph, to_host
from .progress import Progress
from .transforms.backend import resolve_device
from .transforms.errors import MinigrError

MATRIX_MARKET = (".mtx",)
EDGE_LIST = (".txt", ".el", ".edges", ".tsv")
BINARY = ".mgr"
GENERATORS = {
    "kron": (generators.kronecker, ("scale", "edge_factor", "seed")),
    "rgg": (generators.rgg, ("scale", "seed")),
    "grid": (generators.grid, ("scale", "seed")),
}
SPEC_DEFAULTS = {"edge_factor": 16, "seed": 1}
WEIGHT_MODES = ("keep", "ignore", "random")
ACCEPTED = ("a Matrix Market file (.mtx, .mtx.gz), an edge list (.txt, .el, .edges, .tsv, "
            "optionally .gz), a minigr binary (.mgr) or a generator spec "
            "(kron:scale=S,edge_factor=E,seed=K, rgg:scale=S,seed=K, grid:scale=S,seed=K)")
BIG_INPUT = 16 << 20  # bytes of text from which load shows progress on a terminal

FORMAT_VERSION = 1
MAGIC = b"MINIGR\x00\x1a"
PREFIX = struct.Struct("<8sIII")  # magic, format version, header length, CRC-32 of the rest

# What a parser hands on: 0-based int64 ids, float weights or None, the vertex count, whether
# the source is directed, and whether each entry stands for both directions (Matrix Market
# "symmetric" files store one triangle).
Edges = namedtuple("Edges", "src dst weights num_vertices directed mirrored")


def load(source, *, directed=None, symmetrize=False, remove_self_loops=False,
         remove_duplicates=False, weights="keep", weight_seed=0, cache=True, device=None,
         progress=None):
    """A Graph from a file or a generator spec (see the module docstring).

    directed: None takes it from the source (symmetric Matrix Market files and generators are
    undirected, the rest directed); True marks the graph directed; False requires symmetric
    edges (or symmetrize=True). symmetrize, remove_self_loops, remove_duplicates: as in
    Graph.from_edges (duplicates keep their smallest weight). weights: "keep" the file's,
    "ignore" them, or "random": integers 1..64 from weight_seed, one per undirected edge.
    cache: read and write `<file>.mgr` beside a text file (skipped where it cannot be written).
    progress: stage lines and the time on stderr; None shows them for big inputs on a terminal.
    """
    device = resolve_device(device)
    if weights not in WEIGHT_MODES:
        raise MinigrError(f"weights must be one of {', '.join(WEIGHT_MODES)}; got {weights!r}")
    options = {"directed": None if directed is None else bool(directed),
               "symmetrize": bool(symmetrize), "remove_self_loops": bool(remove_self_loops),
               "remove_duplicates": bool(remove_duplicates), "weights": weights,
               "weight_seed": int(weight_seed)}  # plain values: they go into the cache header
    source = os.fspath(source)
    if not os.path.exists(source) and re.match(r"[A-Za-z]\w*:", source):
        return _generate(source, options, progress).to(device)
    kind = _kind(source)
    with Progress(f"loading {source}", _shown(progress, os.path.getsize(source) >= BIG_INPUT)
                  ) as report:
        if kind == "binary":
            graph = _reshape(read_binary(source), options, source)
        else:
            graph = _read_cache(source, options) if cache else None
            if graph is None:
                report.stage("parsing")
                edges = (_parse_matrix_market if kind == "mtx" else _parse_edge_list)(source)
                report.stage("building the graph")
                graph = _shape(edges, options, source)
                if cache:
                    report.stage("writing the binary cache")
                    _write_cache(source, graph, options)
    return graph.to(device)


def save(graph, path):
    """Write `graph` as a minigr binary file (.mgr), atomically."""
    path = os.fspath(path)
    if not path.lower().endswith(BINARY):
        raise MinigrError(f"{path}: a minigr binary graph file must end in {BINARY}")
    _write_binary(path, graph, {"source": None, "options": None})


def read_binary(path):
    """The Graph (on the CPU) stored in a .mgr file; MinigrError when the file is damaged."""
    with open(path, "rb") as f:
        header = _read_header(f, path)
        return _read_arrays(f, header, path)


# ---- shaping parsed edges into a Graph ---------------------------------------------------


def _shape(edges, options, path):
    """Build the Graph that parsed edges and the load options describe."""
    try:
        graph = Graph.from_edges(
            edges.src, edges.dst, edges.weights if options["weights"] == "keep" else None,
            num_vertices=edges.num_vertices,
            directed=edges.directed if options["directed"] is None else options["directed"],
            symmetrize=options["symmetrize"] or edges.mirrored,
            remove_self_loops=options["remove_self_loops"],
            remove_duplicates=options["remove_duplicates"], device="cpu")
    except MinigrError as exc:
        raise MinigrError(f"{path}: {exc}") from None
    return _finish(graph, options)


def _reshape(graph, options, path):
    """Apply the load options to a built graph, rebuilding it only when they change edges."""
    if (options["symmetrize"] or options["remove_self_loops"] or options["remove_duplicates"]
            or (options["directed"] is False and graph.directed)):
        edges = Edges(graph.edge_sources(), graph.col_indices, graph.weights,
                      graph.num_vertices, graph.directed, mirrored=False)
        return _shape(edges, options, path)
    return _finish(graph, options)


def _finish(graph, options):
    """`graph` with the weights and the directed flag the options ask for (same edges)."""
    weights = graph.weights if options["weights"] == "keep" else None
    directed = graph.directed or bool(options["directed"])
    if weights is not graph.weights or directed != graph.directed:
        graph = Graph(graph.row_offsets, graph.col_indices, weights, directed=directed,
                      device=graph.device)
    if options["weights"] == "random":
        graph = generators.random_weights(graph, options["weight_seed"])
    return graph


def _generate(spec, options, progress):
    """The graph a generator spec names, e.g. kron:scale=21,edge_factor=16,seed=1."""
    name, _, arguments = spec.partition(":")
    if name not in GENERATORS:
        raise MinigrError(f"{spec!r} is neither a file nor a generator spec; generators: "
                          f"{', '.join(GENERATORS)}")
    generate, keys = GENERATORS[name]
    params = {key: value for key, value in SPEC_DEFAULTS.items() if key in keys}
    for item in filter(None, arguments.split(",")):
        key, _, value = item.partition("=")
        if key not in keys:
            raise MinigrError(f"unknown key {key!r} in {spec!r}; {name} accepts "
                              f"{', '.join(keys)}")
        if not re.fullmatch(r"\d+", value):
            raise MinigrError(f"{key} in {spec!r} must be a non-negative integer, got {value!r}")
        params[key] = int(value)
    if "scale" not in params:
        raise MinigrError(f"{spec!r} needs scale=S (2^S vertices)")
    with Progress(f"generating {spec}", _shown(progress, params["scale"] >= 20)):
        return _reshape(generate(**params, device="cpu"), options, spec)


def _shown(progress, big):
    """Whether to show progress: as asked, else for big inputs when stderr is a terminal."""
    return progress if progress is not None else big and sys.stderr.isatty()


def _kind(path):
    """"mtx", "edges" or "binary" from the file name; MinigrError for others."""
    if not os.path.isfile(path):
        raise MinigrError(f"{path}: no such file; load takes {ACCEPTED}")
    name = path.lower().removesuffix(".gz")
    if path.lower().endswith(BINARY):
        return "binary"
    if name.endswith(MATRIX_MARKET):
        return "mtx"
    if name.endswith(EDGE_LIST):
        return "edges"
    raise MinigrError(f"{path}: unknown file type; load takes {ACCEPTED}")


# ---- text parsers ------------------------------------------------------------------------


def _open(path):
    return gzip.open(path, "rb") if path.lower().endswith(".gz") else open(path, "rb")


def _parse_matrix_market(path):
    with _open(path) as f:
        field, symmetry = _read_banner(f.readline(), path)
        line_number, size_line = 1, None
        for raw in f:
            line_number += 1
            line = raw.decode("utf-8", "replace").strip()
            if line and not line.startswith("%"):
                size_line = line
                break
        if size_line is None:
            raise MinigrError(f"{path}, line {line_number}: missing size line "
                              "'rows columns entries' after the banner")
        size = size_line.split()
        if len(size) != 3 or not all(re.fullmatch(r"\d+", s) for s in size):
            raise MinigrError(f"{path}, line {line_number}: bad size line {size_line!r}; "
                              "expected three non-negative integers 'rows columns entries'")
        rows, columns, count = map(int, size)
        if rows != columns:
            raise MinigrError(f"{path}, line {line_number}: the matrix is {rows} x {columns}; "
                              "a graph's adjacency matrix must be square")
        names = ("row", "column") if field == "pattern" else ("row", "column", "value")
        value_type = np.int64 if field == "integer" else np.float64
        data = _bulk_parse(f, names, value_type, "%")
    src, dst, weights = _columns(data)
    fine = (data is not None and len(src) == count and (src >= 1).all() and (src <= rows).all()
            and (dst >= 1).all() and (dst <= rows).all() and _finite(weights))
    if not fine:
        _scan(path, line_number + 1, "%", names, value_type, count=count, id_range=(1, rows))
    mirrored = symmetry == "symmetric"
    return Edges(src - 1, dst - 1, weights, rows, directed=not mirrored, mirrored=mirrored)


def _read_banner(raw, path):
    """(field, symmetry) from a Matrix Market banner line; MinigrError for others."""
    line = raw.decode("utf-8", "replace").strip()
    words = line.lower().split()
    if not words or words[0] != "%%matrixmarket":
        raise MinigrError(f"{path}, line 1: missing Matrix Market banner; expected "
                          f"'%%MatrixMarket matrix coordinate <field> <symmetry>', got {line!r}")
    if len(words) != 5 or words[1] != "matrix":
        raise MinigrError(f"{path}, line 1: bad banner {line!r}; expected "
                          "'%%MatrixMarket matrix coordinate <field> <symmetry>'")
    _, _, layout, field, symmetry = words
    for what, value, accepted in (("format", layout, ("coordinate",)),
                                  ("field", field, ("pattern", "integer", "real")),
                                  ("symmetry", symmetry, ("general", "symmetric"))):
        if value not in accepted:
            raise MinigrError(f"{path}, line 1: unsupported Matrix Market {what} {value!r}; "
                              f"accepted: {', '.join(accepted)}")
    return field, symmetry


def _parse_edge_list(path):
    with _open(path) as f:
        first, line_number = None, 0
        for raw in f:
            line_number += 1
            first = raw.split(b"#", 1)[0].split()
            if first:
                break
        if not first:
            return Edges(np.zeros(0, np.int64), np.zeros(0, np.int64), None, 0, True, False)
        if len(first) not in (2, 3):
            raise MinigrError(f"{path}, line {line_number}: expected 2 or 3 columns "
                              f"(source, target[, weight]), found {len(first)}")
        names = ("source", "target", "weight")[:len(first)]
    with _open(path) as f:
        data = _bulk_parse(f, names, np.float64, "#")
    src, dst, weights = _columns(data)
    if data is None or (src < 0).any() or (dst < 0).any() or not _finite(weights):
        _scan(path, 1, "#", names, np.float64, count=None, id_range=(0, None))
    n = int(max(src.max(), dst.max())) + 1 if len(src) else 0
    return Edges(src, dst, weights, n, directed=True, mirrored=False)


def _bulk_parse(f, names, value_type, comment):
    """The rest of `f` as a structured array with fields `names` (ids int64, then the value);
    None when it does not parse cleanly."""
    dtype = np.dtype([(name, np.int64) for name in names[:2]] +
                     [(name, value_type) for name in names[2:]])
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # "input contained no data"
            return np.loadtxt(f, dtype=dtype, comments=comment, ndmin=1)
    except ValueError:
        return None


def _columns(data):
    """(src, dst, weights or None) from a structured array (empty when data is None)."""
    if data is None:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), None
    names = data.dtype.names
    weights = data[names[2]].astype(np.float64) if len(names) == 3 else None
    return data[names[0]], data[names[1]], weights


def _finite(weights):
    return weights is None or bool(np.isfinite(weights).all())


def _scan(path, first_line, comment, names, value_type, *, count, id_range):
    """Raise MinigrError for the first bad line from `first_line` on: wrong column count,
    unparsable number, id out of range, NaN or infinite weight, too many or too few entries."""
    low, high = id_range
    entries, line_number = 0, first_line - 1
    with _open(path) as f:
        for line_number, raw in enumerate(f, 1):
            if line_number < first_line:
                continue
            tokens = raw.decode("utf-8", "replace").split(comment, 1)[0].split()
            if not tokens:
                continue
            where = f"{path}, line {line_number}"
            if entries == count:
                raise MinigrError(f"{where}: too many entries; the size line says {count}")
            if len(tokens) != len(names):
                raise MinigrError(f"{where}: expected {len(names)} columns "
                                  f"({', '.join(names)}), found {len(tokens)}")
            for name, token in zip(names, tokens):
                _check_token(where, name, token, low, high, value_type)
            entries += 1
    if count is not None and entries < count:
        raise MinigrError(f"{path}, line {line_number}: too few entries; the size line says "
                          f"{count}, the file has {entries}")
    raise MinigrError(f"{path}: could not parse the entries (no single bad line found)")


def _check_token(where, name, token, low, high, value_type):
    if name in ("value", "weight") and value_type is np.float64:
        try:
            value = float(token)
        except ValueError:
            raise MinigrError(f"{where}: unparsable {name} {token!r}") from None
        if not np.isfinite(value):
            raise MinigrError(f"{where}: {name} {token!r} is not a finite number")
        return
    if not re.fullmatch(r"[+-]?\d+", token):
        raise MinigrError(f"{where}: unparsable {name} {token!r} (expected an integer)")
    if name in ("value", "weight"):
        return
    value = int(token)
    if value < low or (high is not None and value > high):
        allowed = f"{low} to {high}" if high is not None else f">= {low}"
        raise MinigrError(f"{where}: {name} id {value} is out of range ({allowed})")


# ---- the binary format and cache ---------------------------------------------------------
# PREFIX, then a JSON header (counts, directedness, what the file was built from), then
# row_offsets (int64), col_indices (int32) and weights (float32, when weighted), little-endian.
# The CRC-32 covers the header and the arrays.


def _cache_path(path):
    return path + BINARY


def _source_key(path):
    stat = os.stat(path)
    return {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns}


def _read_cache(path, options):
    """The cached graph for `path` under `options`, or None when absent, stale or damaged."""
    try:
        with open(_cache_path(path), "rb") as f:
            header = _read_header(f, path)
            if header["source"] != _source_key(path) or header["options"] != options:
                return None
            return _read_arrays(f, header, path)
    except (OSError, MinigrError, KeyError, TypeError, ValueError):
        return None


def _write_cache(path, graph, options):
    """Cache `graph` beside `path`; skipped silently where that folder cannot be written."""
    try:
        _write_binary(_cache_path(path), graph,
                      {"source": _source_key(path), "options": options})
    except OSError:
        pass


def _arrays(graph):
    """The arrays of `graph` on the host, in the file's byte order."""
    arrays = [(graph.row_offsets, "<i8"), (graph.col_indices, "<i4"), (graph.weights, "<f4")]
    return [to_host(a).astype(t, copy=False) for a, t in arrays if a is not None]


def _write_binary(path, graph, meta):
    """Write `graph` (on the CPU) with `meta` in its header to a temporary file in the
    destination folder, then rename it into place: readers never see a partial file."""
    header = json.dumps({"num_vertices": graph.num_vertices, "num_edges": graph.num_edges,
                         "directed": graph.directed, "weighted": graph.weights is not None,
                         **meta}).encode()
    arrays = _arrays(graph)
    crc = zlib.crc32(header)
    for array in arrays:
        crc = zlib.crc32(array, crc)
    folder, name = os.path.split(os.path.abspath(path))
    fd, temp = tempfile.mkstemp(dir=folder, prefix=f".{name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(PREFIX.pack(MAGIC, FORMAT_VERSION, len(header), crc))
            f.write(header)
            for array in arrays:
                f.write(array.data)
        os.replace(temp, path)
    except BaseException:
        os.unlink(temp)
        raise


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
