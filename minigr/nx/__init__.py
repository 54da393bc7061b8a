"""minigr as a networkx backend (networkx >= 3.2 dispatch): nx.pagerank(G, backend="minigr"),
or NETWORKX_BACKEND_PRIORITY=minigr to send unchanged networkx code to minigr.

Each function gives networkx's answer: the same values, the same node order in the dicts and
lists it returns, the same exceptions. Where minigr cannot, it declines and networkx runs the
call itself: can_run declines on the arguments (a weight function, an option minigr lacks),
and a function raises NotImplementedError once the data shows it cannot match (weights that
float32 sums would round). One module per area of networkx registers its functions
(minigr.nx.registry); `backend` is what networkx loads (entry point networkx.backends) and
registry.info what it shows (entry point networkx.backend_info).
"""
import types

from . import cluster, coloring, components, link_analysis, shortest_paths, traversal  # noqa: F401  (register)
from .convert import convert_from_nx, convert_to_nx
from .registry import FUNCTIONS, can_run, should_run

backend = types.SimpleNamespace(convert_from_nx=convert_from_nx, convert_to_nx=convert_to_nx, can_run=can_run,
                                should_run=should_run,
                                **{name: function.implementation for name, function in FUNCTIONS.items()})
