"""Communicators: how the parts of a partitioned graph (minigr.partition) talk,
one part per rank. Each offers the same three calls on arrays of its device,
made by every rank in the same order:

- allreduce(array, op): array becomes the elementwise "sum" or "max" over the ranks;
- exchange(sends, receives): sends[q] goes to rank q, receives[q] is filled
  from rank q (both lists have an entry per rank; one's own is skipped);
- barrier().

NcclCommunicator (one process per GPU) queues them on the current CUDA stream,
so they can sit inside a loop captured on the device. ThreadGroup gives the
CPU backend's stand-in: ranks as threads of one process, done at once."""
import functools
import threading

import numpy

from .transforms import Functor, transform
from .transforms.backend import array_module
from .transforms.errors import MinigrError
from .transforms.launch import recording_launches

OPS = ("sum", "max")


def _not_in_a_persistent_loop():
    """A persistent loop records its body's kernels only: an exchange would be lost from it."""
    if recording_launches():
        raise MinigrError("a persistent loop's body cannot exchange between GPUs; use loop='device' on parts")


FAILED = "another rank of this partitioned run failed"
LEFT = ("internal error: a rank of this partitioned run ended while another still waited for it "
        "(the ranks disagree on their steps)")


class ThreadGroup:
    """`size` ranks that are threads of this process (CPU arrays): rank r uses
    communicator(r). A rank that fails (abort) or ends (leave) breaks the group:
    a rank waiting for it, or later, stops with an error instead of waiting forever."""

    def __init__(self, size):
        self.size = size
        self.slots = [None] * size
        self._changed = threading.Condition()
        self._arrived = self._generation = 0  # ranks at the barrier now, barriers passed
        self._broken = None  # why the group broke, or None

    def communicator(self, rank):
        return ThreadCommunicator(self, rank)

    def abort(self):
        self._break(FAILED)

    def leave(self):
        """A rank's run ended: no barrier can gather every rank again."""
        self._break(LEFT)

    def _break(self, why):
        with self._changed:
            self._broken = self._broken or why
            self._changed.notify_all()

    def wait(self):
        """Returns once every rank has called it (a barrier), or raises where the group broke first."""
        with self._changed:
            generation = self._generation
            if self._broken is None:
                self._arrived += 1
                if self._arrived == self.size:
                    self._arrived, self._generation = 0, generation + 1
                    self._changed.notify_all()
                    return
                self._changed.wait_for(lambda: self._generation != generation or self._broken is not None)
            if self._generation == generation:
                raise MinigrError(self._broken)


class ThreadCommunicator:
    """One rank of a ThreadGroup."""

    device = "cpu"

    def __init__(self, group, rank):
        self.group, self.rank, self.size = group, rank, group.size

    def _share(self, value, use):
        """use(every rank's `value`, by rank), once all have given theirs; no
        rank goes on before all have used them (as NCCL's calls end on both
        sides), so none overwrites an array another still reads."""
        _not_in_a_persistent_loop()
        group = self.group
        group.slots[self.rank] = value
        group.wait()
        use(list(group.slots))
        group.wait()

    def allreduce(self, array, op="sum"):
        _check_op(op)
        combine = numpy.add if op == "sum" else numpy.maximum
        found = []
        self._share(array, lambda values: found.append(functools.reduce(combine, values)))
        array[...] = found[0]

    def exchange(self, sends, receives):
        def receive(shared):
            for q, into in enumerate(receives):
                if q != self.rank:
                    into[...] = shared[q][self.rank]
        self._share(sends, receive)

    def barrier(self):
        self._share(None, lambda values: None)


class NcclCommunicator:
    """One rank of an NCCL communicator on the current GPU (cupy.cuda.nccl),
    made from the unique id rank 0 got from new_nccl_id(). Calls are queued on
    the current stream; NVLink multicast stays off (NCCL_NVLS_ENABLE=0)."""

    device = "gpu"

    def __init__(self, unique_id, size, rank):
        from cupy.cuda import nccl
        self.nccl, self.rank, self.size = nccl, rank, size
        self.comm = nccl.NcclCommunicator(size, unique_id, rank)

    def _stream(self):
        import cupy
        _not_in_a_persistent_loop()
        return cupy.cuda.get_current_stream().ptr

    def _type(self, array):
        types = {numpy.dtype(numpy.float64): self.nccl.NCCL_FLOAT64, numpy.dtype(numpy.float32): self.nccl.NCCL_FLOAT32,
                 numpy.dtype(numpy.int64): self.nccl.NCCL_INT64, numpy.dtype(numpy.int32): self.nccl.NCCL_INT32,
                 numpy.dtype(numpy.uint32): self.nccl.NCCL_UINT32, numpy.dtype(numpy.uint8): self.nccl.NCCL_UINT8,
                 numpy.dtype(numpy.uint64): self.nccl.NCCL_UINT64}
        if array.dtype not in types or not array.flags.c_contiguous:
            raise MinigrError(f"NCCL takes contiguous arrays of {', '.join(map(str, types))}, got {array.dtype}")
        return types[array.dtype]

    def allreduce(self, array, op="sum"):
        _check_op(op)
        reduction = self.nccl.NCCL_SUM if op == "sum" else self.nccl.NCCL_MAX
        self.comm.allReduce(array.data.ptr, array.data.ptr, array.size, self._type(array), reduction, self._stream())

    def exchange(self, sends, receives):
        stream = self._stream()
        self.nccl.groupStart()
        try:
            for q in range(self.size):
                if q != self.rank and sends[q].size:
                    self.comm.send(sends[q].data.ptr, sends[q].size, self._type(sends[q]), q, stream)
                if q != self.rank and receives[q].size:
                    self.comm.recv(receives[q].data.ptr, receives[q].size, self._type(receives[q]), q, stream)
        finally:
            self.nccl.groupEnd()

    def barrier(self):
        import cupy
        one = cupy.zeros(1, numpy.int32)
        self.allreduce(one)
        cupy.cuda.get_current_stream().synchronize()


# Adds the time since the last mark to clock[phase]: [last mark, local work, communication] (ns).
_MARK = "void operator()(long long) const { const long long now = minigr::now_ns(); clock[phase] += now - clock[0]; clock[0] = now; }"


class TimedCommunicator:
    """Another communicator whose calls are timed on the device: the time in
    them (transfers, and waiting for slower ranks) and the time between them
    (this rank's own work), marked by one-thread kernels, so that it works in
    a loop on the device too. For benchmarks: the marks cost a little."""

    def __init__(self, inner):
        self.inner, self.rank, self.size, self.device = inner, inner.rank, inner.size, inner.device
        self.clock = array_module(inner.device).zeros(3, dtype=numpy.int64)
        self._local, self._communication = (Functor(_MARK, filename="<timed communicator>", clock=self.clock,
                                                    phase=numpy.int64(phase)) for phase in (1, 2))

    def _timed(self, call, *args):
        transform(1, self._local)
        call(*args)
        transform(1, self._communication)

    def allreduce(self, array, op="sum"):
        self._timed(self.inner.allreduce, array, op)

    def exchange(self, sends, receives):
        self._timed(self.inner.exchange, sends, receives)

    def barrier(self):
        self.inner.barrier()

    def restart(self):
        """Starts counting from now (queued)."""
        transform(1, self._local)
        self.clock[1:] = 0

    def wait_ms(self):
        """(own work, communication) in ms since restart(), up to the last call: waits."""
        return tuple(int(x) / 1e6 for x in self.clock[1:].tolist())


def new_nccl_id():
    """A fresh NCCL unique id (bytes-like, made by rank 0 and given to every rank)."""
    from cupy.cuda import nccl
    return nccl.get_unique_id()


def _check_op(op):
    if op not in OPS:
        raise MinigrError(f"op must be one of {OPS}, got {op!r}")
