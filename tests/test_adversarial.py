"""Adversarial inputs, as a hostile user would try them (issue 29): nothing lost, nothing
wrong, nothing hung. Each test here failed on the code before its fix; future changes keep
passing them. (The machine running the tests may be root, which no file mode stops: owner
checks are tested by faking another owner, read-only folders by refusing the write.)"""
import os
import stat
import threading

import numpy as np
import pytest

from minigr import cli, io
from minigr.cli import main
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
