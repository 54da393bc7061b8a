"""Files written whole or not at all. The lowest layer, so that every other one
(the kernel cache, the graph loader's binary cache, the CLI's outputs) writes
files the same way."""
import os
import tempfile


def write_atomically(path, contents, mode="wb"):
    """Writes `contents` (bytes, str, or a function that writes to the open file)
    to a temporary file beside `path`, then renames it over `path`: readers see the
    old file or the new one, never part of one, and a failure leaves any old file
    as it was and no temporary behind. The file is readable and writable by its
    owner only (mode 0600, as tempfile.mkstemp creates it)."""
    folder, name = os.path.split(os.path.abspath(path))
    fd, temp = tempfile.mkstemp(dir=folder, prefix=f".{name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, mode) as f:
            if callable(contents):
                contents(f)
            else:
                f.write(contents)
        os.replace(temp, path)
    except BaseException:
        os.unlink(temp)
        raise
