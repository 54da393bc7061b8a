"""The kernel cache is no way into the process: a folder or file that someone
else can write is refused, what is loaded is exactly what was verified, and
the private per-process fallback works and is removed at exit. The planted
libraries here leave a marker file when loaded (CPU) or leave their output
untouched (GPU), so each test would fail if a planted kernel ran."""
import json
import os
import subprocess
import sys
import textwrap

import numpy
import pytest

from minigr import cli, doctor
from minigr.transforms import Functor, MinigrError, compiler, files, launch, transform
from conftest import to_host

N = 5
OWNER_OF = files.owner_of


@pytest.fixture(autouse=True)
def fresh_state(monkeypatch):
    """No kernels in memory, no folder checked and nothing said yet in this process."""
    monkeypatch.setattr(launch, "_kernels", {})
    monkeypatch.setattr(compiler, "_folders", {})
    monkeypatch.setattr(compiler, "_warned", set())


def use_cache(monkeypatch, folder):
    monkeypatch.setenv("MINIGR_CACHE_DIR", str(folder))
    monkeypatch.setattr(launch, "_kernels", {})


def fill(xp):
    """[1..N] from a kernel: the cache's or a freshly compiled one; [0]*N from a planted one."""
    x = xp.zeros(N, numpy.int64)
    transform(N, Functor("void operator()(long long i) const { x[i] = i + 1; }", x=x))
    return to_host(x).tolist()


GOOD = list(range(1, N + 1))


def suffix(device):
    return ".cubin" if device == "gpu" else ".so"


def learn_key(monkeypatch, tmp_path, device, xp):
    """The cache key of fill's kernel, found by running it with a cache of its own."""
    use_cache(monkeypatch, tmp_path / "learn")
    assert fill(xp) == GOOD
    entries = list((tmp_path / "learn").glob("*" + suffix(device)))
    assert len(entries) == 1
    return entries[0].name


def planted_library(device, tmp_path):
    """(bytes, marker): a library that is not minigr's, whose minigr_kernel does
    nothing; on the CPU, loading it creates the marker file (a constructor)."""
    marker = tmp_path / "planted-library-was-loaded"
    if device == "gpu":
        arch = launch.gpu_arch(launch.current_gpu())
        return compiler.compile_cuda('extern "C" __global__ void minigr_kernel() {}', arch), marker
    source, library = tmp_path / "planted.cpp", tmp_path / "planted.so"
    source.write_text(textwrap.dedent(f"""
        #include <cstdio>
        __attribute__((constructor)) static void planted() {{
            if (FILE* f = std::fopen({json.dumps(str(marker))}, "w")) std::fclose(f);
        }}
        extern "C" void minigr_kernel() {{}}
    """))
    subprocess.run([compiler.cxx()[0], *compiler.CXX_OPTIONS, str(source), "-o", str(library)], check=True)
    return library.read_bytes(), marker


def another_users(monkeypatch, *paths):
    """Makes the cache see `paths` (not following links) as owned by another user."""
    theirs = {os.lstat(path).st_ino for path in paths}
    monkeypatch.setattr(files, "owner_of", lambda info: os.geteuid() + 1 if info.st_ino in theirs else info.st_uid)


def plant(path, payload):
    """payload at path with a matching checksum beside it: all that a cache entry is."""
    path.write_bytes(payload)
    path.with_name(path.name + ".sha256").write_text(compiler._digest(payload))


@pytest.mark.parametrize("refusal, why, fix", [
    ("world", "is world-writable (mode 777)", "chmod 700"),
    ("group", "is group-writable (mode 770)", "chmod 700"),
    ("owner", "belongs to uid", "set MINIGR_CACHE_DIR to a folder of your own"),
], ids=["world-writable", "group-writable", "another-users"])
def test_planted_kernel_in_a_refused_folder_is_never_loaded(refusal, why, fix, device, xp, tmp_path, monkeypatch,
                                                            capfd):
    name = learn_key(monkeypatch, tmp_path, device, xp)
    payload, marker = planted_library(device, tmp_path)
    shared = tmp_path / "shared"
    shared.mkdir()
    plant(shared / name, payload)
    os.chmod(shared, {"world": 0o777, "group": 0o770, "owner": 0o700}[refusal])
    if refusal == "owner":
        another_users(monkeypatch, shared)
    use_cache(monkeypatch, shared)
    capfd.readouterr()
    assert fill(xp) == GOOD
    assert not marker.exists()
    transform(2, Functor("void operator()(long long i) const {}"))  # another kernel: nothing more said
    err = capfd.readouterr().err
    assert err.count("minigr: warning") == 1
    assert f"not using the kernel cache {shared}: it {why}" in err
    assert fix in err and str(compiler.private_folder()) in err
    assert sorted(os.listdir(shared)) == [name, name + ".sha256"]  # nothing written there either
    assert (shared / name).read_bytes() == payload

    # Control: the same plant in a folder that only this user can write is trusted, and runs.
    monkeypatch.setattr(files, "owner_of", OWNER_OF)
    os.chmod(shared, 0o700)
    monkeypatch.setattr(compiler, "_folders", {})
    use_cache(monkeypatch, shared)
    assert fill(xp) == [0] * N
    assert marker.exists() == (device == "cpu")


def test_a_file_swapped_after_verification_is_not_what_is_loaded(device, xp, tmp_path, monkeypatch):
    name = learn_key(monkeypatch, tmp_path, device, xp)
    payload, marker = planted_library(device, tmp_path)
    entry = tmp_path / "learn" / name
    real_read = compiler.cache_read

    def read_then_swap(key, suffix):
        verified = real_read(key, suffix)
        if key + suffix == name:
            assert verified is not None
            plant(entry, payload)  # the swap, between the check and the load
        return verified

    monkeypatch.setattr(compiler, "cache_read", read_then_swap)
    use_cache(monkeypatch, tmp_path / "learn")
    assert fill(xp) == GOOD
    assert not marker.exists()
    assert entry.read_bytes() == payload  # the swap did happen


def test_compile_cuda_returns_the_verified_bytes(tmp_path, monkeypatch):
    """NVRTC's cache on a machine without a GPU: the bytes returned (and loaded) are
    those checked, not a second read of the file."""
    use_cache(monkeypatch, tmp_path / "cache")
    source = 'extern "C" __global__ void minigr_kernel(int* a) { a[0] = 1; }'
    good = compiler.compile_cuda(source, "90")
    entry, = (tmp_path / "cache").glob("*.cubin")
    real_read = compiler.cache_read

    def read_then_swap(key, suffix):
        verified = real_read(key, suffix)
        plant(entry, b"planted")
        return verified

    monkeypatch.setattr(compiler, "cache_read", read_then_swap)
    assert compiler.compile_cuda(source, "90") == good


@pytest.mark.parametrize("name, mode, why", [("{}", 0o666, "world-writable"), ("{}", 0o620, "group-writable"),
                                             ("{}.sha256", 0o646, "world-writable")],
                         ids=["entry-666", "entry-620", "checksum-646"])
def test_a_cached_file_others_can_write_is_ignored(name, mode, why, tmp_path, monkeypatch, capfd):
    use_cache(monkeypatch, tmp_path / "cache")
    key = "a" * 64
    compiler.cache_write(key, ".so", b"payload")
    assert compiler.cache_read(key, ".so") == b"payload"
    os.chmod(tmp_path / "cache" / name.format(f"{key}.so"), mode)
    capfd.readouterr()
    assert compiler.cache_read(key, ".so") is None
    assert compiler.cache_read(key, ".so") is None
    err = capfd.readouterr().err
    assert err.count("minigr: warning") == 1 and f"ignoring the cached kernel {tmp_path / 'cache'}" in err
    assert why in err
    compiler.cache_write(key, ".so", b"payload")  # the rebuild replaces it with a private file
    assert compiler.cache_read(key, ".so") == b"payload"


def test_a_cached_file_of_another_user_or_a_link_is_ignored(tmp_path, monkeypatch):
    use_cache(monkeypatch, tmp_path / "cache")
    key = "b" * 64
    compiler.cache_write(key, ".so", b"payload")
    assert compiler.cache_read(key, ".so") == b"payload"
    entry = tmp_path / "cache" / f"{key}.so"
    with monkeypatch.context() as patch:
        another_users(patch, entry)
        assert compiler.cache_read(key, ".so") is None
    assert compiler.cache_read(key, ".so") == b"payload"
    outside = tmp_path / "outside.so"
    plant(outside, b"planted")
    entry.unlink()
    entry.symlink_to(outside)
    entry.with_name(entry.name + ".sha256").write_text(compiler._digest(b"planted"))
    assert compiler.cache_read(key, ".so") is None


def test_a_new_cache_folder_is_private(tmp_path, monkeypatch):
    use_cache(monkeypatch, tmp_path / "new" / "cache")
    folder, problem = compiler.cache_folder()
    assert problem is None and folder == tmp_path / "new" / "cache"
    assert os.stat(folder).st_mode & 0o777 == 0o700


def test_an_uncreatable_folder_falls_back_with_its_reason(tmp_path, monkeypatch, capfd):
    (tmp_path / "file").write_text("not a folder")
    use_cache(monkeypatch, tmp_path / "file" / "cache")
    assert fill(numpy) == GOOD
    err = capfd.readouterr().err
    assert "cannot be created" in err and str(tmp_path / "file" / "cache") in err


def test_the_private_fallback_works_and_is_removed_at_exit(tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)
    script = textwrap.dedent("""
        import os, numpy
        from minigr.transforms import Functor, compiler, launch, transform
        x = numpy.zeros(4, numpy.int64)
        double = "void operator()(long long i) const { x[i] = 2 * i; }"
        transform(4, Functor(double, x=x))
        launch._kernels.clear()
        compiler.subprocess = None  # so a second compile fails: the kernel comes from the private folder
        transform(4, Functor(double, x=x))
        folder, problem = compiler.cache_folder()
        print(x.tolist(), folder, sorted(os.path.splitext(n)[1] for n in os.listdir(folder)), sep=";")
    """)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=root,
                          env={**os.environ, "MINIGR_CACHE_DIR": str(shared)})
    assert done.returncode == 0, done.stderr
    values, folder, kinds = done.stdout.strip().split(";")
    assert values == "[0, 2, 4, 6]"
    assert folder != str(shared) and os.path.dirname(folder) == os.path.dirname(compiler.private_folder())
    assert kinds == "['.sha256', '.so']"  # the entry and its checksum; loaded copies are removed once loaded
    assert not os.path.exists(folder)
    assert done.stderr.count("minigr: warning") == 1 and f"not using the kernel cache {shared}" in done.stderr
    assert os.listdir(shared) == []


def test_a_library_that_cannot_be_loaded_is_a_clear_error():
    with pytest.raises(MinigrError, match=r"cannot load a CPU kernel from .*minigr-.*\.so"):
        compiler.load_cpp(b"not a shared library")
    assert not any(name.startswith("loaded-") for name in os.listdir(compiler.private_folder()))


def test_clear_cache_removes_only_our_own_entries(tmp_path, monkeypatch, capsys):
    cache = tmp_path / "cache"
    use_cache(monkeypatch, cache)
    key = "c" * 64
    compiler.cache_write(key, ".so", b"library")
    compiler.cache_write(key, ".cubin", b"cubin")
    (cache / f".{key}.so.x1y2z3_a.tmp").write_bytes(b"unfinished")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("not ours")
    (cache / f"{'d' * 64}.so").symlink_to(outside / "keep.txt")        # a link named like an entry: removed
    (cache / "notes.txt").write_text("not ours")
    (cache / "elsewhere").symlink_to(outside)                             # a link to a folder: left alone
    (cache / f"{'e' * 64}.cubin").mkdir()                                 # a folder named like an entry: too
    (cache / f"{'e' * 64}.cubin" / "inside").write_text("not ours")
    ours = {f"{key}.so", f"{key}.so.sha256", f"{key}.cubin", f"{key}.cubin.sha256", f".{key}.so.x1y2z3_a.tmp",
            f"{'d' * 64}.so"}
    everything = set(os.listdir(cache))

    with monkeypatch.context() as patch:
        another_users(patch, *[cache / name for name in everything])
        assert compiler.clear_cache() == (cache, 0)
    assert set(os.listdir(cache)) == everything

    assert cli.main(["doctor", "--clear-cache"]) == 0
    assert capsys.readouterr().out == f"kernel cache: removed {len(ours)} files from {cache}\n"
    assert set(os.listdir(cache)) == everything - ours
    assert (outside / "keep.txt").read_text() == "not ours" and (cache / f"{'e' * 64}.cubin" / "inside").exists()
    assert cli.main(["doctor", "--clear-cache"]) == 0
    assert "removed 0 files" in capsys.readouterr().out


def test_clearing_a_missing_cache_removes_nothing(tmp_path, monkeypatch):
    use_cache(monkeypatch, tmp_path / "never-made")
    assert compiler.clear_cache() == (tmp_path / "never-made", 0)
    assert not (tmp_path / "never-made").exists()


@pytest.mark.parametrize("mode, state", [(0o700, "(private: only you can write it)"),
                                         (0o777, "refused: it is world-writable (mode 777)")],
                         ids=["private", "world-writable"])
def test_doctor_reports_the_cache_state(mode, state, tmp_path, monkeypatch, capsys):
    cache = tmp_path / "cache"
    cache.mkdir()
    os.chmod(cache, mode)
    use_cache(monkeypatch, cache)
    monkeypatch.setattr(doctor, "WORKLOADS", [])
    assert doctor.run() == 0
    line, = [line for line in capsys.readouterr().out.splitlines() if line.startswith("kernel cache:")]
    assert line.startswith(f"kernel cache: {cache} {state}")
