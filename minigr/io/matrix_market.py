"""Matrix Market files (.mtx, .mtx.gz): the coordinate format, pattern, integer or real
entries, general or symmetric, 1-based ids. The banner and size line are read here; the
entries by columns.py. minigr is lenient where it is safe: any case in the banner, comments
and blank lines among the entries, runs of spaces and tabs, CRLF line ends, a UTF-8 byte order mark."""
import re

import numpy as np

from ..transforms.errors import MinigrError
from . import columns
from .options import Edges

SUFFIXES = (".mtx",)
BANNER = "'%%MatrixMarket matrix coordinate <field> <symmetry>'"


def read(path, digest=None):
    """The Edges of a Matrix Market file; MinigrError naming the file and line of a mistake.
    digest: as for columns.open_binary."""
    with columns.open_binary(path, digest) as f:
        field, symmetry = _read_banner(f.readline(), path)
        line_number, size_line = 1, None
        while raw := f.readline():
            line_number += 1
            line = raw.decode("utf-8", "replace").strip()
            if line and not line.startswith("%"):
                size_line = line
                break
        if size_line is None:
            raise MinigrError(f"{path}, line {line_number}: missing size line "
                              "'rows columns entries' after the banner")
        rows, count = _read_size(size_line, path, line_number)
        names = ("row", "column") if field == "pattern" else ("row", "column", "value")
        layout = columns.Layout(names, np.int64 if field == "integer" else np.float64,
                                low=1, high=rows, comment="%", count=count)
        src, dst, values = columns.read(f, path, line_number + 1, layout)
    src -= 1  # fresh arrays: in place saves two copies of every id
    dst -= 1
    mirrored = symmetry == "symmetric"
    return Edges(src, dst, values, rows, directed=not mirrored, mirrored=mirrored)


def _read_banner(raw, path):
    """(field, symmetry) from a Matrix Market banner line; MinigrError for others."""
    line = raw.decode("utf-8", "replace").strip()
    words = line.lower().split()
    if not words or words[0] != "%%matrixmarket":
        raise MinigrError(f"{path}, line 1: missing Matrix Market banner; expected "
                          f"{BANNER}, got {line!r}")
    if len(words) != 5 or words[1] != "matrix":
        raise MinigrError(f"{path}, line 1: bad banner {line!r}; expected {BANNER}")
    _, _, layout, field, symmetry = words
    for what, value, accepted in (("format", layout, ("coordinate",)),
                                  ("field", field, ("pattern", "integer", "real")),
                                  ("symmetry", symmetry, ("general", "symmetric"))):
        if value not in accepted:
            raise MinigrError(f"{path}, line 1: unsupported Matrix Market {what} {value!r}; "
                              f"accepted: {', '.join(accepted)}")
    return field, symmetry


def _read_size(size_line, path, line_number):
    """(rows, entries) from the size line of a square matrix."""
    size = size_line.split()
    if len(size) != 3 or not all(re.fullmatch(r"\d+", s) for s in size):
        raise MinigrError(f"{path}, line {line_number}: bad size line {size_line!r}; "
                          "expected three non-negative integers 'rows columns entries'")
    rows, cols, count = map(int, size)
    if rows != cols:
        raise MinigrError(f"{path}, line {line_number}: the matrix is {rows} x {cols}; "
                          "a graph's adjacency matrix must be square")
    return rows, count
