"""What networkx shows about minigr's backend (entry point networkx.backend_info). It imports
nothing: networkx calls info() while networkx itself is being imported."""

# The networkx functions minigr runs (minigr.nxbackend defines each), and when it declines.
FUNCTIONS = {
    "pagerank": "Runs minigr.pagerank (weighted by `weight` unless it is None). Declines alpha outside (0, 1), "
                "tol <= 0, max_iter < 1, negative or non-numeric weights, and personalization, nstart or dangling "
                "values that are negative or sum to 0.",
    "bfs_edges": "Runs minigr.bfs, then orders the tree edges exactly as networkx yields them. Declines "
                 "sort_neighbors and reverse=True on directed graphs.",
    "bfs_layers": "Runs minigr.bfs from one source; declines several sources.",
    "single_source_shortest_path_length": "Runs minigr.bfs; same values and order as networkx.",
    "single_source_dijkstra_path_length": "Runs minigr.sssp. Declines weight functions and weights that are "
                                          "not positive integers (float32 sums are exact for those, up to 2^24).",
    "single_source_dijkstra": "Runs minigr.sssp, then picks the path networkx picks where several are "
                              "shortest. Declines as single_source_dijkstra_path_length does.",
    "greedy_color": "Runs minigr.color, whose coloring is networkx's for strategy='largest_first'. Declines other "
                    "strategies, interchange=True and directed graphs.",
}


def info():
    """The backend's description, in the form networkx asks of an entry point networkx.backend_info."""
    return {
        "backend_name": "minigr",
        "project": "minigr",
        "package": "minigr",
        "url": None,
        "short_summary": "Transform-based GPU graph analytics (Mini-Gunrock style); a C++ CPU backend without a GPU.",
        "functions": {name: {"additional_docs": docs} for name, docs in FUNCTIONS.items()},
        "default_config": {},
    }
