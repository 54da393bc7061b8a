"""Several GPUs: graphs on two GPUs of one process, and primitives on a graph
split over GPUs (one process each, NCCL) giving the one-GPU results. Tests
that need two GPUs skip where there are fewer."""
import os
import shutil
import subprocess
import sys

import numpy
import pytest

import minigr
from minigr import validate
from minigr.apps.wcc import check_wcc
from minigr.cli import main
from minigr.multi import run_gpus
from minigr.transforms.backend import gpu_available

pytestmark = pytest.mark.gpu
# the ordered grid's parts share few vertices: its BFS and SSSP run apart
SPECS = ("kron:scale=12,edge_factor=8,seed=2", "rgg:scale=12,seed=3", "grid:scale=12,seed=4",
         "grid:scale=12,seed=4,permute=0")


def gpu_count():
    import cupy
    return cupy.cuda.runtime.getDeviceCount() if gpu_available() else 0


two_gpus = pytest.mark.skipif(gpu_count() < 2, reason="needs two GPUs")


def gpus_needed(gpus):
    return pytest.param(gpus, marks=pytest.mark.skipif(gpu_count() < gpus, reason=f"needs {gpus} GPUs"))


def one_gpu_results(spec, source):
    graph = minigr.load(spec, weights="random", device="gpu")
    return graph, {"bfs": minigr.bfs(graph, source).to_host(), "sssp": minigr.sssp(graph, source).to_host(),
                   "pagerank": minigr.pagerank(graph, tol=1e-9).to_host(), "wcc": minigr.wcc(graph).to_host()}


def check_same(graph, name, source, got, expected):
    """Results of a partitioned run against the one-GPU ones: equal depths,
    distances (parents checked as trees) and components, ranks within rounding."""
    host = graph.to("cpu")
    if name == "bfs":
        assert numpy.array_equal(got.depth, expected.depth) and got.iterations == expected.iterations
        assert validate.check_bfs(host, source, got.depth, got.parent) == "ok"
    elif name == "sssp":
        assert numpy.array_equal(got.distance, expected.distance)
        assert validate.check_sssp(host, source, got.distance, got.parent) == "ok"
    elif name == "wcc":  # each side against SciPy first, so that a difference says which one is wrong
        assert check_wcc(host, expected.component) == "ok", "one GPU"
        assert check_wcc(host, got.component) == "ok", "parts"
        assert numpy.array_equal(got.component, expected.component)
    else:
        numpy.testing.assert_allclose(got.rank, expected.rank, rtol=0, atol=1e-13)
        assert got.iterations == expected.iterations


@two_gpus
def test_graphs_on_two_gpus_of_one_process():
    import cupy
    graphs = []
    for gpu in (0, 1):
        with cupy.cuda.Device(gpu):
            graphs.append(minigr.load(SPECS[0], weights="random", device="gpu"))
    assert [g.gpu for g in graphs] == [0, 1]
    for _ in range(2):  # each GPU's kernels, loops and buffers are its own: alternate
        results = [(minigr.bfs(g, 7).to_host(), minigr.sssp(g, 7).to_host(), minigr.pagerank(g).to_host())
                   for g in graphs]
        assert numpy.array_equal(results[0][0].depth, results[1][0].depth)
        assert numpy.array_equal(results[0][1].distance, results[1][1].distance)
        assert numpy.array_equal(results[0][2].rank, results[1][2].rank)


@pytest.mark.parametrize("name", ["bfs", "sssp", "pagerank", "wcc"])
def test_one_gpu_through_nccl(name):
    spec, source = SPECS[0], 11
    graph, expected = one_gpu_results(spec, source)
    args = (source,) if name in ("bfs", "sssp") else ()
    options = {"tol": 1e-9} if name == "pagerank" else {}
    (got,) = run_gpus(spec, 1, name, *args, load_options={"weights": "random"}, **options)
    check_same(graph, name, source, got, expected[name])


@pytest.mark.parametrize("gpus", [gpus_needed(2), gpus_needed(4)])
@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("name", ["bfs", "sssp", "pagerank", "wcc"])
def test_several_gpus_give_the_one_gpu_results(spec, name, gpus):
    """The generated graphs renumbered where that cuts less (reorder="auto": rgg
    and the permuted grid), the Kronecker graph generated part by part, on 2 and 4 GPUs."""
    source = 5
    graph, expected = one_gpu_results(spec, source)
    args = (source,) if name in ("bfs", "sssp") else ()
    options = {"tol": 1e-9} if name == "pagerank" else {}
    results = run_gpus(spec, gpus, name, *args, runs=2, load_options={"weights": "random"}, **options)
    if spec.startswith("kron"):
        assert "reorder" not in results[0].extra
    elif "permute=0" not in spec:
        assert results[0].extra["reorder"] != "none"
    for got in results:
        assert [p["owned"] for p in got.parts] == [p["owned"] for p in results[0].parts]
        assert sum(p["owned"] for p in got.parts) == graph.num_vertices
        check_same(graph, name, source, got, expected[name])


@two_gpus
@pytest.mark.parametrize("spec, reorder", [(SPECS[2], "none"), (SPECS[0], "rcm")])
@pytest.mark.parametrize("name", ["bfs", "sssp", "pagerank", "wcc"])
def test_two_gpus_in_the_order_asked(spec, reorder, name):
    """The permuted grid in the user's order; the Kronecker graph loaded whole
    for RCM, whose order it keeps only where it cuts less than the user's."""
    source = 5
    graph, expected = one_gpu_results(spec, source)
    args = (source,) if name in ("bfs", "sssp") else ()
    options = {"tol": 1e-9} if name == "pagerank" else {}
    (got,) = run_gpus(spec, 2, name, *args, load_options={"weights": "random"}, reorder=reorder, **options)
    if reorder == "none":  # a spec in the user's order is generated part by part: no order was chosen
        assert "reorder" not in got.extra
    else:
        assert got.extra["reorder"] == "none" and got.extra["reorder_candidates"].startswith("proxies by order: none")
        assert reorder in got.extra["reorder_candidates"]
    check_same(graph, name, source, got, expected[name])


@two_gpus
@pytest.mark.parametrize("name", ["bfs", "sssp", "pagerank", "wcc"])
def test_checks_on_the_parts_of_a_graph_generated_part_by_part(name):
    """What bench scaling checks a graph larger than one GPU by (part_checks), on one that fits."""
    args = (5,) if name in ("bfs", "sssp") else ()
    options = {"tol": 1e-9} if name == "pagerank" else {}
    (got,) = run_gpus(SPECS[0], 2, name, *args, load_options={"weights": "random"}, check=True, **options)
    assert got.extra["check"] == "ok"


@two_gpus
def test_two_gpus_from_the_command_line(capsys, tmp_path):
    out = tmp_path / "depth.txt"
    assert main(["bfs", SPECS[2], "--gpus", "2", "--validate", "--runs", "2", "--output", str(out)]) == 0
    report = capsys.readouterr().out
    assert "on 2 GPUs" in report and "validation: ok" in report and "part 1:" in report
    assert len(out.read_text().splitlines()) == 4097


@two_gpus
@pytest.mark.skipif(shutil.which("mpirun") is None, reason="needs an MPI launcher (mpirun)")
def test_two_gpus_under_mpirun(tmp_path):
    """Under mpirun the launcher's ranks run the parts (NCCL bootstrapped through mpi4py); rank 0 reports."""
    pytest.importorskip("mpi4py", reason="MPI bootstrapping needs mpi4py")
    root = ["--allow-run-as-root"] if os.geteuid() == 0 else []
    out = tmp_path / "component.txt"
    done = subprocess.run(["mpirun", "-n", "2", *root, sys.executable, "-m", "minigr", "wcc", SPECS[1], "--gpus", "2",
                           "--validate", "--output", str(out)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("validation: ok") == 1 and "on 2 GPUs" in done.stdout
    assert len(out.read_text().splitlines()) == 4097
