"""Loops over transforms whose iterations need no host round trip: on the GPU,
a CUDA graph whose conditional WHILE node runs the body until a functor on
the device says stop, with IF/ELSE nodes for the body's branches; the same
body also runs driven by the host (the CPU backend always, the GPU when asked),
reading one flag per decision."""
import threading
import time

import numpy

from .api import BLOCK, _count, huge_list, transform
from .backend import array_module, read_waiting
from .errors import DeviceError, MinigrError, naming_errors
from .functor import Functor
from .launch import compile_checking, current_gpu, huge_lists_of, launch, recording_launches
from .lookback import await_cell, host_cell
from .persistent import PersistentLoop
from .persistent import compile_check as persistent_compile_check

# The step after every body run: the user's condition, then the iteration
# count and its limit. state = [iteration, 1 once the limit stopped the loop, limit].
_STEP = """bool operator()() const {
    const int iteration = state[0], exhausted = state[1], limit = state[2];  // one round trip, before condition's
    if (exhausted || !condition()) return false;
    if (iteration + 1 >= limit) { state[1] = 1; return false; }
    state[0] = iteration + 1;
    return true;
}"""
# Each run's reset of the loop's state (a functor: CuPy would compile its item assignments on
# first use, 0.1 s on an H100). Apps' own resets are their Problems' `start`.
_STATE_RESET = "void operator()(long long) const { state[0] = 0; state[1] = 0; state[2] = limit; }"
_WHERE = ("device", "host", "persistent")
_builds = threading.local()  # .ms: host milliseconds this thread spent building device loops


def build_ms_total():
    """Host milliseconds that this thread has spent building device loops (capture and
    instantiation, or a persistent kernel's recording and compilation) so far; a timer of a
    run takes the difference across it."""
    return getattr(_builds, "ms", 0.0)


class Loop:
    """Runs body() again and again until condition() (a Functor with a
    `bool operator()() const`, run by one thread after each body) is false, or
    a run's max_iterations bodies ran. body issues transforms, and may branch with
    `loop.branch`; `loop.iteration` (an int32 device array of one element)
    holds the running body's iteration number for functors to read. The body
    must issue the same launches whatever the data: on the GPU it is captured
    once, so it may not allocate, free or wait, and its buffers must outlive
    the Loop. unroll: bodies (each with its step) per iteration of the CUDA
    graph's WHILE node, which costs about 4 us an iteration on an H100; only
    for a body that does nothing once its condition failed (a traversal of an
    empty frontier), since the bodies after a failed step run all the same.
    checks: (flag, message) pairs, a one-element device array that the body's
    work sets non-zero where it failed (a buffer overflowed) and what to say
    then; read with the loop's state, in its one wait (wait_iterations).
    persistent_block: threads a block of its persistent kernel (one block an
    SM, two of 1024; see transforms/persistent.py), a power of two from 32 to 1024."""

    def __init__(self, name, device, body, condition, unroll=1, checks=(), persistent_block=BLOCK):
        if persistent_block not in (32, 64, 128, 256, 512, 1024):
            raise MinigrError(f"persistent_block must be a power of two from 32 to 1024, got {persistent_block!r}")
        self.name, self.device, self.body, self.unroll = name, device, body, _count(unroll, "unroll")
        self.persistent_block = persistent_block
        self.checks = list(checks)
        self.state = array_module(device).zeros(3, dtype=numpy.int32)
        self.iteration = self.state[0:1]
        self.step = Functor(_STEP, filename=f"<{name} loop step>", condition=condition, state=self.state)
        self.state_reset = Functor(_STATE_RESET, filename="<loop state reset>", state=self.state,
                                   limit=numpy.int32(1))
        self._graph = None  # the CUDA graph, captured on the first device run
        self._persistent = []  # (shape of its starts, kernel): built on the first persistent run of each
        self._ran_persistent = None  # the last one launched
        self.build_ms = None  # host milliseconds its capture and instantiation took
        self._capture = None  # while capturing: the _CaptureStack

    def run(self, where, max_iterations, before=None):
        """Runs the loop (queued on the current stream, as for a transform), at
        most max_iterations (>= 1) bodies: where="device" keeps it on the GPU
        in a CUDA graph, "persistent" in one persistent kernel (see
        transforms/persistent.py; for bodies of transforms that stride over
        any grid), "host" decides each iteration on the host. The CPU backend
        always loops on the host. before: (items, functor), a transform that
        the run begins with (a reset), which the persistent kernel runs itself
        (a launch less); it may not read what the loop's state reset writes
        (its iteration count), nor the other way round."""
        if where not in _WHERE:
            raise MinigrError(f"loop must be one of {_WHERE}, got {where!r}")
        if not 1 <= _count(max_iterations, "max_iterations") < 2**31:
            raise MinigrError(f"max_iterations must lie in [1, 2^31), got {max_iterations}")
        starts = ([before] if before else []) + [(1, self.state_reset.with_values(limit=max_iterations))]
        self._ran_persistent = None  # its barrier's words are this run's to check only if it launches the kernel
        with self._naming_errors():
            if self.device == "gpu" and where == "persistent":  # its kernel runs the starts itself
                shape = [functor.signature for _, functor in starts]  # (equal as the same objects: no hash)
                found = next((kernel for built, kernel in self._persistent if built == shape), None)
                if found is None:
                    start = time.perf_counter()
                    found = PersistentLoop(self, [functor for _, functor in starts])
                    self._persistent.append((shape, found))
                    self.build_ms = _note_build(start)
                self._ran_persistent = found
                found.launch(starts)
                return
            for items, functor in starts:
                transform(items, functor)
            if where == "persistent" and compile_checking():  # prove on the CPU that its GPU kernel compiles
                persistent_compile_check(self, [functor for _, functor in starts])
            if self.device == "gpu" and where == "device":
                if self._graph is None:
                    start = time.perf_counter()
                    self._graph = _loop_graph(self)
                    self.build_ms = _note_build(start)
                self._graph.launch()
                return
            while True:
                self.body()
                if not self._decide_waiting(self.step):
                    return

    def wait_iterations(self):
        """(bodies run, whether the limit stopped the loop), or a MinigrError of the
        first of its checks that failed: waits for the loop."""
        persistent = [] if self._ran_persistent is None else [self._ran_persistent.words]
        with self._naming_errors():
            state, *flags = read_waiting(self.state, *(flag for flag, _ in self.checks), *persistent)
            if persistent:
                self._ran_persistent.check(flags.pop())
            for flag, (_, message) in zip(flags, self.checks):
                if flag[0]:
                    raise MinigrError(message)
        return int(state[0]) + 1, bool(state[1])

    def _naming_errors(self):
        """Errors of the loop's functors and kernels, with the loop's name first."""
        return naming_errors(self.name, "running its loop")

    def branch(self, condition, if_true, if_false=None):
        """Inside the body: runs if_true() when condition() holds, else if_false()
        (when given), decided on the device in a device run: an IF/ELSE node,
        which costs about 6 us on an H100; where the other side can simply
        have nothing to do, a count of 0 (a DeviceCount) is cheaper."""
        if recording_launches():
            raise MinigrError("a persistent loop's body cannot branch (a decision would need its own barrier); "
                              "give the operator a DeviceCount of 0 instead, or use loop='device'")
        if self._capture is not None:
            self._capture.branch(condition, if_true, if_false)
        elif self._decide_waiting(condition):
            if_true()
        elif if_false is not None:
            if_false()

    def _decide_waiting(self, condition):
        """condition(), evaluated on the device and read back: waits for it."""
        cell, flag = host_cell(self.device)
        launch(self.device, [("long long*", "flag")], [cell], [condition],
               {"gpu": "minigr::StoreFlag signal{flag}; minigr::decide(f0, signal)",
                "cpu": "minigr::StoreFlag signal{flag}; minigr::decide(f0, signal)"}, 1, 1)
        if self.device == "gpu":
            import cupy
            await_cell(flag, cupy.cuda.get_current_stream())
        else:  # launches nothing on the CPU; under compile_check, compiles the device loop's twin for the GPU
            _set_conditional(self.device, condition, 0)
        return bool(flag[0])


def _note_build(start):
    """The host milliseconds since `start` (perf_counter), spent building a device loop: counted
    in build_ms_total."""
    ms = (time.perf_counter() - start) * 1e3
    _builds.ms = build_ms_total() + ms
    return ms


def capturing():
    """Whether the current CUDA stream is being captured (a loop body is being recorded on the GPU)."""
    import cupy
    return cupy.cuda.get_current_stream().is_capturing()


def _check(result, what):
    """The values of a cuda.bindings call, or a DeviceError naming the call."""
    err, *values = result if isinstance(result, tuple) else (result,)
    if int(err) != 0:
        raise DeviceError(f"{what} failed: {err!r}; the GPU driver must support CUDA graph conditional "
                          "nodes (CUDA 12.8 or newer)")
    return values[0] if len(values) == 1 else values


def _set_conditional(device, condition, handle):
    """Launches the one-thread kernel that sets a conditional node's handle."""
    launch(device, [("unsigned long long", "handle")], [numpy.uint64(int(handle))], [condition],
           {"gpu": "minigr::SetConditional signal{handle}; minigr::decide(f0, signal)", "cpu": None}, 1, 1)


class _CudaGraph:
    """A CUDA graph that fill(rt, graph) builds, instantiated once on the current GPU and
    launched on the current stream."""

    def __init__(self, device, fill):
        from cuda.bindings import runtime as rt
        self.rt = rt
        self.huge_lists = {}  # its segment_transforms' own (launch.huge_lists_of)
        with huge_lists_of(self.huge_lists):
            huge_list(device)  # made now: a captured body may not allocate
            _check(rt.cudaSetDevice(current_gpu()), "cudaSetDevice")
            self.graph = _check(rt.cudaGraphCreate(0), "cudaGraphCreate")
            self.exec = None
            try:
                fill(rt, self.graph)
                self.exec = _check(rt.cudaGraphInstantiate(self.graph, 0), "cudaGraphInstantiate")
            except BaseException:
                self.close()
                raise

    def launch(self):
        import cupy
        _check(self.rt.cudaGraphLaunch(self.exec, cupy.cuda.get_current_stream().ptr), "cudaGraphLaunch")

    def close(self):
        if self.exec is not None:
            self.rt.cudaGraphExecDestroy(self.exec)
            self.exec = None
        if self.graph is not None:
            self.rt.cudaGraphDestroy(self.graph)
            self.graph = None

    def __del__(self):
        self.close()


def _loop_graph(loop):
    """A Loop captured into a CUDA graph: a WHILE node (its handle set to 1 at
    each launch, so the body runs at least once) whose body is the Loop's body
    followed by its step, which sets the handle."""
    def fill(rt, graph):
        flags = int(rt.cudaGraphConditionalHandleFlags.cudaGraphCondAssignDefault)
        handle = _check(rt.cudaGraphConditionalHandleCreate(graph, 1, flags), "cudaGraphConditionalHandleCreate")
        _, (body,) = _add_conditional(rt, graph, [], handle, rt.cudaGraphConditionalNodeType.cudaGraphCondTypeWhile, 1)
        loop._capture = _CaptureStack(rt, graph, loop.device)
        try:
            loop._capture.capture(body, lambda: [(loop.body(), _set_conditional(loop.device, loop.step, handle))
                                                 for _ in range(loop.unroll)])
        finally:
            loop._capture = None
    return _CudaGraph(loop.device, fill)


class Replay:
    """A fixed run of launches, body(), queued again by each run(): on the GPU
    captured on the first run into a CUDA graph, whose one launch replaces the
    body's (each ~10 us of host time); on the CPU body() itself. The body keeps
    a Loop body's rules: the same launches whatever the data, no allocation, no
    wait, buffers that outlive the Replay."""

    def __init__(self, name, device, body):
        self.name, self.device, self.body = name, device, body
        self._graph = None

    def run(self):
        with naming_errors(self.name, "running its launches"):
            if self.device != "gpu":
                self.body()
                return
            if self._graph is None:
                start = time.perf_counter()
                self._graph = _CudaGraph(self.device, lambda rt, graph: _CaptureStack(rt, graph, self.device).capture(
                    graph, self.body))
                _note_build(start)
            self._graph.launch()


def _refuse_allocation(size):
    """CuPy's allocator while a loop body is captured: the graph would keep
    using memory that the pool hands out again once the body lets it go."""
    raise MinigrError(f"its body allocated {size} bytes of GPU memory; a device loop's body must use buffers made "
                      "before the loop (operators and transforms take out= for that)")


def _add_conditional(rt, graph, dependencies, handle, kind, size):
    """(node, body graphs) of a conditional node added to `graph` after `dependencies`."""
    params = rt.cudaGraphNodeParams()
    params.type = rt.cudaGraphNodeType.cudaGraphNodeTypeConditional
    params.conditional.handle = handle
    params.conditional.type = kind
    params.conditional.size = size
    node = _check(rt.cudaGraphAddNode(graph, dependencies or None, None, len(dependencies), params),
                  "cudaGraphAddNode(conditional)")
    return node, [params.conditional.phGraph_out[i] for i in range(size)]


class _CaptureStack:
    """Captures launches into body graphs of one CUDA graph: each body on a
    stream of its own, nested as the body's branches nest."""

    def __init__(self, rt, graph, device):
        self.rt, self.graph, self.device = rt, graph, device
        self.streams = []  # the capturing streams, innermost last

    def capture(self, body_graph, fn):
        """Runs fn() with the launches it queues captured into body_graph."""
        import cupy
        rt = self.rt
        stream = cupy.cuda.Stream(non_blocking=True)
        mode = rt.cudaStreamCaptureMode.cudaStreamCaptureModeRelaxed
        _check(rt.cudaStreamBeginCaptureToGraph(stream.ptr, body_graph, None, None, 0, mode),
               "cudaStreamBeginCaptureToGraph")
        self.streams.append(stream)
        try:
            with stream, cupy.cuda.using_allocator(_refuse_allocation):
                fn()
        except RuntimeError as exc:  # CuPy refuses to wait for a capturing stream
            raise MinigrError(f"its body waited for the GPU ({exc}); a device loop's body may only queue work: "
                              "read what it needs before the loop") from None
        finally:
            self.streams.pop()
            _check(rt.cudaStreamEndCapture(stream.ptr), "cudaStreamEndCapture")

    def branch(self, condition, if_true, if_false):
        """An IF (or IF/ELSE) node in the innermost body, its handle set by condition()."""
        rt = self.rt
        handle = _check(rt.cudaGraphConditionalHandleCreate(self.graph, 0, 0), "cudaGraphConditionalHandleCreate")
        _set_conditional(self.device, condition, handle)
        stream = self.streams[-1].ptr
        info = _check(rt.cudaStreamGetCaptureInfo(stream), "cudaStreamGetCaptureInfo")
        capturing_graph, dependencies = info[2], list(info[3] or [])
        size = 1 if if_false is None else 2
        node, bodies = _add_conditional(rt, capturing_graph, dependencies, handle,
                                        rt.cudaGraphConditionalNodeType.cudaGraphCondTypeIf, size)
        flags = int(rt.cudaStreamUpdateCaptureDependenciesFlags.cudaStreamSetCaptureDependencies)
        _check(rt.cudaStreamUpdateCaptureDependencies(stream, [node], None, 1, flags),
               "cudaStreamUpdateCaptureDependencies")
        self.capture(bodies[0], if_true)
        if if_false is not None:
            self.capture(bodies[1], if_false)

