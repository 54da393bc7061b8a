"""The iteration number that operators pass to user functors."""
import numpy

from ..transforms.errors import MinigrError


def iteration_capture(iteration):
    """An int as an int32 value, or a loop's counter (a one-element int32 array
    on the device) as is: kernels read either with minigr::value_of."""
    if isinstance(iteration, (int, numpy.integer)):
        return numpy.int32(iteration)
    if getattr(iteration, "dtype", None) != numpy.int32 or iteration.shape != (1,):
        raise MinigrError(f"iteration must be an int or a loop's iteration counter, got {iteration!r}")
    return iteration
