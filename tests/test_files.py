"""write_atomically: the whole new file or the old one, never part of one."""
import os
import stat

import pytest

from minigr.transforms.files import write_atomically


def test_writes_bytes_text_and_through_a_writer(tmp_path):
    path = tmp_path / "out"
    write_atomically(path, b"\x00bytes")
    assert path.read_bytes() == b"\x00bytes"
    write_atomically(path, "text\n", mode="w")
    assert path.read_text() == "text\n"
    write_atomically(path, lambda f: f.writelines(["a\n", "b\n"]), mode="w")
    assert path.read_text() == "a\nb\n"
    assert os.listdir(tmp_path) == ["out"]
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path):
    path = tmp_path / "out"
    path.write_text("old")

    def half_then_fail(f):
        f.write("partial")
        raise RuntimeError("disk on fire")

    with pytest.raises(RuntimeError, match="disk on fire"):
        write_atomically(path, half_then_fail, mode="w")
    assert path.read_text() == "old"
    assert os.listdir(tmp_path) == ["out"]


def test_a_missing_folder_is_an_os_error(tmp_path):
    with pytest.raises(FileNotFoundError):
        write_atomically(tmp_path / "missing" / "out", b"x")
