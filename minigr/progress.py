"""Progress lines for slow work: stage names and the total time, on stderr."""
import sys
import time


class Progress:
    """Context manager printing "label: stage (T s)" lines and "label: done in T s" at the
    end, when enabled."""

    def __init__(self, label, enabled):
        self.label = label
        self.enabled = enabled

    def __enter__(self):
        self.start = time.perf_counter()
        return self

    def stage(self, text):
        self._write(f"{text} ({time.perf_counter() - self.start:.1f} s)")

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            self._write(f"done in {time.perf_counter() - self.start:.2f} s")

    def _write(self, text):
        if self.enabled:
            print(f"{self.label}: {text}", file=sys.stderr, flush=True)
