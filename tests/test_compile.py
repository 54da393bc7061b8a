"""What needs no GPU: NVRTC compilation of every transform kernel, the compile
caches, and the errors for bad functors and captures. Runs everywhere."""
import os
import subprocess
import sys
import textwrap

import numpy
import pytest

from minigr.transforms import CompileError, DeviceError, Functor, MinigrError, resolve_device, scan_transform, transform
from minigr.transforms import compiler, launch
from minigr.doctor import transform_samples
from minigr.transforms.backend import gpu_available


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    """A fresh, empty kernel cache for each test."""
    monkeypatch.setenv("MINIGR_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(launch, "_kernels", {})
    return tmp_path / "cache"


@pytest.mark.parametrize("arch", ["90", "80"])
def test_every_transform_compiles_with_nvrtc(arch):
    with launch.compile_check(arch) as compiled:
        transform_samples()
    # transform over a host and a device count, segment_transform (two kernels), scan, compact, and per offset
    # type: lbs and its partition, then segreduce: 3 ops on doubles and a sum on floats, and a
    # partition for each value width; then intersect
    assert len(compiled) == 23
    assert all("__global__" in source for source in compiled)


@pytest.mark.parametrize("group", [2, 32])
def test_thread_groups_compile_with_nvrtc(group):
    """neighbor_reduce's thread groups (GPU only: the CPU runs one thread per vertex)."""
    from minigr.operators.neighbor_reduce import _GROUP, HEADERS
    from minigr.transforms import codegen
    from minigr.transforms.api import reduction
    combine, identity = reduction("sum", None, numpy.float32)
    x, offsets = numpy.zeros(4, numpy.float32), numpy.zeros(5, numpy.int64)
    op = Functor("float operator()(int v, int u, long long edge) const { return x[u]; }", x=x)
    functor = Functor(_GROUP % (group, "float"), headers=HEADERS, op=op, combine=combine, identity=identity,
                      out=x, row_offsets=offsets, col_indices=numpy.zeros(1, numpy.int32), n=numpy.int64(4))
    source = codegen.kernel_source("gpu", [("long long", "n")], [functor], "minigr::transform(n, f0)", 256)
    assert "__shfl_xor_sync" in source
    compiler.compile_cuda(source, "90", "thread groups")


def test_disk_cache_serves_a_second_process(private_cache):
    """A second process with a warm disk cache starts its kernels without compiling."""
    script = textwrap.dedent("""
        from minigr.transforms import compiler, launch
        from minigr.doctor import transform_samples
        calls = []
        real_nvrtc, real_run = compiler._nvrtc, compiler.subprocess.run
        def counting_run(args, **kw):
            if "-shared" in args: calls.append("c++")
            return real_run(args, **kw)
        compiler.subprocess.run = counting_run
        class Counting:
            def __getattr__(self, name):
                if name == "nvrtcCompileProgram": calls.append("nvrtc")
                return getattr(real_nvrtc(), name)
        compiler._nvrtc = lambda: Counting()
        with launch.compile_check("90"):
            transform_samples()
        print(len(calls))
    """)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, MINIGR_CACHE_DIR=str(private_cache))
    first = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=root)
    second = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=root)
    assert first.returncode == 0, first.stderr
    assert int(first.stdout) == 39  # 23 GPU + 16 CPU kernels compiled (partitions are GPU-only)
    assert second.returncode == 0, second.stderr
    assert int(second.stdout) == 0


def test_corrupt_cache_entry_is_rebuilt(private_cache):
    source = 'extern "C" __global__ void minigr_kernel(int* a) { a[0] = 1; }'
    good = compiler.compile_cuda(source, "90")
    entries = list(private_cache.glob("*.cubin"))
    assert len(entries) == 1
    entries[0].write_bytes(b"garbage" + good[7:])
    assert compiler.cache_read(entries[0].stem, ".cubin") is None
    assert compiler.compile_cuda(source, "90") == good
    assert compiler.cache_read(entries[0].stem, ".cubin") is not None
    entries[0].with_name(entries[0].name + ".sha256").unlink()  # a missing checksum is not trusted either
    assert compiler.cache_read(entries[0].stem, ".cubin") is None


def test_cache_dir_follows_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("MINIGR_CACHE_DIR", str(tmp_path / "elsewhere"))
    assert compiler.cache_dir() == tmp_path / "elsewhere"


BROKEN = """__device__ long long operator()(long long i) const {
    long long d = deg[i];
    return d + undefined_name;
}"""


def test_nvrtc_error_shows_user_lines():
    deg = numpy.zeros(3, numpy.int32)
    with pytest.raises(CompileError) as info, launch.compile_check("90"):
        scan_transform(3, Functor(BROKEN, filename="count.cu", deg=deg))
    message = str(info.value)
    assert "NVRTC" in message and "count.cu(3)" in message and "undefined_name" in message


def test_cpu_compiler_error_shows_user_lines():
    deg = numpy.zeros(3, numpy.int32)
    with pytest.raises(CompileError) as info:
        scan_transform(3, Functor(BROKEN, filename="count.cu", deg=deg))
    message = str(info.value)
    assert "count.cu:3" in message and "undefined_name" in message


def test_functor_from_file_names_the_file(tmp_path):
    path = tmp_path / "mine.cu"
    path.write_text(BROKEN)
    with pytest.raises(CompileError, match=r"mine\.cu:3"):
        scan_transform(3, Functor.from_file(str(path), deg=numpy.zeros(3, numpy.int32)))
    with pytest.raises(MinigrError, match="cannot read functor file"):
        Functor.from_file(str(tmp_path / "missing.cu"))


@pytest.mark.parametrize("value, name", [([1, 2], "list"), ("text", "str"), (numpy.zeros(2, complex), "complex"),
                                         (None, "NoneType")])
def test_unsupported_capture_is_refused(value, name):
    with pytest.raises(MinigrError, match=f"capture 'bad'.*{name}"):
        Functor("void operator()(long long) const {}", bad=value)


def test_non_contiguous_capture_is_refused():
    with pytest.raises(MinigrError, match="not contiguous"):
        Functor("void operator()(long long) const {}", x=numpy.zeros(10)[::2])


@pytest.mark.parametrize("construct", ["__syncthreads()", "__shfl_sync(0xffffffff, 1, 0)", "threadIdx.x"])
def test_gpu_only_construct_refused_on_cpu(construct):
    f = Functor(f"void operator()(long long i) const {{\n    int x = y[0];\n    (void)({construct});\n}}",
                filename="warp.cu", y=numpy.zeros(1, numpy.int32))
    with pytest.raises(MinigrError, match=r"warp\.cu:3: `.*` is GPU-only"):
        transform(1, f)


def test_scalar_captures_are_typed():
    f = Functor("void operator()(long long) const {}", a=1, b=2.0, c=True, d=numpy.float32(1), e=numpy.uint8(3))
    assert dict((n, t) for t, n in f.params) == {"a": "int64_t", "b": "double", "c": "bool", "d": "float",
                                                  "e": "uint8_t"}


def test_empty_source_refused():
    with pytest.raises(MinigrError, match="non-empty string"):
        Functor("   ")


@pytest.mark.skipif(gpu_available(), reason="checks the message given where no GPU is present")
def test_no_gpu_is_a_clear_error(monkeypatch):
    monkeypatch.delenv("MINIGR_DEVICE", raising=False)
    with pytest.raises(DeviceError, match="use device='cpu'"):
        resolve_device("gpu")
    assert resolve_device() == "cpu"


def test_unknown_device():
    with pytest.raises(MinigrError, match="unknown device 'tpu'"):
        resolve_device("tpu")


def test_doctor_compiles_everything(capsys):
    from minigr import doctor
    assert doctor.run() == 0
    out = capsys.readouterr().out
    for name in ("transforms", "operators", "primitives"):
        assert f"  {name}" in out
    assert "all kernels compile" in out


def test_doctor_names_a_failing_kernel(capsys, monkeypatch):
    from minigr import doctor
    broken = Functor("long long operator()(long long i) const { return missing; }", filename="broken.cu")
    monkeypatch.setattr(doctor, "WORKLOADS", doctor.WORKLOADS + [("mine", lambda: scan_transform(2, broken))])
    assert doctor.run() == 1
    out = capsys.readouterr().out
    assert "mine" in out and "FAILED" in out and "broken.cu(1)" in out and "kernels that fail: mine" in out
