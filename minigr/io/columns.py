"""Columns of numbers from the body of a text graph file (Matrix Market entries, edge-list
lines): two vertex ids per line, then optionally a value.

The body is read in chunks of whole lines. A regular chunk (one space or one tab between the
columns) goes through pyarrow's multithreaded CSV reader, which is strict: every line must have
exactly the columns and every field must parse whole as its type, or the chunk is refused. A
refused chunk goes through numpy.loadtxt, which also takes runs of whitespace, comments and
CRLF ends. Each chunk's ids and values are then checked (range, finite, not more entries than
announced). A chunk that fails is scanned line by line, and only that chunk, for the first
bad line, which the error names. (Matrix Market's own parser, fast_matrix_market, behind
scipy.io.mmread, reads "1 2 3.0" as column 2, value 3, and drops extra columns and trailing
junk such as "5x" without a word, so it cannot tell a bad file from a good one.)"""
import contextlib
import gzip
import io
import re
import warnings
import zlib
from collections import namedtuple

import numpy as np

from ..transforms.errors import MinigrError

BYTE_ORDER_MARK = b"\xef\xbb\xbf"  # UTF-8's
CHUNK_BYTES = 16 << 20  # measured: larger chunks copy slower, smaller ones thread worse
# The numbers both parsers take (ASCII digits only: Python's int and float also take other
# scripts' digits and 1_000, which would let the scan pass a line the parsers refused).
INTEGER = re.compile(r"[+-]?[0-9]+")
FLOAT = re.compile(r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf(?:inity)?|nan)", re.IGNORECASE)

# names: the columns (2 ids, then the value's name if any); value_type: np.int64 or
# np.float64 for the value column; ids must lie in [low, high] (high None: unbounded); comment:
# the character that starts one; count: how many entries the file announces, or None.
Layout = namedtuple("Layout", "names value_type low high comment count")


@contextlib.contextmanager
def open_binary(path, digest=None):
    """A `with` context giving `path` open for reading bytes, through gzip when it ends in .gz
    (damaged gzip data is a MinigrError), past a UTF-8 byte order mark (Windows editors write
    one); digest: a hashlib object that takes in every byte read from the file (before gzip)."""
    with open(path, "rb", buffering=0) as raw, \
            io.BufferedReader(raw if digest is None else _Digesting(raw, digest)) as f:
        if path.lower().endswith(".gz"):
            try:
                with gzip.GzipFile(fileobj=f) as unzipped:
                    yield _past_byte_order_mark(unzipped)
            except (gzip.BadGzipFile, EOFError, zlib.error) as exc:
                raise MinigrError(f"{path}: damaged gzip data ({exc}); is it a whole .gz file?") from None
        else:
            yield _past_byte_order_mark(f)


def _past_byte_order_mark(f):
    """`f` (a buffered binary file) read past a leading UTF-8 byte order mark, if any."""
    if f.peek(len(BYTE_ORDER_MARK)).startswith(BYTE_ORDER_MARK):
        f.read(len(BYTE_ORDER_MARK))
    return f


class _Digesting(io.RawIOBase):
    """A raw binary file whose bytes read also go into `digest`."""

    def __init__(self, raw, digest):
        self.raw, self.digest = raw, digest

    def readable(self):
        return True

    def readinto(self, buffer):
        count = self.raw.readinto(buffer)
        self.digest.update(memoryview(buffer)[:count])
        return count


def read(f, path, first_line, layout, head=b""):
    """(src, dst, values or None) as NumPy arrays from the rest of the binary file `f`, whose
    next line (after `head`, a line already read) is line `first_line` of `path`; MinigrError
    naming the first bad line."""
    parts, entries, line = [], 0, first_line
    chunk = b""
    for chunk in _chunks(f, head):
        columns = _read_regular(chunk, layout)
        if columns is None:
            columns = _read_irregular(chunk, layout)
        if columns is None or not _plausible(columns, layout, entries):
            _raise_first_bad_line(chunk, path, line, layout, entries)
        parts.append(columns)
        entries += len(columns[0])
        line += chunk.count(b"\n")
    if layout.count is not None and entries < layout.count:
        last = line - 1 if chunk.endswith(b"\n") or not chunk else line
        raise MinigrError(f"{path}, line {last}: too few entries; the size line says "
                          f"{layout.count}, the file has {entries}")
    if not parts:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), _empty_values(layout)
    joined = [np.concatenate(column) for column in zip(*parts)]
    return joined[0], joined[1], joined[2] if len(joined) == 3 else None


def _chunks(f, head):
    """The bytes of `f` (after `head`) in pieces of about CHUNK_BYTES, each ending at a line
    end (the last one may not)."""
    rest = head
    while block := f.read(CHUNK_BYTES):
        block = rest + block
        end = block.rfind(b"\n") + 1
        rest = block[end:]
        if end:
            yield block[:end]
    if rest:
        yield rest


def _read_regular(chunk, layout):
    """The columns of a regular chunk through pyarrow, or None when it refuses the chunk.
    (pyarrow is imported here, on first use: generator specs do not need its 0.1 s.)"""
    import pyarrow
    import pyarrow.csv
    if b"x" in chunk or b"X" in chunk:  # pyarrow reads 0x10 as 16, which no other path takes
        return None
    delimiter = "\t" if b"\t" in chunk[:4096] else " "
    # int32 ids parse faster; larger ones could not be vertex ids anyway (the irregular path
    # reads them, and the checks name them). With two names, zip leaves the value type out.
    types = [pyarrow.int32(), pyarrow.int32(), pyarrow.from_numpy_dtype(layout.value_type)]
    try:
        table = pyarrow.csv.read_csv(
            pyarrow.BufferReader(chunk),
            read_options=pyarrow.csv.ReadOptions(column_names=layout.names),
            parse_options=pyarrow.csv.ParseOptions(delimiter=delimiter, quote_char=False,
                                                   double_quote=False, escape_char=False),
            convert_options=pyarrow.csv.ConvertOptions(
                column_types=dict(zip(layout.names, types)), null_values=[],
                strings_can_be_null=False, quoted_strings_can_be_null=False))
    except pyarrow.ArrowException:  # irregular text, or an empty chunk
        return None
    return [column.to_numpy() for column in table.columns]


def _read_irregular(chunk, layout):
    """The columns of a chunk through numpy.loadtxt (runs of whitespace, comments, CRLF), or
    None when it does not parse."""
    dtype = np.dtype([(name, np.int64) for name in layout.names[:2]] +
                     [(name, layout.value_type) for name in layout.names[2:]])
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # "input contained no data"
            data = np.loadtxt(io.BytesIO(chunk), dtype=dtype, comments=layout.comment, ndmin=1)
    except ValueError:
        return None
    return [data[name] for name in layout.names]


def _plausible(columns, layout, entries_before):
    """Whether a chunk's columns pass the checks the scan would make: ids in range, values
    finite, no more entries than announced."""
    ids = columns[:2]
    if len(ids[0]) and any(int(i.min()) < layout.low or
                           (layout.high is not None and int(i.max()) > layout.high) for i in ids):
        return False
    if len(columns) == 3 and layout.value_type is np.float64 and not np.isfinite(columns[2]).all():
        return False
    return layout.count is None or entries_before + len(ids[0]) <= layout.count


def _empty_values(layout):
    return np.zeros(0, layout.value_type) if len(layout.names) == 3 else None


def _raise_first_bad_line(chunk, path, first_line, layout, entries):
    """Raise MinigrError for the first bad line of `chunk` (line `first_line` on, `entries`
    entries before it): wrong column count, unparsable number, id out of range, NaN or
    infinite value, more entries than announced."""
    names, count = layout.names, layout.count
    for line_number, raw in enumerate(io.BytesIO(chunk), first_line):
        # split at ASCII whitespace only, as both parsers do (not at a no-break space, say)
        tokens = [t.decode("utf-8", "replace") for t in raw.split(layout.comment.encode(), 1)[0].split()]
        if not tokens:
            continue
        where = f"{path}, line {line_number}"
        if entries == count:
            raise MinigrError(f"{where}: too many entries; the size line says {count}")
        if len(tokens) != len(names):
            raise MinigrError(f"{where}: expected {len(names)} columns "
                              f"({', '.join(names)}), found {len(tokens)}")
        for index, (name, token) in enumerate(zip(names, tokens)):
            _check_token(where, name, token, layout if index < 2 else None, layout.value_type)
        entries += 1
    raise MinigrError(f"{path}: could not parse the lines from {first_line} on (no single bad "
                      "line found)")


def _check_token(where, name, token, id_layout, value_type):
    """Raise MinigrError if `token` is not a valid id (id_layout given) or value."""
    if id_layout is None and value_type is np.float64:
        if not FLOAT.fullmatch(token):
            raise MinigrError(f"{where}: unparsable {name} {token!r}")
        if not np.isfinite(float(token)):
            raise MinigrError(f"{where}: {name} {token!r} is not a finite number")
        return
    if not INTEGER.fullmatch(token):
        raise MinigrError(f"{where}: unparsable {name} {token!r} (expected an integer)")
    value = int(token)
    if not -2**63 <= value < 2**63:
        raise MinigrError(f"{where}: {name} {token} does not fit a 64-bit integer")
    if id_layout is None:
        return
    low, high = id_layout.low, id_layout.high
    if value < low or (high is not None and value > high):
        allowed = f"{low} to {high}" if high is not None else f">= {low}"
        raise MinigrError(f"{where}: {name} id {value} is out of range ({allowed})")
