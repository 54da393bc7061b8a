"""What a new user meets first: versions, results that show what they hold, a command line
that takes no guesses, and messages that say what is true."""
import importlib.metadata
import io

import numpy
import pytest

import minigr
from minigr import apps, doctor
from minigr.cli import main
from minigr.transforms import backend


def test_versions(capsys):
    assert minigr.__version__ == importlib.metadata.version("minigr")
    with pytest.raises(SystemExit) as exit:
        main(["--version"])
    assert exit.value.code == 0 and capsys.readouterr().out == f"minigr {minigr.__version__}\n"


def test_the_package_shows_its_api_only():
    assert not hasattr(minigr, "importlib")
    assert {"bfs", "load", "Graph", "Result", "__version__"} <= set(dir(minigr))
    assert not [name for name in dir(minigr) if name.startswith("_") and not name.startswith("__")]


def test_a_result_lists_its_arrays_and_prints_short(device):
    graph = minigr.Graph.from_edges(numpy.arange(5000), numpy.arange(1, 5001), device=device)
    result = minigr.bfs(graph, 0)
    assert {"depth", "parent", "ms", "build_ms", "iterations", "to_host"} <= set(dir(result))
    text = repr(result)
    assert text.startswith("Result(depth=int32[5001], parent=int32[5001], iterations=5001, ms=") and len(text) < 120
    colored = minigr.color(minigr.Graph.from_edges([0], [1], symmetrize=True, device=device))
    assert "num_colors" in dir(colored) and ", num_colors=2, " in repr(colored)


@pytest.mark.parametrize("loop", ["device", "host"])
def test_build_ms_is_the_first_calls_alone(device, loop):
    """The loop's capture (a device loop on the GPU, first call on a graph) is build_ms, not ms."""
    graph = minigr.load("grid:scale=6", device=device)
    first, second = minigr.bfs(graph, 0, loop=loop), minigr.bfs(graph, 0, loop=loop)
    assert second.build_ms == 0.0
    assert (first.build_ms > 0) == (device == "gpu" and loop == "device")
    assert first.ms >= 0 and numpy.array_equal(first.to_host().depth, second.to_host().depth)


def test_options_are_not_abbreviated(capsys):
    with pytest.raises(SystemExit) as exit:
        main(["bfs", "grid:scale=4", "--sourc", "3", "--device", "cpu"])
    assert exit.value.code == 2 and "unrecognized arguments: --sourc 3" in capsys.readouterr().err


def test_one_iteration_is_singular(capsys):
    assert main(["wcc", "grid:scale=4", "--device", "cpu"]) == 0
    assert ", 1 iteration\n" in capsys.readouterr().out


def test_no_driver_is_named_as_such(monkeypatch):
    monkeypatch.setattr(backend, "DRIVER_LIBRARY", "libno-such-driver.so.1")
    backend.gpu_unavailable_reason.cache_clear()
    try:
        reason = backend.gpu_unavailable_reason()
    finally:
        backend.gpu_unavailable_reason.cache_clear()
    assert reason == "no NVIDIA driver installed: libno-such-driver.so.1 not found"


class Terminal(io.StringIO):
    def isatty(self):
        return True


@pytest.mark.parametrize("stderr, shown", [(Terminal(), True), (io.StringIO(), False)])
def test_doctor_shows_its_progress_on_a_terminal_only(monkeypatch, stderr, shown):
    monkeypatch.setattr(doctor, "WORKLOADS", [("primitives", doctor.primitive_samples)])
    monkeypatch.setattr(apps, "names", lambda: ["wcc"])
    monkeypatch.setattr("sys.stderr", stderr)
    lines = []
    assert doctor.run(out=lines.append) == 0
    progress = stderr.getvalue()
    assert ("doctor: primitives: wcc on grid:scale=8,seed=1 (" in progress) == shown
    assert ("doctor: primitives: done in " in progress) == shown
    assert lines[-1] == "all kernels compile"


@pytest.mark.parametrize("stderr, shown", [(Terminal(), True), (io.StringIO(), False)])
def test_the_command_line_shows_its_warm_up_run_on_a_terminal_only(monkeypatch, capsys, stderr, shown):
    """The warm-up run takes as long as a timed one (minutes for betweenness on the CPU) and said nothing on a
    terminal until the first timed run had ended too."""
    monkeypatch.setattr("sys.stderr", stderr)
    assert main(["wcc", "grid:scale=4", "--device", "cpu", "--runs", "2"]) == 0
    progress = stderr.getvalue()
    assert ("wcc: a warm-up run, untimed (its kernels compile on first use)\n" in progress) == shown
    assert ("run 2/2: " in progress) == shown
