"""`minigr bench`: argument handling and output formatting without a GPU; the
CPU alternatives against networkx; on a GPU, the CuPy alternatives against
SciPy references and a whole small benchmark run with every row validated."""
import json
import sys
import types

import networkx
import numpy
import pytest
import scipy.sparse.csgraph as csgraph

from minigr import Graph, apps
from minigr import alternatives as alt
from minigr.bench import graphs as bench_graphs
from minigr.bench import primitives, report
from minigr.catalog import BenchCase
from minigr.cli import main

from conftest import to_host

TINY = "kron:scale=8,edge_factor=8,seed=1"


# ---- arguments (no GPU needed) --------------------------------------------------------------------

def test_no_gpu_exits_2_with_a_clear_message(monkeypatch, capsys):
    monkeypatch.setenv("MINIGR_DEVICE", "cpu")  # as on a machine without a GPU
    assert main(["bench", "operators", "--quick"]) == 2
    assert "benchmarks time the GPU, and there is none here" in capsys.readouterr().err


@pytest.mark.parametrize("argv, message", [
    (["--runs", "0"], "--runs must be at least 1"),
    (["--warmup", "-1"], "--warmup at least 0"),
    (["--max-log2", "5"], "--max-log2 must lie between 20 and 31"),
    (["--graph", "no-such-file.mtx"], "neither a file nor a generator spec"),
    (["--json", "/no-such-folder/bench.jsonl"], "--json /no-such-folder/bench.jsonl: cannot write it"),  # lost at the end
    (["--json", "."], "--json . is a folder; give a file name"),
    (["--plot", __file__], "is a file; give a folder for the plots"),
])
def test_bad_arguments_exit_2_before_any_gpu_work(monkeypatch, capsys, argv, message):
    monkeypatch.setenv("MINIGR_DEVICE", "cpu")
    assert main(["bench", "primitives", *argv]) == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["bench", "nonsense"], ["bench"], ["bench", "all", "--runs", "many"]])
def test_unknown_suite_or_malformed_option_is_a_usage_error(capsys, argv):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    assert "usage: minigr bench" in capsys.readouterr().err


def test_plot_without_matplotlib_says_how_to_install_it(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # makes `import matplotlib` fail
    assert main(["bench", "all", "--quick", "--plot", "plots"]) == 2
    assert "install minigr[plot]" in capsys.readouterr().err


def test_quick_defaults_and_explicit_values():
    from minigr.bench import check_arguments
    from minigr.cli import parser
    args = parser().parse_args(["bench", "all", "--quick"])
    assert list(check_arguments(args)) == ["kron_s16_e16", "rgg_n16", "grid_16"]
    assert (args.runs, args.warmup, args.max_log2) == (3, 1, 22)
    args = parser().parse_args(["bench", "transforms", "--runs", "5", "--warmup", "0", "--max-log2", "24"])
    check_arguments(args)
    assert (args.runs, args.warmup, args.max_log2) == (5, 0, 24)
    args = parser().parse_args(["bench", "operators"])
    assert list(check_arguments(args)) == ["kron_s21_e16", "rgg_n22", "grid_22"]
    assert (args.runs, args.warmup) == (10, 3)


def test_graph_selection(tmp_path):
    assert list(bench_graphs.selected(None, False)) == ["kron_s21_e16", "rgg_n22", "grid_22"]
    assert list(bench_graphs.selected([], True)) == ["kron_s16_e16", "rgg_n16", "grid_16"]
    path = tmp_path / "road.mtx"
    path.write_text("")
    chosen = bench_graphs.selected(["rgg:scale=22,seed=1", str(path), TINY], False)
    assert chosen == {"rgg_n22": "rgg:scale=22,seed=1", "road.mtx": str(path), TINY: TINY}


# ---- output (synthetic rows) ----------------------------------------------------------------------

ROWS = [
    {"primitive": "bfs", "system": "minigr", "ms": 1.23456, "MTEPS": 1000.4, "iterations": 5, "check": "ok vs SciPy"},
    {"primitive": "bfs", "system": "CuPy composed", "ms": 12.0, "MTEPS": 100.0, "iterations": 5,
     "minigr_speedup": 9.72, "check": "ok vs SciPy"},
    {"primitive": "bfs", "system": "CuPy SpMV (cuSPARSE)", "error": "OutOfMemoryError: out of memory"},
    {"primitive": "pagerank", "system": "networkx (CPU)", "error": "skipped: 2000000 edges > 1000000 (networkx)"},
]


def test_format_table_aligns_and_marks_missing_values_and_errors():
    lines = report.format_table(ROWS, report.PRIMITIVE_COLUMNS).splitlines()
    assert lines[0].split() == ["primitive", "system", "ms", "MTEPS", "iters", "us/iter", "colors", "first", "call",
                                "ms",
                                "loop", "build", "ms", "peak", "level", "MTEPS", "minigr", "speedup", "check"]
    assert len(lines) == 5
    assert "1.235" in lines[1] and "1000" in lines[1] and lines[1].endswith("ok vs SciPy")
    assert "9.7x" in lines[2]
    assert lines[3].endswith("error: OutOfMemoryError: out of memory") and " - " in lines[3]
    assert lines[4].endswith("skipped: 2000000 edges > 1000000 (networkx)")
    # numbers are right-aligned: the ms column ends at the same place on every row with a value
    assert lines[1].index("1.235") + 5 == lines[2].index("12.000") + 6


def test_format_table_of_levels():
    levels = [{"level": 0, "frontier": 1, "edges": 16, "ms": 0.01, "MTEPS": 1.6},
              {"level": 1, "frontier": 16, "edges": 300, "ms": 0.02, "MTEPS": None}]
    lines = report.format_table(levels, report.LEVEL_COLUMNS).splitlines()
    assert lines[1].split() == ["0", "1", "16", "0.0100", "2"]
    assert lines[2].split() == ["1", "16", "300", "0.0200", "-"]


def test_json_lines_carry_every_figure_and_the_environment(tmp_path):
    path = tmp_path / "bench.jsonl"
    env = {"device_name": "NVIDIA H100 80GB HBM3", "driver_version": 13000, "cupy_version": "14.0",
           "minigr_version": "0.1.0"}
    report.write_json(path, ROWS[:2], env)
    report.write_json(path, ROWS[2:3], env)  # appends
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert len(lines) == 3
    assert lines[1] == {**env, **ROWS[1]}
    assert lines[2]["error"].startswith("OutOfMemoryError")


def test_plots_are_written(tmp_path):
    pytest.importorskip("matplotlib")
    levels = [{"level": k, "frontier": 10 * k + 1, "edges": 100 * k + 5, "ms": 0.01, "MTEPS": 10.0 * k}
              for k in range(5)]
    rows = [{"suite": "primitives", "graph": "g", "primitive": "bfs", "system": "minigr", "levels": levels},
            {"suite": "primitives", "graph": "g", "primitive": "bfs", "system": "CuPy composed", "levels": levels,
             "minigr_speedup": 3.0},
            {"suite": "operators", "graph": "g", "operator": "advance (BFS levels)", "system": "minigr",
             "levels": levels}]
    paths = report.plot(rows, tmp_path / "plots")
    assert sorted(p.split("/")[-1] for p in paths) == ["operators_advance_BFS_levels_g.png", "primitives_bfs_g.png",
                                                       "speedups.png"]
    assert all((tmp_path / "plots" / p.split("/")[-1]).stat().st_size > 1000 for p in paths)


# ---- harness pieces (no GPU) ----------------------------------------------------------------------

def test_measure_drops_the_warmup_and_takes_the_median():
    times = iter([100.0, 3.0, 1.0, 2.0])
    values, ms, iterations, first_ms = primitives.measure(lambda: ("v", next(times), 7), runs=3, warmup=1)
    assert (values, ms, iterations) == ("v", 2.0, 7) and first_ms >= 0


def test_validate_against_the_reference_or_else_minigr():
    case = BenchCase("t", "x", reference="ref", compare=alt.same)
    rows = [{"system": "minigr"}, {"system": "alt"}, {"system": "ref"}]
    primitives.validate(rows, [numpy.array([1, 2]), numpy.array([1, 3]), numpy.array([1, 2])], case, None)
    assert [(r["validated"], r["check"]) for r in rows] == [(True, "ok vs ref"), (False, "MISMATCH vs ref"),
                                                             (True, "reference")]
    rows = [{"system": "minigr"}, {"system": "alt"}, {"system": "ref", "error": "boom"}]
    primitives.validate(rows, [numpy.array([1, 2]), numpy.array([1, 2]), None], case, None)
    assert [r.get("check") for r in rows] == ["reference", "ok vs minigr", None]
    assert rows[0]["validated"] is False  # minigr standing in is no validation of minigr


def test_proper_coloring_check():
    graph = Graph.from_edges([0, 1, 2], [1, 2, 0], num_vertices=4, symmetrize=True, device="cpu")
    inputs = types.SimpleNamespace(graph=graph)
    assert alt.proper_coloring(numpy.array([0, 1, 2, 0]), inputs)
    assert not alt.proper_coloring(numpy.array([0, 1, 1, 0]), inputs)
    assert not alt.proper_coloring(numpy.array([0, 1, 2, -1]), inputs)


def test_validate_each_result_without_a_reference():
    case = BenchCase("t", "x", verify=lambda values, inputs: bool((values > 0).all()))
    rows = [{"system": "minigr"}, {"system": "alt"}, {"system": "broken", "error": "boom"}]
    primitives.validate(rows, [numpy.array([1, 2]), numpy.array([0, 2]), None], case, None)
    assert [(r.get("validated"), r.get("check")) for r in rows] == [
        (True, "verified"), (False, "FAILED verification"), (None, None)]


def test_every_case_has_minigr_first_and_a_known_reference():
    labels = [case.label for _, case, _ in primitives.cases()]
    assert len(set(labels)) == len(labels) and set(apps.names()) <= {label.split()[0] for label in labels}
    for app, case, systems in primitives.cases():
        names = [s.name for s in systems]
        assert names[0] == "minigr", case.label
        assert ("minigr, host loop" in names) == app.loops, case.label
        assert len(set(names)) == len(names), case.label
        assert case.reference in names and case.compare and not case.verify or (
            case.verify and not case.compare and (case.reference is None) == (case.score is None)), case.label
        assert all(s.traced for s in systems[:1 + app.loops]) == (case.traced is not None), case.label


# ---- CPU alternatives against independent references ----------------------------------------------

@pytest.mark.parametrize("label", [case.label for _, case, _ in primitives.cases()])
def test_every_case_runs_minigr_and_its_cpu_systems_on_the_cpu(label):
    """minigr's row (loops on the device and the host) and each CPU alternative on a small CPU graph:
    the values the case compares, agreeing with minigr's (or each verified)."""
    app, case, systems = next(found for found in primitives.cases() if found[1].label == label)
    inputs = bench_graphs.Inputs("tiny", TINY, device="cpu")
    rows, values = [], []
    for system in systems:
        if system.device == "cpu" or system.name.startswith("minigr"):
            assert system.skip is None or system.skip(inputs) is None
            result, ms, iterations = system.run(inputs)
            rows.append({"system": system.name})
            values.append(to_host(result))
            assert ms is None or ms >= 0
    primitives.validate(rows, values, case if case.verify else BenchCase(
        label, case.key, reference="minigr", compare=case.compare), inputs)
    assert len(rows) >= 2 and all(row["validated"] for row in rows), rows


def _random_graph(device, seed=3, n=300, m=1500, directed=True):
    rng = numpy.random.default_rng(seed)
    weights = rng.integers(1, 65, size=m).astype(numpy.float32)
    return Graph.from_edges(rng.integers(0, n, m), rng.integers(0, n, m), weights, num_vertices=n,
                            directed=directed, symmetrize=not directed, remove_duplicates=True, device=device)


@pytest.mark.parametrize("directed", [True, False])
def test_cpu_pagerank_alternatives_match_networkx(directed):
    graph = _random_graph("cpu", directed=directed)
    ones = graph.to_scipy()
    ones.data[:] = 1
    g = networkx.from_scipy_sparse_array(ones, create_using=networkx.DiGraph)
    expected = networkx.pagerank(g, tol=1e-10, weight=None)
    expected = numpy.array([expected[v] for v in range(graph.num_vertices)])
    ranks, ms, iterations = alt.pagerank_spmv(ones.T.tocsr(), graph.out_degrees(), tol=1e-10)
    assert ms >= 0 and iterations > 1
    assert numpy.abs(ranks - expected).sum() < 1e-8
    ranks, _, _ = alt.pagerank_networkx(g, tol=1e-10)
    assert numpy.abs(ranks - expected).sum() < 1e-8


def test_cpu_traversal_alternatives():
    graph = _random_graph("cpu")
    depth, _, _ = alt.bfs_scipy(graph.to_scipy(), 0)
    g = networkx.from_scipy_sparse_array(graph.to_scipy(), create_using=networkx.DiGraph)
    hops = networkx.single_source_shortest_path_length(g, 0)
    assert depth.tolist() == [hops.get(v, -1) for v in range(graph.num_vertices)]
    dist, _, _ = alt.sssp_scipy(graph.to_scipy(), 0)
    lengths = networkx.single_source_dijkstra_path_length(g, 0)
    assert dist.tolist() == [lengths.get(v, numpy.inf) for v in range(graph.num_vertices)]


# ---- GPU: the CuPy alternatives against SciPy, and a whole run --------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("directed", [True, False])
def test_cupy_traversals_match_scipy(directed):
    import cupy
    graph = _random_graph("gpu", directed=directed)
    matrix = graph.to_scipy()
    source = 0
    expected_depth = csgraph.dijkstra(matrix, indices=source, unweighted=True)
    expected_depth = numpy.where(numpy.isinf(expected_depth), -1, expected_depth)
    reverse = graph.reverse()
    in_adjacency = alt.csr_matrix(reverse.row_offsets, reverse.col_indices, cupy.ones(graph.num_edges, numpy.float32))
    trace = []
    depth, ms, levels = alt.bfs_spmv(in_adjacency, graph.out_degrees(), source, trace)
    assert to_host(depth).tolist() == expected_depth.tolist() and ms > 0
    assert len(trace) == levels and sum(r["frontier"] for r in trace) == int((expected_depth >= 0).sum())
    depth, _, _ = alt.bfs_cupy(graph.row_offsets, graph.col_indices, source, trace=[])
    assert to_host(depth).tolist() == expected_depth.tolist()
    dist, _, _ = alt.sssp_cupy(graph.row_offsets, graph.col_indices, graph.weights, source, trace=[])
    assert numpy.allclose(to_host(dist), csgraph.dijkstra(matrix, indices=source))


@pytest.mark.gpu
def test_cupy_pagerank_and_coloring():
    import cupy
    graph = _random_graph("gpu", directed=False)
    ones = graph.to_scipy()
    ones.data[:] = 1
    expected, _, expected_iterations = alt.pagerank_spmv(ones.T.tocsr(), to_host(graph.out_degrees()), tol=1e-9)
    in_adjacency = alt.csr_matrix(graph.row_offsets, graph.col_indices, cupy.ones(graph.num_edges))
    ranks, _, iterations = alt.pagerank_spmv(in_adjacency, graph.out_degrees(), tol=1e-9)
    assert iterations == expected_iterations
    assert numpy.abs(to_host(ranks) - expected).sum() < 1e-9
    colors, _, rounds = alt.color_cupy(graph.row_offsets, graph.col_indices)
    assert alt.proper_coloring(colors, types.SimpleNamespace(graph=graph))
    assert int(colors.max()) < rounds


def test_push_levels_gives_the_primitives_answers(device):
    """The level-by-level push that the bench traces (its timing is GPU-only): BFS's
    visit and SSSP's relax with every improved vertex near give SciPy's answers."""
    from minigr import load
    from minigr.apps.bfs import VISIT
    from minigr.apps.sssp import RELAX_SPLIT
    graph = load("kron:scale=8,edge_factor=8,seed=1", weights="random", device=device)
    inputs = types.SimpleNamespace(graph=graph, source=3, degrees=graph.out_degrees())
    distance, _, _ = alt.push_levels(inputs, None, RELAX_SPLIT, relax=True)
    numpy.testing.assert_allclose(to_host(distance), csgraph.dijkstra(graph.to_scipy(), indices=3), rtol=1e-5)
    depth, _, levels = alt.push_levels(inputs, None, VISIT, relax=False)
    hops = csgraph.shortest_path(graph.to_scipy(), unweighted=True, indices=3)
    numpy.testing.assert_array_equal(to_host(depth), numpy.where(numpy.isinf(hops), -1, hops))
    assert levels == hops[numpy.isfinite(hops)].max() + 1


@pytest.mark.gpu
def test_whole_run_on_a_tiny_graph_validates_every_row(tmp_path, capsys):
    path = tmp_path / "bench.jsonl"
    assert main(["bench", "operators", "--graph", TINY, "--runs", "1", "--warmup", "0", "--json", str(path)]) == 0
    assert main(["bench", "primitives", "--graph", TINY, "--runs", "1", "--warmup", "0", "--json", str(path)]) == 0
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert {r["suite"] for r in rows} == {"operators", "primitives"}
    errors = [r["error"] for r in rows if "error" in r and not r["error"].startswith("skipped: ")]
    assert not errors, errors  # a system that is not installed (cuGraph) is skipped, not failed
    assert all(r["validated"] for r in rows if "validated" in r)
    assert sum("validated" in r for r in rows) >= 17
    assert all(r["device_name"] and r["cupy_version"] for r in rows)
    assert "kron:scale=8" in capsys.readouterr().out


def test_load_suite_round_trips(capsys):
    """The loading benchmark writes each graph as Matrix Market and as an edge list and reads
    back the same graph with minigr and the alternatives; generates and builds CSRs (host
    systems everywhere, GPU ones where there is a GPU)."""
    import argparse
    from minigr.bench import load
    rows = load.run(argparse.Namespace(), {"kron": "kron:scale=8,edge_factor=4,seed=1",
                                           "rgg": "rgg:scale=8,seed=1"})
    assert {r["graph"] for r in rows} == {"kron", "rgg"}
    timed = [r for r in rows if r["task"] != "files"]
    assert all("error" not in r for r in timed), [r["error"] for r in timed if "error" in r]
    assert all(r["check"] == "same graph" and r["s"] > 0 and r["edges"] > 0 for r in timed)
    systems = {(r["task"], r["system"]) for r in timed}
    assert {("read .mgr", "minigr, the .mtx file's cache"), ("read .txt", "networkx.read_edgelist"),
            ("generate", "SciPy cKDTree pairs (host)"), ("build CSR", "scipy.sparse coo -> csr")} <= systems
    assert "same graph" in capsys.readouterr().out


def test_networkit_alternatives_agree_with_scipy():
    """NetworKit's BFS and Dijkstra, as the bench runs them, on the nasty graphs (with
    unreachable vertices, self-loops and duplicates): SciPy's answers."""
    from graphs import nasty_graphs
    for name, graph in nasty_graphs("cpu", weighted=True).items():
        matrix = graph.to_scipy().tocsr()
        if not graph.num_vertices:
            continue
        depth, _, _ = alt.bfs_networkit(matrix, 0)
        numpy.testing.assert_array_equal(depth, alt.bfs_scipy(matrix, 0)[0], err_msg=name)
        lightest = graph.simple()[0].to_scipy().tocsr()  # SciPy would add duplicates' weights up
        distance, _, _ = alt.sssp_networkit(matrix, 0)
        numpy.testing.assert_allclose(distance, alt.sssp_scipy(lightest, 0)[0], rtol=1e-6, err_msg=name)
