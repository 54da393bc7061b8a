"""What the single-pass kernels of scan.cuh (scan and compact) need from the
host: zeroed look-back status words for each launch, and a cell of pinned host
memory where the kernel leaves its count."""
import threading
import weakref

import numpy

from .errors import MinigrError

UNWRITTEN = numpy.iinfo(numpy.int64).min  # a host cell before its kernel writes it (no count is this)
CUDA_ERROR_NOT_READY = 600  # what cudaStreamQuery returns while work is left
MIN_STATUS_WORDS = 1 << 16  # 512 KB: small launches share a memset by the thousand

_this_thread = threading.local()  # .cell: the thread's host cell


def host_cell(device):
    """(kernel argument, host view) of one int64 that a kernel leaves for the host,
    UNWRITTEN until then: on the GPU, pinned host memory that the kernel writes
    directly, so the host sees it without a copy and before the kernel ends. A
    thread reuses its one cell (portable pinned memory, so on any device): each
    call waits in await_cell until its kernel has written it, or has ended."""
    if device == "cpu":
        cell = numpy.full(1, UNWRITTEN, dtype=numpy.int64)
        return cell, cell
    found = getattr(_this_thread, "cell", None)
    if found is None:
        import cupy
        memory = cupy.cuda.alloc_pinned_memory(8)
        found = _this_thread.cell = numpy.uint64(memory.ptr), numpy.frombuffer(memory, numpy.int64, 1)
    found[1][0] = UNWRITTEN
    return found


def await_cell(cell, stream):
    """Waits until a kernel on `stream` has written the host cell. The kernel
    writes it as soon as the count is known, while its last tiles still store
    their items: the caller returns then, and later work on the stream is
    ordered after those stores, as after any CuPy call."""
    from cupy.cuda import runtime
    try:
        while cell[0] == UNWRITTEN and runtime.streamQuery(stream.ptr) == CUDA_ERROR_NOT_READY:
            pass
    except BaseException:  # Ctrl-C: the next call resets the cell, so this kernel must be done first
        stream.synchronize()
        raise
    if cell[0] == UNWRITTEN:
        stream.synchronize()  # the stream ended or failed without the count: this raises its error
        if cell[0] == UNWRITTEN:
            raise MinigrError("internal error: a scan or compact kernel ended without writing its count")


class StatusWords:
    """Zeroed status words for the look-back kernels of one stream. Each launch
    takes the next run of them, so it needs no allocation or memset of its own;
    once they run out, the used ones are zeroed in one memset, which the stream
    orders after every launch that used them. There are at least four times as
    many as the largest run taken, so a memset comes at most every fourth launch.
    Hold `lock` from take() until the launch is queued: runs must be taken in the
    order the stream runs the launches."""

    def __init__(self):
        self.lock = threading.Lock()
        self.words, self.used = None, 0

    def take(self, count):
        """The device address of `count` zeroed words."""
        import cupy
        if self.words is None or 4 * count > self.words.size:
            self.words, self.used = cupy.zeros(max(4 * count, MIN_STATUS_WORDS), dtype=numpy.uint64), 0
        elif self.used + count > self.words.size:
            self.words.data.memset_async(0, self.used * self.words.itemsize)
            self.used = 0
        address = self.words.data.ptr + self.used * self.words.itemsize
        self.used += count
        return numpy.uint64(address)


_status_words = weakref.WeakKeyDictionary()  # {CuPy stream: {device id: StatusWords}}, gone with the stream
_status_words_lock = threading.Lock()


def status_words(stream, device_id):
    """The StatusWords of a CuPy stream on a device (the null stream is one
    object for every device)."""
    found = _status_words.get(stream, {}).get(device_id)
    if found is None:
        with _status_words_lock:
            found = _status_words.setdefault(stream, {}).setdefault(device_id, StatusWords())
    return found
