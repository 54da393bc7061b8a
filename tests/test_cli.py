"""minigr <primitive>: argument handling and every user error, each a one-line
message with exit status 2, found before any primitive runs (so no app is needed here;
tests/test_cli_apps.py runs the primitives themselves)."""
import os
import subprocess
import sys

import pytest

from minigr import apps
from minigr.cli import DEFAULT_GRAPH, main
from minigr.transforms.backend import gpu_available


def error_of(capsys, argv):
    """The one-line error message of `minigr argv`, checking exit status 2 and stdout empty."""
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.endswith("\n") and err.count("\n") == 1, err
    assert err.startswith("minigr: error: ")
    return err[len("minigr: error: "):-1]


@pytest.fixture
def directed_file(tmp_path):
    path = tmp_path / "g.txt"
    path.write_text("0 1\n1 2\n2 0\n3 1\n")
    return str(path)


@pytest.mark.parametrize("name", apps.names())
def test_help_names_the_default_graph(capsys, name):
    with pytest.raises(SystemExit) as exit:
        main([name, "--help"])
    assert exit.value.code == 0
    out = " ".join(capsys.readouterr().out.split())
    assert f"(default {DEFAULT_GRAPH})" in out
    assert ("highest out-degree vertex, lowest id on ties" in out) == apps.record(name).sourced
    for flag in ("--runs", "--validate", "--json", "--output", "--device", "--symmetrize",
                 "--remove-self-loops", "--remove-duplicates", "--weights", "--weight-seed",
                 "--no-cache", "--directed", "--undirected"):
        assert flag in out


@pytest.mark.parametrize("argv", [
    ["dfs"],                                   # no such primitive
    ["pagerank", "--source", "1"],             # pagerank takes no source
    ["color", "--delta", "2"],                 # another primitive's option
    ["bfs", "--runs", "two"],
    ["sssp", "--device", "tpu"],
    ["bfs", "--directed", "--undirected"],
    ["bfs", "--weights", "heavy"],
])
def test_argparse_refuses(capsys, argv):
    with pytest.raises(SystemExit) as exit:
        main(argv)
    assert exit.value.code == 2
    assert "error:" in capsys.readouterr().err


@pytest.mark.parametrize("argv,message", [
    (["bfs", "--runs", "0"], "--runs must be at least 1, got 0"),
    (["color", "--runs", "-3"], "--runs must be at least 1, got -3"),
    (["pagerank", "--damping", "0"], "--damping must be between 0 and 1, exclusive, got 0.0"),
    (["pagerank", "--damping", "1.5"], "--damping must be between 0 and 1, exclusive, got 1.5"),
    (["pagerank", "--damping", "nan"], "--damping must be between 0 and 1, exclusive, got nan"),
    (["pagerank", "--tol", "0"], "--tol must be a positive number, got 0.0"),
    (["pagerank", "--tol", "inf"], "--tol must be a positive number, got inf"),
    (["pagerank", "--max-iter", "0"], "--max-iter must be from 1 to 2^31 - 1, got 0"),
    (["pagerank", "--max-iter", "3000000000"], "--max-iter must be from 1 to 2^31 - 1, got 3000000000"),
    (["cdlp", "--iterations", "2147483648"], "--iterations must be from 1 to 2^31 - 1, got 2147483648"),
    (["color", "--seed", "18446744073709551617"], "--seed must be an integer from 0 to 2^64 - 1, got "
                                                  "18446744073709551617"),
    (["color", "--seed", "-1"], "--seed must be an integer from 0 to 2^64 - 1, got -1"),
    (["bfs", "--weight-seed", "-1"], "weight_seed must be an integer from 0 to 2^64 - 1, got -1"),
    (["sssp", "--delta", "0"], "--delta must be a positive number, 'auto' or None (--delta none), got 0.0"),
    (["sssp", "--delta", "-2.5"], "--delta must be a positive number, 'auto' or None (--delta none), got -2.5"),
])
def test_bad_numbers(capsys, argv, message):
    assert error_of(capsys, argv) == message


def test_delta_that_is_no_number(capsys):
    with pytest.raises(SystemExit) as exit:
        main(["sssp", "--delta", "x"])
    assert exit.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        "minigr sssp: error: argument --delta: expected a positive number, 'auto' or 'none', got 'x'")


def test_bad_numbers_come_before_loading(capsys, tmp_path):
    missing = str(tmp_path / "missing.mtx")
    assert error_of(capsys, ["bfs", missing, "--runs", "0"]) == "--runs must be at least 1, got 0"


def test_missing_file_and_bad_spec(capsys, tmp_path):
    missing = str(tmp_path / "missing.mtx")
    assert error_of(capsys, ["bfs", missing]).startswith(f"{missing}: no such file; load takes")
    assert "must be a non-negative integer" in error_of(capsys, ["bfs", "kron:scale=x"])


@pytest.mark.parametrize("source", ["4", "-1", "1000"])
def test_source_out_of_range(capsys, directed_file, source):
    assert error_of(capsys, ["bfs", directed_file, "--source", source]) == (
        f"--source {source} is out of range: {directed_file} has 4 vertices (ids 0 to 3)")


def test_graph_without_vertices(capsys, tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_text("# no edges\n")
    assert error_of(capsys, ["sssp", str(empty), "--weights", "random"]) == (
        f"{empty} has no vertices, so there is no source to start from")
    assert error_of(capsys, ["bfs", str(empty), "--source", "0"]) == (
        f"--source 0 is out of range: {empty} has 0 vertices (no ids at all)")


def test_sssp_needs_weights(capsys):
    assert error_of(capsys, ["sssp", "kron:scale=4"]) == (
        "sssp needs edge weights and kron:scale=4 has none; pass --weights random (integers "
        "1..64) or give a weighted file")


def test_sssp_weights_ignored_are_none(capsys, tmp_path):
    path = tmp_path / "w.txt"
    path.write_text("0 1 2.5\n")
    assert error_of(capsys, ["sssp", str(path), "--weights", "ignore"]).startswith(
        "sssp needs edge weights")


def test_color_refuses_a_directed_graph(capsys, directed_file):
    assert error_of(capsys, ["color", directed_file]) == (
        f"color needs an undirected graph and {directed_file} is directed; pass --symmetrize to "
        "add the reverse edges (or --undirected if its edges are symmetric already)")


def test_undirected_needs_symmetric_edges(capsys, directed_file):
    assert "not symmetric" in error_of(capsys, ["color", directed_file, "--undirected"])


@pytest.mark.parametrize("argv", [
    ["color", "{directed}"],
    ["bfs", "{directed}", "--source", "9"],
    ["sssp", "{directed}"],
])
def test_input_errors_come_before_the_device(capsys, directed_file, argv):
    """Asking for the GPU changes nothing: the same message on machines with and without one."""
    argv = [a.format(directed=directed_file) for a in argv]
    assert error_of(capsys, argv + ["--device", "gpu"]) == error_of(capsys, argv)


def test_output_folder_checked_first(capsys, tmp_path):
    missing = tmp_path / "nowhere" / "out.txt"
    assert error_of(capsys, ["bfs", "kron:scale=4", "--output", str(missing)]) == (
        f"--output {missing}: the folder {missing.parent} does not exist")
    assert error_of(capsys, ["bfs", "kron:scale=4", "--output", str(tmp_path)]) == (
        f"--output {tmp_path} is a folder; give a file name")


def test_output_is_never_the_input_graph(capsys, directed_file, tmp_path):
    """Results written over the graph they came from would destroy it: refused, through a link or
    another name of the same file too, and the file is left as it was."""
    before = open(directed_file).read()
    link, other_name = tmp_path / "link.txt", tmp_path / "hard.txt"
    os.symlink(directed_file, link)
    os.link(directed_file, other_name)
    for output in (directed_file, str(link), str(other_name)):
        assert error_of(capsys, ["bfs", directed_file, "--output", output]) == (
            f"--output {output} is the input graph {directed_file}: writing the results there would destroy it; "
            "give another file name")
    assert open(directed_file).read() == before


@pytest.mark.skipif(gpu_available(), reason="needs a machine without a GPU")
def test_gpu_asked_for_where_there_is_none(capsys):
    assert error_of(capsys, ["bfs", "kron:scale=4", "--device", "gpu"]).startswith(
        "device 'gpu' asked for, but ")


def test_no_traceback_from_the_command(tmp_path):
    missing = str(tmp_path / "missing.mtx")
    done = subprocess.run([sys.executable, "-m", "minigr", "sssp", missing],
                          capture_output=True, text=True,
                          env={**os.environ, "MINIGR_CACHE_DIR": str(tmp_path / "cache")})
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith(f"minigr: error: {missing}: no such file")
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


@pytest.mark.parametrize("argv, message", [
    (["bfs", "--gpus", "0"], "--gpus must be at least 1, got 0"),
    (["bfs", "--gpus", "2", "--device", "cpu"], "--gpus runs on GPUs; leave out --device cpu"),
    (["bfs", "--gpus", "64"], "asked for 64 GPUs and this machine has"),
    (["sssp", "--gpus", "2"], "sssp needs edge weights and kron:scale=18,edge_factor=16,seed=1 has none"),
])
def test_gpus_refused(capsys, argv, message):
    assert message in error_of(capsys, argv)


def test_gpus_only_for_primitives_with_a_partitioned_form(capsys):
    with pytest.raises(SystemExit):
        main(["color", "--gpus", "2"])
    assert "unrecognized arguments: --gpus" in capsys.readouterr().err
