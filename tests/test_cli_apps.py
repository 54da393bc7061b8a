"""minigr <primitive> running every primitive of the catalog (minigr.apps) on the CPU:
JSON records, the human summary, --output files and their atomic write, exit statuses."""
import json
import os

import numpy as np
import pytest

from minigr import apps, validate
from minigr.cli import main
from minigr.transforms.backend import gpu_available

GRAPH = "kron:scale=6"
RUN = ["--device", "cpu", "--validate"]
KEYS = ["graph", "primitive", "vertices", "edges", "source", "ms", "MTEPS", "iterations",
        "validation", "device"]
PRIMITIVES = {name: ["--weights", "random"] if "weights" in apps.record(name).needs else []  # name -> its arguments
              for name in apps.names()}
PRIMITIVES["katz"] = ["--alpha", "0.01"]  # networkx's default 0.1 diverges on GRAPH


def records(capsys, argv, status=0):
    assert main(argv) == status
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def table(path):
    """(header words, rows as lists of words) of an --output file."""
    lines = path.read_text().splitlines()
    return lines[0].split(), [line.split() for line in lines[1:]]


@pytest.mark.parametrize("name", PRIMITIVES)
def test_json_per_run(capsys, name):
    rows = records(capsys, [name, GRAPH, *PRIMITIVES[name], *RUN, "--json", "--runs", "2"])
    assert len(rows) == 2
    for row in rows:
        assert list(row)[:len(KEYS)] == KEYS
        assert all(isinstance(row[key], (int, float)) for key in set(row) - set(KEYS))  # the result's extras
        assert row["graph"] == GRAPH and row["primitive"] == name and row["device"] == "cpu"
        assert row["vertices"] == 64 and row["edges"] > 0
        assert row["validation"] == "ok" or name in ("color", "louvain") and row["validation"].startswith("ok (")
        assert (row["source"] is None) == (not apps.record(name).sourced)
        assert row["ms"] > 0 and row["MTEPS"] >= 0 and row["iterations"] >= 1
    if name == "pagerank":
        assert rows[0]["MTEPS"] == pytest.approx(
            rows[0]["edges"] * rows[0]["iterations"] / rows[0]["ms"] / 1e3)


def test_default_source_is_the_highest_out_degree_lowest_id(capsys, tmp_path):
    path = tmp_path / "ties.txt"
    path.write_text("0 1\n2 0\n2 1\n3 0\n3 1\n")   # vertices 2 and 3 both have out-degree 2
    assert records(capsys, ["bfs", str(path), *RUN, "--json"])[0]["source"] == 2
    assert records(capsys, ["bfs", str(path), *RUN, "--json", "--source", "0"])[0]["source"] == 0


def test_human_summary(capsys):
    assert main(["sssp", GRAPH, "--weights", "random", *RUN, "--runs", "3"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"graph: {GRAPH}: 64 vertices, ")
    assert out[0].endswith("undirected, weighted, on the CPU")
    assert out[1].startswith("source: ")
    assert out[1].endswith("(the highest; --source picks another)")
    assert out[2].startswith("runs: ") and out[2].endswith(" ms") and len(out[2].split()) == 5
    assert out[3].startswith("median: ") and " MTEPS, " in out[3] and out[3].endswith(" iterations")
    assert out[-1] == "validation: ok"


def test_color_summary_names_the_colors(capsys):
    assert main(["color", GRAPH, *RUN]) == 0
    assert any(line.startswith("num_colors: ") for line in capsys.readouterr().out.splitlines())


@pytest.mark.skipif(gpu_available(), reason="needs a machine without a GPU")
def test_falls_back_to_the_cpu_once(capsys):
    assert main(["bfs", GRAPH, "--json"]) == 0
    err = capsys.readouterr().err
    assert err.startswith("minigr: no GPU here (") and err.endswith("); running on the CPU\n")
    assert err.count("\n") == 1


def test_failed_validation_exits_1(capsys, monkeypatch):
    monkeypatch.setattr(validate, "check_bfs", lambda *args: "FAILED: planted for the test")
    rows = records(capsys, ["bfs", GRAPH, *RUN, "--json"], status=1)
    assert rows[0]["validation"] == "FAILED: planted for the test"
    assert main(["bfs", GRAPH, *RUN]) == 1
    assert capsys.readouterr().out.splitlines()[-1] == "validation: FAILED: planted for the test"


@pytest.mark.parametrize("name", PRIMITIVES)
def test_output_file(capsys, tmp_path, name):
    out = tmp_path / "out.txt"
    row, = records(capsys, [name, GRAPH, *PRIMITIVES[name], *RUN, "--json", "--output", str(out)])
    header, rows = table(out)
    app = apps.record(name)
    if app.rows == "vertex":
        assert header == ["vertex", *app.columns]
        assert [int(r[0]) for r in rows] == list(range(64))
    else:  # a row per edge or pair, its ends among the columns
        assert header == list(app.columns) and len(rows) == row["edges"]
    assert all(len(r) == len(header) for r in rows)
    values = np.array([[float(x) for x in r[1:]] for r in rows])
    if name in ("bfs", "sssp"):
        source = row["source"]
        assert values[source].tolist() == [0, source]
    if name == "pagerank":
        assert values.sum() == pytest.approx(1.0)
    if name == "color":
        assert len(np.unique(values)) == row["num_colors"]
    assert os.listdir(tmp_path) == ["out.txt"]       # no temporary file left


def test_output_unreachable_distance_is_inf(capsys, tmp_path):
    graph, out = tmp_path / "g.txt", tmp_path / "out.txt"
    graph.write_text("0 1 2.5\n1 2 0.5\n3 3 1\n")
    assert main(["sssp", str(graph), *RUN, "--source", "0", "--output", str(out)]) == 0
    assert table(out)[1] == [["0", "0", "0"], ["1", "2.5", "0"], ["2", "3", "1"],
                             ["3", "inf", "-1"]]


def test_output_kept_when_the_run_fails(capsys, tmp_path):
    graph, out = tmp_path / "negative.txt", tmp_path / "out.txt"
    graph.write_text("0 1 -1\n1 2 1\n")
    out.write_text("the previous results\n")
    assert main(["sssp", str(graph), *RUN, "--output", str(out)]) == 2
    assert capsys.readouterr().err.startswith("minigr: error: ")
    assert out.read_text() == "the previous results\n"
    assert sorted(os.listdir(tmp_path)) == ["negative.txt", "negative.txt.mgr", "out.txt"]  # graph cache beside


def test_output_kept_when_the_write_fails(capsys, tmp_path, monkeypatch):
    out = tmp_path / "out.txt"
    out.write_text("the previous results\n")

    def disk_full(f, *args, **kwargs):
        f.write("vertex depth parent\n0 0")
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(np, "savetxt", disk_full)
    assert main(["bfs", GRAPH, *RUN, "--output", str(out)]) == 2
    assert capsys.readouterr().err == (
        f"minigr: error: --output {out}: cannot write it (No space left on device)\n")
    assert out.read_text() == "the previous results\n"
    assert os.listdir(tmp_path) == ["out.txt"]
