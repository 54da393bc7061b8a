"""Generator specs: a graph named by its generator and parameters instead of a file, such as
kron:scale=21,edge_factor=16,seed=1 (the generators are in minigr.generators)."""
import os
import re

from .. import generators
from ..transforms.errors import MinigrError

GENERATORS = {
    "kron": (generators.kronecker, ("scale", "edge_factor", "seed")),
    "rgg": (generators.rgg, ("scale", "seed")),
    "grid": (generators.grid, ("scale", "seed", "permute")),
}
DEFAULTS = {"edge_factor": 16, "seed": 1}
FORMS = "kron:scale=S,edge_factor=E,seed=K, rgg:scale=S,seed=K, grid:scale=S,seed=K[,permute=0]"


def is_spec(source):
    """Whether `source` is meant as a spec: a word and a colon, and no such file."""
    return not os.path.exists(source) and re.match(r"[A-Za-z]\w*:", source) is not None


def parse(spec):
    """(generator function, keyword parameters) for a spec; MinigrError naming what is wrong."""
    name, _, arguments = spec.partition(":")
    if name not in GENERATORS:
        raise MinigrError(f"{spec!r} is neither a file nor a generator spec; generators: "
                          f"{', '.join(GENERATORS)}")
    generate, keys = GENERATORS[name]
    params = {key: value for key, value in DEFAULTS.items() if key in keys}
    given = set()
    for item in filter(None, arguments.split(",")):
        key, _, value = item.partition("=")
        if key not in keys:
            raise MinigrError(f"unknown key {key!r} in {spec!r}; {name} accepts "
                              f"{', '.join(keys)}")
        if key in given:
            raise MinigrError(f"{key} is given twice in {spec!r}; give it once")
        given.add(key)
        if not re.fullmatch(r"\d+", value):
            raise MinigrError(f"{key} in {spec!r} must be a non-negative integer, got {value!r}")
        if key == "permute" and value not in ("0", "1"):  # a flag: 2 read as 1, a graph asked for by mistake
            raise MinigrError(f"permute in {spec!r} must be 0 (ids row by row) or 1 (permuted), got {value!r}")
        params[key] = int(value)
    if "scale" not in params:
        raise MinigrError(f"{spec!r} needs scale=S (2^S vertices)")
    return generate, params
