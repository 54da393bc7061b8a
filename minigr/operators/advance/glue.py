"""What advance's strategies share: the glue header, the output variant, the captures."""
from pathlib import Path

from ...frontier import HEADER as FRONTIER_HEADER
from ..iteration import iteration_capture

HEADERS = (FRONTIER_HEADER, Path(__file__).parent.parent / "kernels" / "advance.h")


def output_kind(out, unique):
    """The template argument of advance.h that places accepted destinations."""
    if out is None:
        return "minigr::NoOutput"
    return "minigr::AppendUnique" if unique else "minigr::Append"


def captures(graph, op, out, iteration):
    """What every advance functor captures (see advance.h)."""
    found = dict(op=op, row_offsets=graph.row_offsets, col_indices=graph.col_indices,
                 iteration=iteration_capture(iteration))
    if out is not None:
        found["out"] = out.view
    return found
