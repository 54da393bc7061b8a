"""The README's example runs as written."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_reach_example():
    done = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "reach.py")], capture_output=True,
                          text=True, env=dict(os.environ, MINIGR_DEVICE="cpu"))
    assert done.returncode == 0, done.stderr
    assert "2982 vertices reached from 777 in 4 hops" in done.stdout
