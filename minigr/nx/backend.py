"""What networkx loads for backend "minigr" (entry point networkx.backends): the functions every
module of minigr.nx registers, the conversions, can_run and should_run."""
import types

from . import (centrality, cluster, coloring, components, core, distance_measures, link_analysis,  # noqa: F401
               link_prediction, mis, shortest_paths, traversal, tree)  # (each registers its functions)
from .convert import convert_from_nx, convert_to_nx
from .registry import FUNCTIONS, can_run, should_run

backend = types.SimpleNamespace(convert_from_nx=convert_from_nx, convert_to_nx=convert_to_nx, can_run=can_run,
                                should_run=should_run,
                                **{name: function.implementation for name, function in FUNCTIONS.items()})
