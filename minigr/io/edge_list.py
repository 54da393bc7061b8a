"""Edge lists (.txt .el .edges .tsv, optionally .gz), SNAP style: one "source target
[weight]" per line, whitespace separated, 0-based ids, '#' starts a comment. The first line
with numbers sets the column count; the lines are read by columns.py."""
import numpy as np

from ..transforms.errors import MinigrError
from . import columns
from .options import Edges

SUFFIXES = (".txt", ".el", ".edges", ".tsv")


def read(path, digest=None):
    """The Edges of an edge list (directed); MinigrError naming the file and line of a
    mistake. digest: as for columns.open_binary."""
    with columns.open_binary(path, digest) as f:
        line_number, first = 0, []
        while not first and (raw := f.readline()):
            line_number += 1
            first = raw.split(b"#", 1)[0].split()
        if not first:
            return Edges(np.zeros(0, np.int64), np.zeros(0, np.int64), None, 0, True, False)
        if len(first) not in (2, 3):
            raise MinigrError(f"{path}, line {line_number}: expected 2 or 3 columns "
                              f"(source, target[, weight]), found {len(first)}")
        names = ("source", "target", "weight")[:len(first)]
        layout = columns.Layout(names, np.float64, low=0, high=None, comment="#", count=None)
        src, dst, weights = columns.read(f, path, line_number, layout, head=raw)
    n = int(max(src.max(), dst.max())) + 1 if len(src) else 0
    return Edges(src, dst, weights, n, directed=True, mirrored=False)
