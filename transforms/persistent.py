"""A Loop run as one persistent kernel: its body's launches, recorded once,
become the stages of a single cooperative kernel whose resident grid runs
every iteration, with grid barriers only where a stage must see what an
earlier one wrote, and the loop's step in the barrier that ends an
iteration. No launch and no host round trip per iteration. A level of a
small frontier is a chain of round trips to memory (~0.6 us each on an
H100): BFS on USA-road-d.NY, 8.8 us a level, is ~2.0 us from a barrier's
release to the first block's next arrival, ~6.1 us more until the block
with the level's work arrives, and 0.6 us of step (globaltimer stamps in
the barrier, 2026-11-26)."""
import numpy

from . import codegen, compiler
from . import launch as launching
from .errors import DeviceError
from .launch import current_gpu, gpu_arch, multiprocessors, recording

BLOCKS_PER_SM = 2  # the most resident blocks per SM a persistent kernel asks for (see blocks_per_sm)


def blocks_per_sm(block):
    """Resident blocks per SM of a persistent kernel of `block` threads: two of 1024 (the
    SM's 2048 threads), for the big levels that such blocks are chosen for (more edges
    in flight); else one, which beat 2, 4 and 8 blocks of 256 on road maps, grids and kron
    scale 12 (H100, 2026-11-26). H100, 2026-11-27, persistent SSSP ms with one / two of
    1024: kron_s21_e16 6.2-6.3 / 4.55, kron scale 18 1.12-1.17 / 0.98-0.99, 2^20
    vertices of mean degree 32 5.75-5.79 / 5.25-5.26, kron scale 16 0.49-0.51 / 0.51-0.52,
    rgg_20 10.8 / 11.0-11.1, rgg_n22 26.9 / 27.4; BFS rgg_n22 8.29-8.40 / 8.23-8.25,
    kron_s21_e16 0.26 / 0.26 (.devrun/pblock.py, ssspmode.py). A uniform random graph of
    2^22 vertices and mean degree just under 8 gets blocks of 256 (enactor.persistent_block),
    of which two an SM took 11.4-11.6 ms against one's 18.0-18.3: its big levels are what
    its degree does not tell (SSSP's auto takes the CUDA graph there from its second call)."""
    return BLOCKS_PER_SM if block >= 1024 else 1


def loop_source(loop, starts):
    """(source, stages) of the persistent kernel of `loop` that begins with the
    `starts` functors (see codegen.loop_kernel_source): its body recorded, not
    run. A MinigrError names a transform that cannot be a stage."""
    with recording(loop.persistent_block) as stages:
        loop.body()
    return codegen.loop_kernel_source(starts, stages, loop.step, loop.persistent_block), stages


def compile_check(loop, starts):
    """Under launch.compile_check: compiles the persistent kernel of `loop` with NVRTC (no GPU needed)."""
    launching.compile_twin(loop_source(loop, starts)[0], f"<{loop.name} persistent loop>")


def _on_device(value):
    """Whether a capture is a CuPy array (its parameter holds the address), not a scalar."""
    return hasattr(value, "data") and hasattr(value.data, "ptr")


class PersistentLoop:
    """The compiled persistent kernel of a Loop on the current GPU that begins
    with transforms of functors shaped as `starts` (their items and captures
    given again by each launch), with the body's arguments packed once (its
    buffers outlive the Loop, as for a CUDA graph) and its barrier's words."""

    def __init__(self, loop, starts):
        import cupy
        from cuda.bindings import driver
        self.driver, self.name, self.block = driver, loop.name, loop.persistent_block
        self.huge_lists = {}  # its segment_transforms' own (launch.huge_lists_of), kept with the kernel's arguments
        with launching.huge_lists_of(self.huge_lists):
            source, stages = loop_source(loop, starts)
        gpu = current_gpu()
        function = compiler.load_cuda(compiler.compile_cuda(source, gpu_arch(gpu), f"<{loop.name} persistent loop>"))
        self.function = driver.CUfunction(int(function.ptr))
        self._module = function  # keeps the module loaded
        self.words = cupy.zeros(2, dtype=numpy.uint64)  # the barrier's [state, timed out] (persistent.cuh)
        args = [self.words]
        for start in starts:
            args += [numpy.int64(0)] + list(start.values)
        for stage in stages:
            args += stage.fixed_args + ([stage.count.cell] if stage.count is not None else [])
            args += [value for functor in stage.functors for value in functor.values]
        args += list(loop.step.values)
        self._buffers = [numpy.array([a.data.ptr], dtype=numpy.uint64) if _on_device(a) else numpy.array([a])
                         for a in args]
        self._pointers = numpy.array([b.ctypes.data for b in self._buffers], dtype=numpy.uint64)
        self._address = int(self._pointers.ctypes.data)
        self._keep = args  # what the buffers hold (the starts': what the last launch wrote)
        resident = self._check(driver.cuOccupancyMaxActiveBlocksPerMultiprocessor(self.function, self.block, 0),
                               "cuOccupancyMaxActiveBlocksPerMultiprocessor")
        self.blocks = multiprocessors(gpu) * max(1, min(blocks_per_sm(self.block), int(resident)))

    def _check(self, result, what):
        err, *values = result if isinstance(result, tuple) else (result,)
        if int(err) != 0:
            raise DeviceError(f"{self.name}: {what} failed for its persistent loop: {err!r}")
        return values[0] if values else None

    def launch(self, starts):
        """Queues the loop's one kernel on the current stream, to begin with `starts`, (items,
        functor) pairs shaped as those it was built for."""
        import cupy
        values = [v for items, functor in starts for v in (items, *functor.values)]
        for i, value in enumerate(values, 1):  # the launch copies the arguments
            if value is not self._keep[i]:  # (a functor's with_values keeps its arrays)
                self._buffers[i][0] = value.data.ptr if _on_device(value) else value
                self._keep[i] = value
        self._check(self.driver.cuLaunchCooperativeKernel(self.function, self.blocks, 1, 1, self.block, 1, 1, 0,
                                                          cupy.cuda.get_current_stream().ptr, self._address),
                    "cuLaunchCooperativeKernel")
        launching.launches += 1

    def check(self, words):
        """A DeviceError if a barrier gave up waiting (the grid was not all resident), by
        `words` as read back after the run; the barrier's words are then cleared, so that
        the next run does not report it again, nor count the arrivals it left."""
        if words[1]:
            self.words.fill(0)
            raise DeviceError(f"{self.name}: a grid barrier of its persistent loop timed out")
