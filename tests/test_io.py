"""load(): Matrix Market and edge lists against SciPy, errors, the binary cache, specs (CPU)."""
import gzip
import os

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

from minigr import Graph, MinigrError, generators, io, load
from minigr.transforms import files

BANNER = "%%MatrixMarket matrix coordinate {} {}\n"


def write(path, text):
    if str(path).endswith(".gz"):
        with gzip.open(path, "wt") as f:
            f.write(text)
    else:
        path.write_text(text)
    return path


def random_mtx(seed, n=30, m=120, field="real", symmetry="general", zero_ids=False):
    """Matrix Market text with duplicates, self-loops, header comments and blank lines."""
    rng = np.random.default_rng(seed)
    rows, cols = rng.integers(1, n + 1, m), rng.integers(1, n + 1, m)
    if symmetry == "symmetric":
        rows, cols = np.maximum(rows, cols), np.minimum(rows, cols)
    values = {"real": [f" {x:.6g}" for x in rng.normal(size=m)],
              "integer": [f" {x}" for x in rng.integers(-5, 50, m)],
              "pattern": [""] * m}[field]
    lines = [f"{r} {c}{v}" for r, c, v in zip(rows, cols, values)]
    lines.insert(m // 3, "")
    return (BANNER.format(field, symmetry) + "% generated\n%\n"
            + f"{n} {n} {m}\n" + "\n".join(lines) + "\n")


def same_as_scipy(graph, path):
    """graph equals what scipy.io.mmread reads from path (duplicates summed on both sides)."""
    expected = sp.csr_matrix(scipy.io.mmread(str(path)))
    actual = graph.to_scipy()
    assert actual.shape == expected.shape and actual.nnz >= expected.nnz
    if expected.nnz:
        assert abs(actual - expected).max() <= 1e-6 * abs(expected).max()  # float32 weights


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("field", ["real", "integer", "pattern"])
@pytest.mark.parametrize("symmetry", ["general", "symmetric"])
@pytest.mark.parametrize("suffix", [".mtx", ".mtx.gz"])
def test_matrix_market_matches_scipy(tmp_path, seed, field, symmetry, suffix):
    path = write(tmp_path / f"g{suffix}", random_mtx(seed, field=field, symmetry=symmetry))
    g = load(path, device="cpu")
    assert g.directed == (symmetry == "general")
    assert (g.weights is None) == (field == "pattern")
    same_as_scipy(g, path)
    if symmetry == "symmetric":
        assert g.reverse() is g


@pytest.mark.parametrize("text, vertices, edges", [
    (BANNER.format("real", "general") + "0 0 0\n", 0, 0),
    (BANNER.format("real", "general") + "5 5 0\n", 5, 0),
    (BANNER.format("real", "general") + "1 1 1\n1 1 2.5\n", 1, 1),
    (BANNER.format("pattern", "symmetric") + "10 10 2\n3 1\n7 7\n", 10, 3),  # isolated vertices
])
def test_matrix_market_edge_cases(tmp_path, text, vertices, edges):
    path = write(tmp_path / "g.mtx", text)
    g = load(path, device="cpu")
    assert (g.num_vertices, g.num_edges) == (vertices, edges)
    same_as_scipy(g, path)


def test_matrix_market_leniency(tmp_path):
    """What SciPy refuses but minigr reads: any case, comments among the entries and after
    them, CRLF line ends, tabs."""
    clean = write(tmp_path / "clean.mtx", BANNER.format("integer", "general")
                  + "3 3 2\n2 1 7\n3 3 -1\n")
    lenient = write(tmp_path / "lenient.mtx", BANNER.format("integer", "general").upper()
                    + "3 3 2\r\n\r\n  2\t1   7 % trailing\r\n% between\r\n3 3 -1\r\n\r\n")
    assert same_graph(load(lenient, device="cpu"), load(clean, device="cpu"))
    same_as_scipy(load(lenient, device="cpu"), clean)


def test_matrix_market_duplicates_and_loops_on_request(tmp_path):
    path = write(tmp_path / "g.mtx", BANNER.format("real", "general")
                 + "3 3 5\n1 2 4.0\n1 2 1.5\n2 2 3.0\n3 1 2.0\n1 2 9.0\n")
    assert load(path, device="cpu").num_edges == 5
    g = load(path, remove_duplicates=True, remove_self_loops=True, device="cpu")
    assert g.edge_sources().tolist() == [0, 2] and g.col_indices.tolist() == [1, 0]
    assert g.weights.tolist() == [1.5, 2.0]


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("suffix", [".txt", ".el", ".edges", ".tsv", ".txt.gz"])
def test_edge_list(tmp_path, seed, suffix):
    rng = np.random.default_rng(seed)
    src, dst = rng.integers(0, 50, 200), rng.integers(0, 50, 200)
    weighted = seed % 2 == 0
    weights = rng.integers(1, 9, 200)
    lines = ["# SNAP style header", "# Nodes: 50"]
    lines += [f"{u}\t{v}" + (f" {w}" if weighted else "") for u, v, w in zip(src, dst, weights)]
    path = write(tmp_path / f"g{suffix}", "\n".join(lines) + "\n")
    g = load(path, device="cpu")
    n = max(src.max(), dst.max()) + 1
    expected = sp.csr_matrix((weights if weighted else np.ones(200), (src, dst)), shape=(n, n))
    assert g.directed and g.num_vertices == n and g.num_edges == 200
    assert (g.weights is not None) == weighted
    assert abs(g.to_scipy() - expected).max() == 0


def test_empty_edge_list(tmp_path):
    g = load(write(tmp_path / "g.txt", "# nothing here\n\n"), device="cpu")
    assert (g.num_vertices, g.num_edges) == (0, 0)


MTX_ERRORS = [
    ("3 3 1\n1 2\n", r"line 1: missing Matrix Market banner"),
    ("%%MatrixMarket matrix coordinate real\n3 3 0\n", r"line 1: bad banner"),
    ("%%MatrixMarket matrix array real general\n3 3\n", r"line 1: .*format 'array'"),
    (BANNER.format("complex", "general") + "1 1 1\n1 1 1 0\n", r"line 1: .*field 'complex'"),
    (BANNER.format("real", "hermitian") + "1 1 0\n", r"line 1: .*symmetry 'hermitian'"),
    (BANNER.format("real", "skew-symmetric") + "1 1 0\n", r"line 1: .*'skew-symmetric'"),
    (BANNER.format("real", "general") + "% only comments\n", r"line 2: missing size line"),
    (BANNER.format("real", "general") + "3 3\n", r"line 2: bad size line '3 3'"),
    (BANNER.format("real", "general") + "3 x 1\n", r"line 2: bad size line"),
    (BANNER.format("real", "general") + "3 4 1\n1 2 1\n", r"line 2: the matrix is 3 x 4"),
    (BANNER.format("real", "general") + "3 3 3\n1 2 1\n2 3 1\n",
     r"line 4: too few entries; the size line says 3, the file has 2"),
    (BANNER.format("real", "general") + "3 3 1\n1 2 1\n2 3 1\n", r"line 4: too many entries"),
    (BANNER.format("real", "general") + "3 3 2\n1 2 1\n0 3 1\n",
     r"line 4: row id 0 is out of range \(1 to 3\)"),
    (BANNER.format("real", "general") + "3 3 2\n1 2 1\n% c\n3 4 1\n",
     r"line 5: column id 4 is out of range \(1 to 3\)"),
    (BANNER.format("real", "general") + "3 3 2\n1 2 1\n2 x 1\n", r"line 4: unparsable column 'x'"),
    (BANNER.format("real", "general") + "3 3 2\n1 2 1\n2 3 abc\n",
     r"line 4: unparsable value 'abc'"),
    (BANNER.format("integer", "general") + "3 3 1\n1 2 1.5\n",
     r"line 3: unparsable value '1.5' \(expected an integer\)"),
    (BANNER.format("real", "general") + "3 3 2\n1 2 nan\n2 3 1\n",
     r"line 3: value 'nan' is not a finite number"),
    (BANNER.format("real", "general") + "3 3 2\n1 2 1\n2 3 -inf\n",
     r"line 4: value '-inf' is not a finite number"),
    (BANNER.format("real", "general") + "3 3 2\n1 2 1\n2 3\n",
     r"line 4: expected 3 columns \(row, column, value\), found 2"),
    (BANNER.format("pattern", "general") + "3 3 1\n1 2 5\n",
     r"line 3: expected 2 columns \(row, column\), found 3"),
    # what scipy.io.mmread (fast_matrix_market) reads without a word, each as a wrong edge
    (BANNER.format("real", "general") + "3 3 2\n1 2 1\n3 3.0 5\n",
     r"line 4: unparsable column '3.0' \(expected an integer\)"),
    (BANNER.format("real", "general") + "3 3 2\n1 2 1\n3 3 5x\n", r"line 4: unparsable value '5x'"),
    (BANNER.format("real", "general") + "3 3 2\n1 2 1\n3 3 0x10\n",
     r"line 4: unparsable value '0x10'"),
    (BANNER.format("real", "general") + "3 3 2\n1 2 1\n2 1 7 8\n",
     r"line 4: expected 3 columns \(row, column, value\), found 4"),
    (BANNER.format("integer", "general") + "3 3 1\n1 2 99999999999999999999\n",
     r"line 3: value 99999999999999999999 does not fit a 64-bit integer"),
    (BANNER.format("pattern", "general") + "3 3 1\n1 99999999999\n",
     r"line 3: column id 99999999999 is out of range \(1 to 3\)"),
    (BANNER.format("pattern", "general") + "3 3 2\n1 2\n2 0x3\n", r"line 4: unparsable column '0x3'"),
    (BANNER.format("integer", "general") + "3 3 2\n1 2 1\n2 3 0x10\n", r"line 4: unparsable value '0x10'"),
    (BANNER.format("pattern", "general") + "3 3 1\n1 99999999999999999999\n",
     r"line 3: column 99999999999999999999 does not fit a 64-bit integer"),
]


@pytest.mark.parametrize("text, message", MTX_ERRORS)
def test_matrix_market_errors(tmp_path, text, message):
    path = write(tmp_path / "bad.mtx", text)
    with pytest.raises(MinigrError, match=f"^{path}, {message}"):
        load(path, cache=False, device="cpu")


def test_edge_list_leniency(tmp_path):
    """Runs of spaces and tabs, signs, CRLF, comments anywhere: read as the clean text is."""
    clean = write(tmp_path / "clean.txt", "0 1 2.5\n1 2 1\n3 0 4\n")
    lenient = write(tmp_path / "lenient.txt", "# header\r\n  0\t 1  2.5 # c\r\n\r\n"
                    "+1 2 1e0\r\n# between\r\n3\t0\t+4\r\n")
    assert same_graph(load(lenient, device="cpu"), load(clean, device="cpu"))


EDGE_LIST_ERRORS = [
    ("0 1\n1 -1\n", r"line 2: target id -1 is out of range \(>= 0\)"),
    ("# w\n0 1 2.0\n1 2\n", r"line 3: expected 3 columns \(source, target, weight\), found 2"),
    ("0 1\n1 2 5\n", r"line 2: expected 2 columns \(source, target\), found 3"),
    ("0 1 2 3\n", r"line 1: expected 2 or 3 columns \(source, target\[, weight\]\), found 4"),
    ("0 1\n1 b\n", r"line 2: unparsable target 'b'"),
    ("0 1 1\n1 2 inf\n", r"line 2: weight 'inf' is not a finite number"),
    ("0 1 1\n1 2 NaN\n", r"line 2: weight 'NaN' is not a finite number"),
    ("# c\n\n0 1 1\n1 2 1.5.1\n", r"line 4: unparsable weight '1.5.1'"),
    ("0 1\n2 3.0\n", r"line 2: unparsable target '3.0' \(expected an integer\)"),
    # issue 29: each read the same whichever parser takes the chunk, and the scan names the line
    ("0 1\n0 0x10\n", r"line 2: unparsable target '0x10' \(expected an integer\)"),
    ("0 1\n0  0x10\n", r"line 2: unparsable target '0x10' \(expected an integer\)"),
    ("0 1\n0 99999999999999999999\n", r"line 2: target 99999999999999999999 does not fit a 64-bit integer"),
    ("0 1\n0\u00a01\n", r"line 2: expected 2 columns \(source, target\), found 1"),  # a no-break space
    ("0 1\n0\u30001\n", r"line 2: expected 2 columns \(source, target\), found 1"),  # an ideographic space
    ("0 1\n0 \u0663\n", r"line 2: unparsable target '\u0663' \(expected an integer\)"),  # Arabic-Indic 3
    ("0 1 1\n0 2 1_000\n", r"line 2: unparsable weight '1_000'"),
]


@pytest.mark.parametrize("name, text", [
    ("comment.txt", "# saved by an editor\n0 1 2.5\n1 2 1\n3 0 4\n"),
    ("spaced.txt", "0  1 2.5\n1 2 1\n3 0 4\n"),  # runs of spaces: the loadtxt path
    ("plain.txt", "0 1 2.5\n1 2 1\n3 0 4\n"),
    ("g.mtx", BANNER.format("real", "general") + "4 4 3\n1 2 2.5\n2 3 1\n4 1 4\n"),
    ("g.mtx.gz", BANNER.format("real", "general") + "4 4 3\n1 2 2.5\n2 3 1\n4 1 4\n"),
])
def test_utf8_byte_order_mark_is_skipped(tmp_path, name, text):
    """A file saved with a UTF-8 byte order mark (Windows editors) reads as without it: it
    failed as an unparsable '\\ufeff0', a missing banner or a 1-column line, or not, by the
    line's spacing."""
    clean = load(write(tmp_path / f"clean{name}", text.replace("# saved by an editor\n", "")), device="cpu")
    path = tmp_path / name
    data = b"\xef\xbb\xbf" + text.encode()
    path.write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    assert same_graph(load(path, device="cpu"), clean)


@pytest.mark.parametrize("text, message", EDGE_LIST_ERRORS)
def test_edge_list_errors(tmp_path, text, message):
    path = write(tmp_path / "bad.txt", text)
    with pytest.raises(MinigrError, match=f"^{path}, {message}"):
        load(path, cache=False, device="cpu")


def test_missing_file_and_unknown_type(tmp_path):
    with pytest.raises(MinigrError, match=r"nope.mtx: no such file; load takes .*\.mtx.*\.mgr"):
        load(tmp_path / "nope.mtx", device="cpu")
    with pytest.raises(MinigrError, match=r"g.csv: unknown file type; load takes .*\.el"):
        load(write(tmp_path / "g.csv", "0,1\n"), device="cpu")
    (tmp_path / "roads.mtx").mkdir()
    with pytest.raises(MinigrError, match=r"roads.mtx is a folder; give the graph file in it"):
        load(tmp_path / "roads.mtx", device="cpu")


def test_directed_option(tmp_path):
    asym = write(tmp_path / "a.txt", "0 1\n1 2\n")
    with pytest.raises(MinigrError, match=r"a.txt: the edges are not symmetric"):
        load(asym, directed=False, device="cpu")
    g = load(asym, directed=False, symmetrize=True, device="cpu")
    assert not g.directed and g.num_edges == 4
    sym = write(tmp_path / "s.mtx", BANNER.format("pattern", "symmetric") + "3 3 2\n2 1\n3 2\n")
    d = load(sym, directed=True, device="cpu")
    assert d.directed and d.num_edges == 4
    assert abs(d.reverse().to_scipy() - d.to_scipy()).max() == 0
    for option in ("directed", "symmetrize", "remove_self_loops", "remove_duplicates"):  # 'no' is truthy
        with pytest.raises(MinigrError, match=f"{option} must be True or False, got 'no'"):
            load(asym, **{option: "no"}, device="cpu")
    fresh = write(tmp_path / "fresh.txt", "0 1\n")
    for option in ("cache", "progress"):  # cache='no' read and wrote the .mgr beside the file
        with pytest.raises(MinigrError, match=f"{option} must be True or False, got 'no'"):
            load(fresh, **{option: "no"}, device="cpu")
    assert not os.path.exists(f"{fresh}.mgr")


def test_bytes_path(tmp_path):
    """A path as bytes loads, as open() takes one (it failed on str.endswith's TypeError)."""
    path = write(tmp_path / "g.txt", "0 1\n1 2\n")
    assert load(os.fsencode(path), device="cpu").num_edges == 2


def test_weight_modes(tmp_path):
    path = write(tmp_path / "g.txt", "0 1 5\n1 0 7\n1 2 3\n")
    assert load(path, device="cpu").weights.tolist() == [5, 7, 3]
    assert load(path, weights="ignore", device="cpu").weights is None
    r = load(path, weights="random", weight_seed=9, device="cpu")
    w = r.to_scipy()
    assert w[0, 1] == w[1, 0] and 1 <= w[1, 2] <= 64  # a function of the undirected edge
    assert np.array_equal(load(path, weights="random", weight_seed=np.int64(9),
                               device="cpu").weights, r.weights)  # from the cache this time
    with pytest.raises(MinigrError, match="weights must be one of keep, ignore, random"):
        load(path, weights="uniform", device="cpu")


# ---- reading in chunks ---------------------------------------------------------------------


def irregular_mtx(seed, field, symmetry):
    """random_mtx with comments among the entries and runs of whitespace in some lines, so
    that some chunks are regular and others not."""
    lines = random_mtx(seed, field=field, symmetry=symmetry).splitlines()
    head, body = lines[:4], lines[4:]
    for i in range(0, len(body), 17):
        body[i] = "  " + body[i].replace(" ", " \t ") + " % comment"
    body.insert(len(body) // 2, "% a comment line")
    return "\n".join(head + body) + "\n"


@pytest.mark.parametrize("chunk_bytes", [64, 1000, 1 << 20])
@pytest.mark.parametrize("field", ["real", "integer", "pattern"])
@pytest.mark.parametrize("symmetry", ["general", "symmetric"])
def test_chunks_give_the_scipy_graph(tmp_path, monkeypatch, chunk_bytes, field, symmetry):
    monkeypatch.setattr(io.columns, "CHUNK_BYTES", chunk_bytes)
    for seed in range(3):
        text = irregular_mtx(seed, field, symmetry)
        path = write(tmp_path / f"g{seed}.mtx.gz", text)
        same_as_scipy(load(path, cache=False, device="cpu"), write(tmp_path / "clean.mtx",
                                                                   random_mtx(seed, field=field,
                                                                              symmetry=symmetry)))


@pytest.mark.parametrize("chunk_bytes", [16, 100, 1 << 20])
def test_errors_name_the_line_in_any_chunk(tmp_path, monkeypatch, chunk_bytes):
    monkeypatch.setattr(io.columns, "CHUNK_BYTES", chunk_bytes)
    lines = [f"{i % 7} {(i * 3) % 11} {i}" for i in range(200)]
    for bad_line, bad, message in [(150, "5 x 1", "unparsable target 'x'"),
                                   (3, "5 -2 1", r"target id -2 is out of range \(>= 0\)"),
                                   (200, "5 2 nan", "weight 'nan' is not a finite number"),
                                   (77, "5 2", r"expected 3 columns")]:
        text = lines[:bad_line - 1] + [bad] + lines[bad_line:]
        path = write(tmp_path / "bad.txt", "\n".join(text) + "\n")
        with pytest.raises(MinigrError, match=f"^{path}, line {bad_line}: {message}"):
            load(path, cache=False, device="cpu")
    mtx = write(tmp_path / "bad.mtx", BANNER.format("pattern", "general") + "% c\n9 9 300\n"
                + "1 2\n" * 301)
    with pytest.raises(MinigrError, match=f"^{mtx}, line 304: too many entries; the size line says 300"):
        load(mtx, cache=False, device="cpu")
    write(mtx, BANNER.format("pattern", "general") + "9 9 300\n" + "1 2\n" * 299)
    with pytest.raises(MinigrError, match=f"^{mtx}, line 301: too few entries; the size line says "
                                          "300, the file has 299"):
        load(mtx, cache=False, device="cpu")


@pytest.mark.gpu
@pytest.mark.parametrize("field", ["real", "pattern"])
@pytest.mark.parametrize("symmetry", ["general", "symmetric"])
def test_gpu_load_builds_the_host_graph(tmp_path, field, symmetry):
    for seed in range(4):
        path = write(tmp_path / f"g{seed}.mtx", irregular_mtx(seed, field, symmetry))
        for options in ({}, {"remove_duplicates": True, "remove_self_loops": True},
                        {"symmetrize": True, "weights": "random"}):
            on_gpu = load(path, cache=False, device="gpu", **options)
            on_host = load(path, cache=False, device="cpu", **options)
            assert on_gpu.device == "gpu" and same_graph(on_gpu.to("cpu"), on_host)


# ---- the binary cache ---------------------------------------------------------------------


@pytest.fixture
def parse_calls(monkeypatch):
    """Counts calls of the Matrix Market parser."""
    calls = []
    real = io.matrix_market.read

    def counting(path, digest=None):
        calls.append(path)
        return real(path, digest)
    monkeypatch.setattr(io.matrix_market, "read", counting)
    return calls


def same_graph(a, b):
    return (a.directed == b.directed and np.array_equal(a.row_offsets, b.row_offsets)
            and np.array_equal(a.col_indices, b.col_indices)
            and (a.weights is None) == (b.weights is None)
            and (a.weights is None or np.array_equal(a.weights, b.weights)))


def test_cache_written_and_reused(tmp_path, parse_calls):
    path = write(tmp_path / "g.mtx", random_mtx(4))
    first = load(path, device="cpu")
    assert os.path.isfile(f"{path}.mgr") and len(parse_calls) == 1
    second = load(path, device="cpu")
    assert len(parse_calls) == 1 and same_graph(first, second)
    assert sorted(os.listdir(tmp_path)) == ["g.mtx", "g.mtx.mgr"]  # no temporary files left


def test_cache_keyed_to_options(tmp_path, parse_calls):
    path = write(tmp_path / "g.mtx", random_mtx(5))
    load(path, device="cpu")
    deduplicated = load(path, remove_duplicates=True, device="cpu")
    assert len(parse_calls) == 2
    assert same_graph(deduplicated, load(path, remove_duplicates=True, device="cpu"))
    assert len(parse_calls) == 2


def test_cache_stale_after_source_changes(tmp_path, parse_calls):
    path = write(tmp_path / "g.mtx", random_mtx(6))
    load(path, device="cpu")
    write(path, random_mtx(7))
    os.utime(path, ns=(1, 1))  # a new mtime even on coarse clocks
    g = load(path, device="cpu")
    assert len(parse_calls) == 2
    same_as_scipy(g, path)


@pytest.mark.parametrize("damage", ["truncate", "flip", "magic", "empty", "header"])
def test_damaged_cache_is_rebuilt(tmp_path, parse_calls, damage):
    path = write(tmp_path / "g.mtx", random_mtx(8))
    good = load(path, device="cpu")
    cache = f"{path}.mgr"
    data = bytearray(open(cache, "rb").read())
    if damage == "truncate":
        data = data[:-5]
    elif damage == "flip":
        data[-3] ^= 0x40
    elif damage == "magic":
        data[:6] = b"NOTMGR"
    elif damage == "empty":
        data = b""
    else:
        data[24:30] = b"\x00{]x\xff"
    open(cache, "wb").write(bytes(data))
    with pytest.raises(MinigrError, match=r"g.mtx.mgr: (damaged|not a minigr)"):
        io.read_binary(cache)
    assert same_graph(load(path, device="cpu"), good) and len(parse_calls) == 2
    assert same_graph(io.read_binary(cache), good)  # rewritten whole


def test_cache_off_and_unwritable_folder(tmp_path, parse_calls, monkeypatch):
    path = write(tmp_path / "g.mtx", random_mtx(9))
    load(path, cache=False, device="cpu")
    assert not os.path.exists(f"{path}.mgr")

    def refuse(*args, **kwargs):
        raise PermissionError("read-only folder")
    monkeypatch.setattr(files.tempfile, "mkstemp", refuse)
    same_as_scipy(load(path, device="cpu"), path)
    assert os.listdir(tmp_path) == ["g.mtx"]


def test_failed_write_leaves_nothing(tmp_path, monkeypatch):
    g = Graph.from_edges([0, 1], [1, 2], device="cpu")

    def fail(src, dst):
        raise OSError("disk full")
    monkeypatch.setattr(files.os, "replace", fail)
    with pytest.raises(OSError):
        io.save(g, tmp_path / "g.mgr")
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("weighted", [False, True])
def test_save_and_load_binary(tmp_path, weighted):
    g = generators.grid(6, 2, weights="random" if weighted else None, device="cpu")
    io.save(g, tmp_path / "grid.mgr")
    back = load(tmp_path / "grid.mgr", device="cpu")
    assert same_graph(back, g) and not back.directed
    directed = load(tmp_path / "grid.mgr", directed=True, weights="ignore", device="cpu")
    assert directed.directed and directed.weights is None and directed.num_edges == g.num_edges
    assert same_graph(load(tmp_path / "grid.mgr", remove_duplicates=True, device="cpu"), g)


@pytest.mark.parametrize("offsets, columns, weights, why", [
    ([0, 1, 2, 3], [1, 2, 0], None, "edge 0 -> 1 has no 1 -> 0"),  # a cycle one way: every degree matches
    ([0, 1, 2, 3], [1, 0, 0], None, "edge 2 -> 0 has no 0 -> 2"),
    ([0, 1, 2, 2], [1, 0], [1.0, 2.0], "edge 0 -> 1 weighs 1.0 one way and 2.0 the other"),
    # the k-th copy of an edge is the k-th copy's reverse (Graph.reverse_edges): mst would pair 5 with 6
    ([0, 2, 4, 4], [1, 1, 0, 0], [1.0, 5.0, 1.0, 6.0], "edge 0 -> 1 weighs 5.0 one way and 6.0 the other"),
])
def test_a_binary_file_marked_undirected_has_each_edge_both_ways(tmp_path, offsets, columns, weights, why):
    """A .mgr anyone could have written, marked undirected but not symmetric, gave wrong answers
    (a traversal reads one copy of an edge, a reduction the other) or crashed the process (mst
    indexed before its arrays with the reverse id -1 of an edge stored one way): refused."""
    weights = None if weights is None else np.asarray(weights, np.float32)
    io.save(Graph(np.asarray(offsets), np.asarray(columns, np.int32), weights, directed=False, device="cpu"),
            tmp_path / "g.mgr")
    with pytest.raises(MinigrError, match=rf"g.mgr: damaged binary graph \(marked undirected, but {why}\)"):
        load(tmp_path / "g.mgr", device="cpu")


def test_a_binary_file_lists_an_edges_copies_by_weight(tmp_path):
    """minigr stores an edge's copies lightest first, and simple() keeps the first as the lightest
    (it kept 5.0 here): a file listing them otherwise is refused, as one with columns out of order."""
    io.save(Graph(np.asarray([0, 2, 2]), np.asarray([1, 1], np.int32), np.asarray([5.0, 2.0], np.float32),
                  device="cpu"), tmp_path / "g.mgr")
    with pytest.raises(MinigrError, match=r"g.mgr: damaged binary graph \(the columns of row 0 are not sorted, by "
                                          r"column and an edge's copies by weight\)"):
        load(tmp_path / "g.mgr", device="cpu")


def test_a_binary_file_with_copies_of_an_edge_loads_as_written(tmp_path):
    good = Graph.from_edges([0, 0, 2], [1, 1, 1], [3.0, 2.0, 7.0], symmetrize=True, device="cpu")
    io.save(good, tmp_path / "g.mgr")  # each edge's copies listed by weight both ways
    assert same_graph(load(tmp_path / "g.mgr", device="cpu"), good)


def test_save_needs_the_binary_extension(tmp_path):
    with pytest.raises(MinigrError, match=r"g.bin: a minigr binary graph file must end in .mgr"):
        io.save(Graph.from_edges([0], [1], device="cpu"), tmp_path / "g.bin")


def test_binary_options_rebuild_edges(tmp_path):
    io.save(Graph.from_edges([0, 1, 1, 2], [1, 1, 2, 0], [4.0, 1.0, 2.0, 3.0], device="cpu"),
            tmp_path / "d.mgr")
    g = load(tmp_path / "d.mgr", remove_self_loops=True, symmetrize=True, device="cpu")
    assert not g.directed and triples_of(g) == [(0, 1, 4.0), (0, 2, 3.0), (1, 0, 4.0),
                                                 (1, 2, 2.0), (2, 0, 3.0), (2, 1, 2.0)]
    with pytest.raises(MinigrError, match=r"d.mgr: the edges are not symmetric"):
        load(tmp_path / "d.mgr", directed=False, device="cpu")


def triples_of(graph):
    return sorted(zip(graph.edge_sources().tolist(), graph.col_indices.tolist(),
                      graph.weights.tolist()))


# ---- generator specs and progress ---------------------------------------------------------


def test_generator_specs():
    assert same_graph(load("kron:scale=7", device="cpu"), generators.kronecker(7, 16, 1,
                                                                             device="cpu"))
    assert same_graph(load("rgg:scale=8,seed=3", device="cpu"), generators.rgg(8, 3, device="cpu"))
    g = load("grid:seed=2,scale=6", weights="random", weight_seed=5, device="cpu")
    assert same_graph(g, generators.grid(6, 2, weights="random", weight_seed=5, device="cpu"))
    assert same_graph(load("grid:scale=6,seed=2,permute=0", device="cpu"), generators.grid(6, 2, 0, device="cpu"))
    assert load("kron:scale=5,edge_factor=4,seed=2", directed=True, device="cpu").directed


@pytest.mark.parametrize("spec, message", [
    ("tree:scale=4", r"'tree:scale=4' is neither a file nor a generator spec; "
                     r"generators: kron, rgg, grid"),
    ("kron:scale=4,degree=3", r"unknown key 'degree' .*kron accepts scale, edge_factor, seed"),
    ("grid:scale=4,edge_factor=2", r"grid accepts scale, seed"),
    ("rgg:seed=3", r"needs scale=S"),
    ("rgg:scale=big", r"scale in 'rgg:scale=big' must be a non-negative integer, got 'big'"),
    ("grid:scale=5", r"grid needs an even scale"),
    ("grid:scale=4,seed=1,scale=2", r"scale is given twice in 'grid:scale=4,seed=1,scale=2'; give it once"),
    ("grid:scale=4,permute=2", r"permute in 'grid:scale=4,permute=2' must be 0 \(ids row by row\) or 1"),
])
def test_generator_spec_errors(spec, message):
    with pytest.raises(MinigrError, match=message):
        load(spec, device="cpu")


def test_progress(tmp_path, capsys):
    path = write(tmp_path / "g.mtx", random_mtx(3))
    load(path, progress=True, device="cpu")
    err = capsys.readouterr().err
    assert f"loading {path}: parsing" in err and f"loading {path}: done in" in err
    load(path, device="cpu")  # small input, stderr not a terminal: quiet
    load(path, progress=False, device="cpu")
    assert capsys.readouterr().err == ""
