"""minigr as a networkx backend (networkx >= 3.2 dispatch): nx.pagerank(G, backend="minigr"),
or NETWORKX_BACKEND_PRIORITY=minigr to send unchanged networkx code to minigr.

Each function gives networkx's answer: the same values, the same node order in the dicts and
lists it returns, the same exceptions. Where minigr cannot, it declines and networkx runs the
call itself: can_run declines on the arguments (a weight function, an option minigr lacks),
and a function raises NotImplementedError once the data shows it cannot match (weights that
float32 sums would round). One module per area of networkx registers its functions
(minigr.nx.registry); minigr.nx.backend.backend is what networkx loads (entry point
networkx.backends) and minigr.nx.registry.info what it shows (entry point
networkx.backend_info). This package imports nothing itself: networkx reads the info while it
starts up.
"""
