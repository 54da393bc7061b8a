"""Files written whole or not at all, and cached files read only when this user
alone could have written them. The lowest layer, so that every other one (the
kernel cache, the graph loader's binary cache, the CLI's outputs) writes and
trusts files the same way."""
import os
import stat
import tempfile


def write_atomically(path, contents, mode="wb", permissions=0o600):
    """Writes `contents` (bytes, str, or a function that writes to the open file)
    to a temporary file beside `path`, then renames it over `path`: readers see the
    old file or the new one, never part of one, and a failure leaves any old file
    as it was and no temporary behind. permissions: the new file's mode bits
    (default 0600: readable and writable by its owner only)."""
    folder, name = os.path.split(os.path.abspath(path))
    fd, temp = tempfile.mkstemp(dir=folder, prefix=f".{name}.", suffix=".tmp")
    try:
        os.fchmod(fd, permissions)
        with os.fdopen(fd, mode) as f:
            if callable(contents):
                contents(f)
            else:
                f.write(contents)
        os.replace(temp, path)
    except BaseException:
        os.unlink(temp)
        raise


def owner_of(info):
    """The uid owning a file or folder, given its stat (a function, so that tests
    can simulate another user's)."""
    return info.st_uid


def writable_by_others(info):
    """Why a file or folder, given its stat, could be written by someone else, or None."""
    if owner_of(info) != os.geteuid():
        return f"it belongs to uid {owner_of(info)}, not to you (uid {os.geteuid()})"
    if info.st_mode & 0o022:
        who = "world" if info.st_mode & 0o002 else "group"
        return f"it is {who}-writable (mode {stat.S_IMODE(info.st_mode):o})"
    return None


def open_own_file(path):
    """(file, None): `path` open for reading bytes, when it is a regular file that
    only this user can write; else (None, why not). Checked through the open file,
    so what is checked is what is read; a link is never followed and a FIFO never
    waited on. (None, None) when it cannot be opened (missing, say)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None, None
    info = os.fstat(fd)
    why = "it is not a regular file" if not stat.S_ISREG(info.st_mode) else writable_by_others(info)
    if why:
        os.close(fd)
        return None, why
    os.set_blocking(fd, True)
    return os.fdopen(fd, "rb"), None
