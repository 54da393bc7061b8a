"""minigr's imports follow its layers (DESIGN.md): the contract in .importlinter,
checked by import-linter's lint-imports. import-linter reads a package from
its folder, and minigr's folders map into it (pyproject's package-dir), so the
check runs on a copy laid out as installed."""
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

tomllib = pytest.importorskip("tomllib")

ROOT = pathlib.Path(__file__).resolve().parent.parent
LINT = pathlib.Path(sys.executable).parent / "lint-imports"


def lint(tmp_path, plant=None):
    """lint-imports on minigr laid out as installed under tmp_path; plant: (module file, a line
    appended to it). Returns the finished process."""
    folders = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    for package, folder in sorted(folders.items()):
        shutil.copytree(ROOT / folder, tmp_path.joinpath(*package.split(".")),
                        ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.cubin"))
    if plant:
        with open(tmp_path / plant[0], "a") as file:
            file.write(plant[1] + "\n")
    return subprocess.run([str(LINT), str(ROOT / ".importlinter")], cwd=tmp_path, capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(tmp_path)))


def test_imports_follow_the_layers(tmp_path):
    done = lint(tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Contracts: 2 kept, 0 broken." in done.stdout


@pytest.mark.parametrize("plant, broken", [
    (("minigr/graph.py", "from .apps import bfs"), "minigr.graph -> minigr.apps.bfs"),            # up the layers
    (("minigr/apps/bfs.py", "from minigr.bench import primitives"), "minigr.apps.bfs -> minigr.bench.primitives"),
    (("minigr/io/columns.py", "from . import edge_list"), "No cycles are allowed in minigr.io."),  # a cycle
])
def test_a_planted_violation_breaks_the_contract(tmp_path, plant, broken):
    done = lint(tmp_path, plant)
    assert done.returncode == 1 and broken in done.stdout, done.stdout + done.stderr
