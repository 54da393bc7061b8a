"""What every primitive shares: its result type and the timer of its run."""
import dataclasses
import time


@dataclasses.dataclass
class Result:
    """A primitive's per-vertex arrays (on the graph's device) and run statistics."""
    values: dict            # name -> array, e.g. {"depth": ..., "parent": ...}
    iterations: int
    ms: float               # elapsed time of the run: CUDA events on the GPU, a host clock on the CPU
    edges_visited: int      # edges the operators touched (for MTEPS)
    extra: dict = dataclasses.field(default_factory=dict)  # e.g. {"num_colors": 7}


class Timer:
    """Elapsed milliseconds of a `with` block on a device."""

    def __init__(self, device):
        self.device = device
        self.ms = None

    def __enter__(self):
        if self.device == "gpu":
            import cupy
            self._start, self._stop = cupy.cuda.Event(), cupy.cuda.Event()
            self._start.record()
        else:
            self._start = time.perf_counter()
        return self

    def __exit__(self, *exc):
        if self.device == "gpu":
            import cupy
            self._stop.record()
            self._stop.synchronize()
            self.ms = cupy.cuda.get_elapsed_time(self._start, self._stop)
        else:
            self.ms = (time.perf_counter() - self._start) * 1e3
