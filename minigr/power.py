"""Power iterations on the device loop, as PageRank and the centralities
(eigenvector, Katz, HITS) run them: vectors of one value per vertex (float64,
or float32 where asked), pulled through neighbours with neighbor_reduce and
updated by a transform that sums their change (sums=), until the L1 change of
an iteration falls below a tolerance (networkx's stopping rules); networkx's
PowerIterationFailedConvergence is a MinigrError naming the iterations."""
import math

import numpy

from .catalog import ITERATIONS
from .enactor import Problem, Timer
from .transforms import Functor
from .transforms.errors import MinigrError

# After each iteration: its sums kept in carried (carried[0]: its L1 change), the sums made 0
# for the next (the transforms add into them); NaN (a diverging iteration) never converges.
NOT_CONVERGED = """bool operator()() const {
    for (int k = 0; k < count; ++k) {
        carried[k] = sums[k];
        sums[k] = 0;
    }
    return !(carried[0] < settings[0]);
}"""


def check_iteration(tol, max_iter, dtype=numpy.float64):
    """A MinigrError unless tol is positive, max_iter a count the loop can run and dtype
    (the vectors') float64 or float32; else dtype as a numpy.dtype."""
    if not tol > 0 or not ITERATIONS[0](max_iter):
        raise MinigrError(f"tol must be positive and max_iter {ITERATIONS[1]}, "
                          f"got tol={tol!r}, max_iter={max_iter!r}")
    try:
        checked = numpy.dtype(dtype)
    except TypeError:
        checked = None
    if checked not in (numpy.float64, numpy.float32):
        raise MinigrError(f"dtype must be float64 or float32, got {dtype!r}")
    return checked


class PowerIteration(Problem):
    """A power iteration's buffers and loop on one graph: each of `vectors`
    an attribute (one value per vertex, of `dtype`); `sums`, which the body's
    transforms add to each iteration (sums[0]: the L1 change; made 0 after each
    iteration, their values kept in `carried` for the next); `settings`, set by
    the app (settings[0]: the tolerance on the change). Subclasses make their
    functors (see `functor`), then call start_loop(body)."""

    advice = "raise max_iter or tol"  # what to do when it does not converge

    def __init__(self, graph, vectors, sums, settings, dtype=numpy.float64):
        xp, n = graph.xp, graph.num_vertices
        self.graph = graph
        self.vectors = {name: xp.zeros(n, dtype) for name in vectors}
        for name, array in self.vectors.items():
            setattr(self, name, array)
        self.sums, self.settings, self.carried = xp.zeros(sums), xp.zeros(settings), xp.zeros(sums)

    def functor(self, source, what, **captures):
        """A Functor of `source` that sees every vector, sums and settings by name."""
        return Functor(source, filename=f"<{self.name} {what}>", sums=self.sums, settings=self.settings,
                       **self.vectors, **captures)

    def start_loop(self, body):
        converged = self.functor(NOT_CONVERGED, "converged", carried=self.carried, count=numpy.int32(len(self.sums)))
        super().start_loop(self.graph, body, converged)

    def converge(self, loop, max_iter, tolerance, reset=None, **starts):
        """Runs the loop until the L1 change is below tolerance, from its start:
        each vector named in starts set to its value (a number or an array),
        settings[0] to tolerance and the sums to 0; or, given reset, reset()
        (which sets those itself, in one launch: see minigr.enactor.Start),
        timed with the run. Returns (iterations, ms); a MinigrError when
        max_iter iterations do not get there. loop: "device" or "host"."""
        with Timer(self.graph.device) as timer:
            if reset is not None:
                reset()
            else:
                for name, value in starts.items():
                    self.vectors[name][...] = value
                self.settings[0] = tolerance
                self.sums.fill(0)
            iterations, exhausted = self.run_loop(loop, max_iter)
        if exhausted:
            change = float(self.carried[0])
            why = (f"L1 change {change:.3g}, needed < {tolerance:.3g}" if math.isfinite(change) else
                   "its values overflowed")
            raise MinigrError(f"{self.name}: the power iteration did not converge in {max_iter} iterations "
                              f"({why}); {self.advice}")
        return iterations, timer.ms
