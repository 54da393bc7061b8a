"""The README's code blocks run as written: Python blocks as scripts, shell blocks with bash,
in a fresh folder, on the GPU where there is one and on the CPU elsewhere. A few are run
elsewhere or need what CI lacks; each of those says so, and a block the test does not know
of is run."""
import os
import pathlib
import re
import subprocess
import sys

import pytest

from test_nxbackend import NETWORKX_TESTS

ROOT = pathlib.Path(__file__).resolve().parent.parent
BLOCK = re.compile(r"^```(\w*)\n(.*?)^```$", re.M | re.S)
# First line of a block -> why this test does not run it.
NOT_RUN = {
    "minigr bfs kron:scale=25": "needs 2 to 4 GPUs, NCCL and mpirun",
    "pip install -e .[cuda13,test,plot]": "a GPU and minutes of benchmarks (minigr bench all)",
}


def blocks():
    """(line, language, text) of every fenced block of the README."""
    text = (ROOT / "README.md").read_text()
    return [(text.count("\n", 0, m.start()) + 1, m.group(1), m.group(2)) for m in BLOCK.finditer(text)]


def run(command, tmp_path):
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True,
                          env=dict(os.environ, PATH=os.pathsep.join([os.path.dirname(sys.executable),
                                                                     os.environ["PATH"]])))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout


@pytest.mark.parametrize("line, language, text", blocks(), ids=lambda x: str(x) if isinstance(x, int) else "")
def test_readme_block_runs(line, language, text, tmp_path):
    first = text.splitlines()[0]
    reason = next((why for start, why in NOT_RUN.items() if first.startswith(start)), None)
    if reason:
        pytest.skip(f"README.md:{line}: {reason}")
    if first == 'pip install -e ".[cuda13,test]" && minigr bfs --validate':   # the set-up: CI runs its install
        ci = (ROOT / ".ci" / "run").read_text()                              # and tests; the test, the rest
        assert 'pip install --quiet -e ".[cuda13,test]"' in ci and "python -m pytest -q tests" in ci
        assert text.splitlines()[1] == "python -m pytest -q tests"
        assert "validation: ok" in run(["minigr", "bfs", "--validate"], tmp_path)
    elif first.startswith("NETWORKX_TEST_BACKEND=minigr"):                  # tests/test_nxbackend.py runs it
        assert re.findall(r"networkx\.algorithms(?:\.\w+)+", text) == NETWORKX_TESTS
    elif language == "python":
        assert run([sys.executable, "-c", text], tmp_path).strip(), "a Python block prints what it shows"
    else:
        assert language == "sh", f"README.md:{line}: a block in {language or 'no language'}: say how to run it"
        run(["bash", "-e", "-c", text], tmp_path)


def test_the_first_python_block_reports_the_run_and_the_loop_build_apart(tmp_path):
    text = next(text for _, language, text in blocks() if language == "python")
    out = run([sys.executable, "-c", text], tmp_path)
    assert re.fullmatch(r"51 hops in [0-9.]+ ms\nand [0-9]+ ms once, building its loop on the GPU\n", out), out
