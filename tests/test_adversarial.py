"""Adversarial inputs, as a hostile user would try them (issue 29): nothing lost, nothing
wrong, nothing hung. Each test here failed on the code before its fix; future changes keep
passing them. (The machine running the tests may be root, which no file mode stops: owner
checks are tested by faking another owner, read-only folders by refusing the write.) The
malformed numbers of text files are with the other parse errors, in tests/test_io.py
(EDGE_LIST_ERRORS, MTX_ERRORS); option limits with the CLI's, in tests/test_cli.py."""
import gzip
import json
import os
import re
import resource
import stat
import subprocess
import sys
import threading
import zlib

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph

import minigr
from conftest import to_host
from minigr import Graph, MinigrError, cli, io, load
from minigr.cli import main
from minigr.io import binary
from minigr.transforms import files
from test_cli import error_of

# ---- --output: written through links and special files, never replacing them ---------------


def bfs_output(target, capsys=None):
    """minigr bfs on a small grid with --output target; its exit status."""
    status = main(["bfs", "grid:scale=4", "--device", "cpu", "--output", str(target)])
    if capsys:
        capsys.readouterr()
    return status


def test_output_keeps_an_existing_files_mode(tmp_path, capsys):
    out = tmp_path / "results.txt"
    out.write_text("old\n")
    out.chmod(0o644)
    assert bfs_output(out, capsys) == 0
    assert stat.S_IMODE(out.stat().st_mode) == 0o644 and out.read_text().startswith("vertex depth parent\n")


def test_output_writes_through_a_link(tmp_path, capsys):
    real, link = tmp_path / "real.txt", tmp_path / "link.txt"
    real.write_text("old\n")
    link.symlink_to(real.name)
    assert bfs_output(link, capsys) == 0
    assert link.is_symlink() and real.read_text().startswith("vertex depth parent\n")


def test_output_writes_into_a_device_node(tmp_path, capsys):
    null = tmp_path / "null"
    try:
        os.mknod(null, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # /dev/null's numbers
    except PermissionError:
        pytest.skip("cannot make a device node here")
    assert bfs_output(null, capsys) == 0
    assert stat.S_ISCHR(null.stat().st_mode)


def test_output_writes_into_a_fifo_and_refuses_one_nobody_reads(tmp_path, capsys):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert error_of(capsys, ["bfs", "grid:scale=4", "--device", "cpu", "--output", str(fifo)]) == (
        f"--output {fifo}: a FIFO that no process reads; start its reader first")
    received = []
    reader = threading.Thread(target=lambda: received.append(open(fifo).read()), daemon=True)
    reader.start()
    while not received and reader.is_alive() and bfs_output(fifo, capsys) == 2:
        pass  # until the reader has the FIFO open
    reader.join(timeout=30)
    assert received and received[0].startswith("vertex depth parent\n") and len(received[0].splitlines()) == 17
    assert stat.S_ISFIFO(fifo.stat().st_mode)


@pytest.mark.parametrize("stdout", ["a file", "a pipe"])
def test_output_to_the_processs_own_stdout_goes_through_it(tmp_path, stdout):
    """/proc/self/fd/1 (what /dev/stdout links to): written through the stream, whether the
    shell redirected it to a file (which must not be renamed over) or to a pipe."""
    argv = [sys.executable, "-m", "minigr", "bfs", "grid:scale=4", "--device", "cpu", "--output", "/proc/self/fd/1"]
    env = {**os.environ, "MINIGR_CACHE_DIR": str(tmp_path / "kernels")}
    if stdout == "a file":
        with open(tmp_path / "out.txt", "w") as out:
            status = subprocess.run(argv, stdout=out, env=env, timeout=300).returncode
        text = (tmp_path / "out.txt").read_text()
    else:
        done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=300)
        status, text = done.returncode, done.stdout
    lines = text.splitlines()
    assert status == 0 and lines[0] == "vertex depth parent" and len(lines) == 1 + 16 + 4 and "median:" in text


def test_output_empty_name_is_refused(capsys):
    assert error_of(capsys, ["bfs", "grid:scale=4", "--output", ""]) == "--output needs a file name, got an empty one"


def test_output_folder_that_cannot_be_written_is_refused_before_the_run(tmp_path, capsys, monkeypatch):
    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    def never(*args, **kwargs):
        raise AssertionError("the graph was loaded before --output was checked")
    monkeypatch.setattr(cli.tempfile, "mkstemp", refuse)
    monkeypatch.setattr(io, "load", never)
    assert error_of(capsys, ["bfs", "grid:scale=4", "--output", str(tmp_path / "out.txt")]) == (
        f"--output {tmp_path / 'out.txt'}: cannot write in the folder {tmp_path} (Permission denied)")


# ---- the binary cache beside an input: trusted only when it is the user's own and sound ------


def path_file(tmp_path):
    """An edge list of the path 0 -> 1 -> 2 -> 3, loaded once so that its cache exists."""
    path = tmp_path / "g.txt"
    path.write_text("0 1\n1 2\n2 3\n")
    load(path, device="cpu")
    return path


def edges_of(graph):
    return list(zip(graph.edge_sources().tolist(), graph.col_indices.tolist()))


PATH_EDGES = [(0, 1), (1, 2), (2, 3)]


def forge(cache, row_offsets=None, col_indices=None, header=None):
    """Rewrite a .mgr file with other arrays or header fields and a checksum that matches."""
    data = open(cache, "rb").read()
    _, version, length, _ = binary.PREFIX.unpack_from(data)
    fields = json.loads(data[binary.PREFIX.size:binary.PREFIX.size + length])
    arrays, n = data[binary.PREFIX.size + length:], fields["num_vertices"]
    fields = {key: value for key, value in {**fields, **(header or {})}.items() if value is not None}
    offsets = np.asarray(row_offsets if row_offsets is not None else np.frombuffer(arrays[:8 * (n + 1)], "<i8"), "<i8")
    columns = np.asarray(col_indices if col_indices is not None else np.frombuffer(arrays[8 * (n + 1):], "<i4"), "<i4")
    raw = json.dumps(fields).encode()
    crc = zlib.crc32(columns, zlib.crc32(offsets, zlib.crc32(raw)))
    open(cache, "wb").write(binary.PREFIX.pack(binary.MAGIC, version, len(raw), crc) + raw
                            + offsets.tobytes() + columns.tobytes())


@pytest.mark.parametrize("who", ["another user", "group-writable", "world-writable"])
def test_a_cache_someone_else_could_write_is_not_loaded(tmp_path, monkeypatch, capsys, who):
    path = path_file(tmp_path)
    cache = f"{path}.mgr"
    forge(cache, row_offsets=[0, 3, 3, 3, 3])  # a star, with the path's key and a valid checksum
    if who == "another user":
        theirs = os.stat(cache).st_ino
        monkeypatch.setattr(files, "owner_of", lambda info: os.geteuid() + 1 if info.st_ino == theirs else info.st_uid,
                            raising=False)
    else:
        os.chmod(cache, 0o620 if who == "group-writable" else 0o602)
    assert edges_of(load(path, device="cpu")) == PATH_EDGES
    assert f"ignoring the binary cache {cache}" in capsys.readouterr().err


@pytest.mark.parametrize("row_offsets, col_indices, why", [
    (None, [1, 2, 100_000_000], r"col_indices\[2\] = 100000000 is out of range for 4 vertices"),
    (None, [1, 2, 2_000_000_000], r"col_indices\[2\] = 2000000000 is out of range"),
    (None, [1, -5, 3], r"col_indices\[1\] = -5 is out of range"),
    ([0, 2, 1, 3, 3], None, r"row_offsets must be non-decreasing: row 1"),
    ([1, 1, 2, 3, 3], None, r"row_offsets must start at 0"),
    ([0, 1, 2, 2, 2], None, r"row_offsets ends at 2 but col_indices has 3 entries"),
    ([0, 1, 3, 3, 3], [1, 3, 2], r"the columns of row 1 are not sorted"),  # triangles would count wrong
])
def test_a_cache_with_a_valid_checksum_is_checked_as_a_csr(tmp_path, row_offsets, col_indices, why):
    path = path_file(tmp_path)
    forge(f"{path}.mgr", row_offsets, col_indices)
    with pytest.raises(MinigrError, match=r"g.txt.mgr: damaged binary graph \(" + why):
        io.read_binary(f"{path}.mgr")
    assert edges_of(load(path, device="cpu")) == PATH_EDGES  # rebuilt


def test_columns_that_go_down_only_between_rows_are_sorted(tmp_path):
    path = path_file(tmp_path)
    forge(f"{path}.mgr", [0, 1, 2, 3, 3], [3, 1, 2])  # rows [3], [1], [2]
    assert io.read_binary(f"{path}.mgr").col_indices.tolist() == [3, 1, 2]


@pytest.mark.parametrize("header, why", [
    ({"num_edges": None}, "header num_edges is None"),
    ({"num_vertices": "4"}, "header num_vertices is '4'"),
    ({"num_vertices": -1}, "header num_vertices is -1"),
    ({"num_vertices": 10**12}, "header num_vertices is 1000000000000"),
    ({"num_edges": 10**15}, r"\d+ bytes, expected \d+"),  # not allocated: the file is too short
    ({"directed": "yes"}, "header directed is 'yes'"),
    ({"weighted": None}, "header weighted is None"),
])
def test_a_damaged_cache_header_is_a_one_line_error(tmp_path, header, why):
    path = path_file(tmp_path)
    forge(f"{path}.mgr", header=header)
    with pytest.raises(MinigrError, match=r"g.txt.mgr: damaged binary graph \(" + why):
        io.read_binary(f"{path}.mgr")
    assert edges_of(load(path, device="cpu")) == PATH_EDGES


def test_a_fifo_named_like_the_cache_does_not_block_the_load(tmp_path):
    path = tmp_path / "g.txt"
    path.write_text("0 1\n1 2\n2 3\n")
    os.mkfifo(f"{path}.mgr")
    done = subprocess.run([sys.executable, "-c", f"import minigr; print(minigr.load({str(path)!r}, device='cpu'))"],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "MINIGR_CACHE_DIR": str(tmp_path / "kernels")})
    assert done.returncode == 0 and "num_edges=3" in done.stdout
    assert "ignoring the binary cache" in done.stderr and "not a regular file" in done.stderr


def test_the_cache_is_keyed_to_the_content_not_size_and_time(tmp_path):
    path = path_file(tmp_path)
    before = os.stat(path)
    path.write_text("0 3\n1 2\n2 1\n")  # the same size
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert edges_of(load(path, device="cpu")) == [(0, 3), (1, 2), (2, 1)]


def test_a_file_that_grows_while_parsed_is_not_cached_as_its_part(tmp_path, monkeypatch):
    path = tmp_path / "g.txt"
    path.write_text("0 1\n1 2\n")
    parse = io.edge_list.read

    def parse_then_grow(*args):
        edges = parse(*args)
        with open(path, "a") as f:
            f.write("2 3\n")
        return edges
    monkeypatch.setattr(io.edge_list, "read", parse_then_grow)
    assert edges_of(load(path, device="cpu")) == [(0, 1), (1, 2)]  # what was there when it was read
    monkeypatch.undo()
    assert edges_of(load(path, device="cpu")) == PATH_EDGES


# ---- one Graph shared by threads --------------------------------------------------------------

THREADS, CALLS = 4, 6


def run_in_threads(call):
    """call(thread) in THREADS threads at once, CALLS times each; the results by thread."""
    start = threading.Barrier(THREADS)
    results = [[] for _ in range(THREADS)]

    def work(thread):
        start.wait()
        results[thread] += [call(thread) for _ in range(CALLS)]
    workers = [threading.Thread(target=work, args=(t,)) for t in range(THREADS)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return results


@pytest.mark.parametrize("name, values", [("bfs", "depth"), ("sssp", "distance"), ("pagerank", "rank")])
def test_threads_sharing_a_graph_get_right_results(device, name, values):
    graph = load("grid:scale=10", weights="random", device=device)
    primitive = getattr(minigr, name)
    sourced = name != "pagerank"
    sources = [0, 100, 517, 1023][:THREADS]
    alone = [to_host(getattr(primitive(graph, *([s] if sourced else [])), values)) for s in sources]
    results = run_in_threads(lambda t: to_host(getattr(primitive(graph, *([sources[t]] if sourced else [])), values)))
    for thread, got in enumerate(results):
        for result in got:
            np.testing.assert_array_equal(result, alone[thread if sourced else 0])


def test_threads_sharing_a_networkx_graph_through_the_backend_get_right_results():
    nx = pytest.importorskip("networkx")
    G = nx.grid_2d_graph(24, 24)
    G = nx.convert_node_labels_to_integers(G)
    sources = [0, 100, 300, 575][:THREADS]
    alone = [nx.single_source_shortest_path_length(G, s) for s in sources]
    with nx.config(warnings_to_ignore={"cache"}):  # networkx's note that its cached conversion is used
        results = run_in_threads(lambda t: nx.single_source_shortest_path_length(G, sources[t], backend="minigr"))
    for thread, got in enumerate(results):
        assert all(result == alone[thread] for result in got)


# ---- wrong answers ----------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["coo_matrix", "coo_array", "csr_matrix"])
def test_repeated_scipy_entries_are_summed_as_scipy_does(kind):
    rows, cols, values = [0, 0, 1, 1, 2, 0], [1, 1, 2, 2, 3, 3], [1.0, 2.0, 5.0, 0.0, 1.0, 9.0]
    matrix = sp.coo_matrix((values, (rows, cols)), shape=(4, 4))
    if kind == "csr_matrix":  # repeats kept, as a CSR built from its arrays may have them
        matrix = sp.csr_matrix(([1.0, 2.0, 9.0, 5.0, 0.0, 1.0], [1, 1, 3, 2, 2, 3], [0, 3, 5, 6, 6]), shape=(4, 4))
    elif kind == "coo_array":
        matrix = sp.coo_array(matrix)
    before = matrix.copy()
    summed = sp.csr_matrix(matrix.toarray())  # no explicit zeros here, so nothing is lost
    got = minigr.sssp(matrix, 0, device="cpu").distance
    np.testing.assert_array_equal(got, minigr.sssp(summed, 0, device="cpu").distance)
    np.testing.assert_array_equal(got, scipy.sparse.csgraph.dijkstra(summed, indices=0))
    assert (matrix != before).nnz == 0 and matrix.nnz == before.nnz  # the caller's matrix as it was


def test_distances_past_float32_are_not_called_unreachable():
    graph = Graph.from_edges([0, 1, 2], [1, 2, 3], [2e38, 2e38, 2e38], device="cpu")  # 0 -> 3 weighs 6e38
    try:
        distance = minigr.sssp(graph, 0).distance
    except MinigrError as exc:
        assert "float32" in str(exc)
    else:
        assert np.isfinite(distance).all()


# ---- hangs and kills: memory estimated before allocating --------------------------------------


def limited_run(argv, tmp_path, limit=4 << 30):
    """`minigr argv` in a process limited to `limit` bytes of address space (ulimit -v: past it
    an allocation fails, as the kernel would kill a process past the machine's memory)."""
    return subprocess.run([sys.executable, "-m", "minigr", *argv], capture_output=True, text=True, timeout=120,
                          preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (limit, limit)),
                          env={**os.environ, "MINIGR_CACHE_DIR": str(tmp_path / "kernels")})


@pytest.mark.parametrize("graph, needs", [
    ("typo.txt", "a graph of 2147483647 vertices and 2 edges needs about"),
    ("kron:scale=4,edge_factor=99999999999999", "a Kronecker graph of 16 vertices and 1599999999999984 "
                                                "generated edges needs about"),
])
def test_a_graph_too_big_for_memory_is_refused_before_allocating(tmp_path, graph, needs):
    (tmp_path / "typo.txt").write_text("0 1\n1 2147483646\n")
    done = limited_run(["bfs", str(tmp_path / graph) if graph.endswith(".txt") else graph, "--device", "cpu"],
                       tmp_path)
    assert done.returncode == 3 and done.stdout == ""
    assert done.stderr.startswith(f"minigr: error: out of memory ({needs}") and done.stderr.count("\n") == 1


# ---- one-line errors, not tracebacks ----------------------------------------------------------


def damaged_gzip(path, how):
    banner = b"%%MatrixMarket matrix coordinate pattern general\n4 4 3000\n" if path.name.endswith(".mtx.gz") else b""
    data = gzip.compress(banner + b"1 2\n2 3\n3 1\n" * 1000)
    path.write_bytes({"truncated": data[:len(data) // 2], "not gzip": b"garbage\n",
                      "bad checksum": data[:-8] + bytes(8)}[how])
    return path


@pytest.mark.parametrize("how, why", [
    ("truncated", "Compressed file ended before the end-of-stream marker was reached"),
    ("not gzip", "Not a gzipped file"),
    ("bad checksum", "CRC check failed"),
])
@pytest.mark.parametrize("name", ["g.txt.gz", "g.mtx.gz"])
def test_damaged_gzip_input_is_a_one_line_error(capsys, tmp_path, name, how, why):
    path = damaged_gzip(tmp_path / name, how)
    assert error_of(capsys, ["bfs", str(path), "--device", "cpu"]).startswith(f"{path}: damaged gzip data ({why}")


def closed_stdout_run(argv, tmp_path, stdout):
    """`minigr argv` with stdout as given (a closed pipe, /dev/full): (exit status, stderr)."""
    process = subprocess.Popen([sys.executable, "-m", "minigr", *argv], stdout=stdout, stderr=subprocess.PIPE,
                               text=True, env={**os.environ, "MINIGR_CACHE_DIR": str(tmp_path / "kernels")})
    if stdout == subprocess.PIPE:
        process.stdout.close()  # the reader is gone before anything is written, as `| head -1` soon is
    return process.wait(timeout=300), process.stderr.read()


@pytest.mark.parametrize("argv", [["bfs", "grid:scale=4", "--device", "cpu", "--json", "--runs", "3"],
                                  ["bfs", "grid:scale=4", "--device", "cpu"], ["doctor"]])
@pytest.mark.parametrize("stdout, why", [(subprocess.PIPE, "Broken pipe"), ("/dev/full", "No space left on device")])
def test_a_closed_or_full_stdout_is_a_one_line_error(tmp_path, argv, stdout, why):
    if stdout == "/dev/full" and not os.path.exists(stdout):
        pytest.skip("no /dev/full here")
    with open(stdout, "w") if stdout == "/dev/full" else open(os.devnull) as full:
        status, err = closed_stdout_run(argv, tmp_path, full if stdout == "/dev/full" else stdout)
    assert status == 2 and err == f"minigr: error: cannot write to stdout ({why})\n"


@pytest.mark.parametrize("source", [np.array([1]), [1], np.array(1.0), np.True_])
def test_a_source_that_is_not_one_integer_is_a_one_line_error(source):
    with pytest.raises(MinigrError, match=r"^source must be a vertex id, got "):
        minigr.bfs("grid:scale=4", source, device="cpu")


def test_big_endian_arrays_make_the_same_graph(device):
    src, dst, weights = np.array([0, 1, 2, 2]), np.array([1, 2, 0, 3]), np.array([1.5, 2.0, 3.0, 4.0])
    native = Graph.from_edges(src, dst, weights, device=device)
    swapped = Graph.from_edges(src.astype(">i8"), dst.astype(">i4"), weights.astype(">f8"), device=device)
    csr = Graph.from_csr(to_host(native.row_offsets).astype(">i8"), to_host(native.col_indices).astype(">i4"),
                         to_host(native.weights).astype(">f4"), device=device)
    for graph in (swapped, csr):
        for name in ("row_offsets", "col_indices", "weights"):
            np.testing.assert_array_equal(to_host(getattr(graph, name)), to_host(getattr(native, name)))


# ---- options: NumPy numbers taken, counters and seeds in range --------------------------------


def test_numpy_numbers_are_taken_as_options():
    graph = load("grid:scale=6", weights="random", device="cpu")
    np.testing.assert_array_equal(minigr.sssp(graph, 0, delta=np.float32(2)).distance,
                                  minigr.sssp(graph, 0, delta=2.0).distance)
    from minigr.apps.sssp import sssp  # the app's own function, unwrapped, as the partitioned runs reach it
    np.testing.assert_array_equal(sssp(graph, 0, delta=np.float32(2)).distance, minigr.sssp(graph, 0, delta=2.0).distance)
    with pytest.raises(MinigrError, match="delta must be a positive number"):
        sssp(graph, 0, delta=np.bool_(True))
    np.testing.assert_array_equal(minigr.pagerank(graph, damping=np.float32(0.5), max_iter=np.int64(50)).rank,
                                  minigr.pagerank(graph, damping=float(np.float32(0.5)), max_iter=50).rank)


@pytest.mark.parametrize("call, message", [
    (lambda: minigr.pagerank("grid:scale=4", max_iter=2**31, device="cpu"), "max_iter must be from 1 to 2^31 - 1"),
    (lambda: minigr.cdlp("grid:scale=4", iterations=2**31, device="cpu"), "iterations must be from 1 to 2^31 - 1"),
    (lambda: minigr.color("grid:scale=4", seed=2**64 + 1, device="cpu"), "seed must be an integer from 0 to 2^64 - 1"),
    (lambda: minigr.color("grid:scale=4", seed=-1, device="cpu"), "seed must be an integer from 0 to 2^64 - 1"),
    (lambda: minigr.mis("grid:scale=4", seed=2**64, device="cpu"), "seed must be an integer from 0 to 2^64 - 1"),
    (lambda: minigr.katz("grid:scale=4", max_iter=2**31, device="cpu"), "max_iter must be from 1 to 2^31 - 1"),
    (lambda: load("grid:scale=4", weights="random", weight_seed=2**64, device="cpu"),
     "weight_seed must be an integer from 0 to 2^64 - 1"),
    (lambda: load(f"kron:scale=4,seed={2**64 + 1}", device="cpu"), "seed must be an integer from 0 to 2^64 - 1"),
])
def test_counters_and_seeds_out_of_range_are_refused_not_wrapped(call, message):
    with pytest.raises(MinigrError, match="^" + re.escape(message)):
        call()
