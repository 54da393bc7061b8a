"""What advance's strategies share: the glue header, the output variant, the
captures, and the user's functor: its cond and apply, written out here once."""
import re
from pathlib import Path

from ...frontier import HEADER as FRONTIER_HEADER
from ...transforms import Functor
from ...transforms.errors import MinigrError
from ..iteration import iteration_capture

HEADERS = (FRONTIER_HEADER, Path(__file__).parent.parent / "kernels" / "advance.h")
# The parameters with which advance.h calls an advance functor's cond and apply.
PARAMETERS = "int src, int dst, long long edge, long long rank, long long out_idx, int iteration"
NAMES = {"src", "dst", "edge", "rank", "out_idx", "iteration"}
DEFINES = {name: re.compile(rf"\b{name}\s*\(") for name in ("cond", "apply")}


class AdvanceFunctor(Functor):
    """An advance (or advance_pull) functor stated by what differs: the bodies of cond and apply.

    ``bool cond(...)`` says whether edge src -> dst is taken, and ``void apply(...)`` runs
    where it was, both with the parameters ``int src, int dst, long long edge, long long
    rank, long long out_idx, int iteration``: edge is the edge's index in the CSR (in
    graph.reverse() when pulling), rank its place among src's edges. The bodies see the
    captures by name; this writes the signatures, once. Compile errors name the body and
    the line in it (``<bfs visit> cond:2`` from g++; NVRTC writes ``"<bfs visit> cond"(2)``).

    Parameters
    ----------
    cond : str, default "return true;"
        The body of cond.
    apply : str, default ""
        The body of apply.
    filename : str, default "<advance functor>"
        The name compile errors give the bodies.
    headers : sequence of path, default ()
        C++ headers the bodies use (see `minigr.transforms.Functor`).
    **captures
        Arrays, scalars and functors the bodies use, by name; a capture named as one of
        the parameters, which it would hide, is refused (a MinigrError).

    Examples
    --------
    BFS's visit, one level from vertex 0, pushed over every edge:

    >>> import minigr
    >>> from minigr.operators import AdvanceFunctor, advance
    >>> graph = minigr.Graph.from_edges([0, 0, 1, 2], [1, 2, 3, 3])
    >>> depth = graph.xp.asarray([0, -1, -1, -1], dtype="int32")
    >>> parent = graph.xp.full(4, -1, dtype="int32")
    >>> visit = AdvanceFunctor(
    ...     cond="return depth[src] == iteration && atomicCAS(&depth[dst], -1, iteration + 1) == -1;",
    ...     apply="parent[dst] = src;", depth=depth, parent=parent)
    >>> advance(graph, None, visit, iteration=0)
    >>> depth.tolist(), parent.tolist()
    ([0, 1, 1, -1], [-1, 0, 0, -1])
    """

    def __init__(self, cond="return true;", apply="", filename="<advance functor>", headers=(), **captures):
        hidden = sorted(NAMES & set(captures))
        if hidden:
            raise MinigrError(f"functor {filename}: capture {hidden[0]!r} has the name of a parameter of cond and "
                              f"apply ({PARAMETERS}), which would hide it; rename it")
        super().__init__("".join(f'{kind} {name}({PARAMETERS}) const {{\n#line 1 "{filename} {name}"\n{body}\n}}\n'
                                 for kind, name, body in (("bool", "cond", cond), ("void", "apply", apply))),
                         filename=filename, headers=headers, **captures)

    @classmethod
    def from_file(cls, path, **captures):
        """Refused: a .cu file defines cond and apply itself, load it with Functor.from_file.

        Inherited as it was, it would make the file's whole text cond's body, and the
        compiler would report nested functions; advance takes the plain Functor as it is.

        Parameters
        ----------
        path : str
            The file.
        **captures
            What its functor would capture.

        Raises
        ------
        MinigrError
            Always, naming Functor.from_file.

        Examples
        --------
        >>> from minigr.operators import AdvanceFunctor
        >>> AdvanceFunctor.from_file("visit.cu")
        Traceback (most recent call last):
        ...
        minigr.transforms.errors.MinigrError: AdvanceFunctor.from_file('visit.cu'): an advance functor in a file ...
        """
        raise MinigrError(f"AdvanceFunctor.from_file({path!r}): an advance functor in a file defines bool cond("
                          f"{PARAMETERS}) const and void apply(...) itself; load it with Functor.from_file, "
                          "which advance takes as it is")


def check_functor(op):
    """A MinigrError, before any compiler sees it, when `op` lacks cond or apply."""
    missing = [name for name, defined in DEFINES.items() if not defined.search(op.source)]
    if missing:
        raise MinigrError(f"advance: functor {op.filename} defines no {' and no '.join(missing)}; write it as "
                          f"AdvanceFunctor(cond=..., apply=...), or define bool cond({PARAMETERS}) const and void "
                          f"apply(...) with the same parameters")


def output_kind(out, unique, staged=False):
    """The template argument of advance.h that places accepted destinations (staged: by
    a walk that opens and closes each block's pass, see frontier.h)."""
    if out is None:
        return "minigr::NoOutput"
    return f"minigr::Append<{str(unique).lower()}, {str(staged).lower()}>"


def captures(graph, op, out, iteration):
    """What every advance functor captures (see advance.h)."""
    check_functor(op)
    found = dict(op=op, row_offsets=graph.row_offsets, col_indices=graph.col_indices,
                 iteration=iteration_capture(iteration))
    if out is not None:
        found["out"] = out.view
    return found
