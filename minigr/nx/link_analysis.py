"""networkx.pagerank by minigr.pagerank."""
import collections.abc
import numbers

import networkx as nx
import numpy

import minigr

from .convert import real
from .registry import networkx_function


def _node_vector(G, values, name):
    """A dict of per-node values (0 where missing) as an array over the vertices."""
    vector = numpy.array([real(values.get(node, 0)) for node in G.nodes])
    if not (numpy.isfinite(vector).all() and (vector >= 0).all() and vector.sum() > 0):
        raise NotImplementedError(f"{name} has negative or non-numeric values, or sums to 0")
    return vector


def _pagerank_checks(a):
    return [
        (not (isinstance(a["alpha"], numbers.Real) and 0 < a["alpha"] < 1), "alpha is not in (0, 1)"),
        (not (isinstance(a["tol"], numbers.Real) and a["tol"] > 0), "tol is not positive"),
        (not (isinstance(a["max_iter"], numbers.Integral) and a["max_iter"] >= 1), "max_iter is below 1"),
        (any(a[key] is not None and not isinstance(a[key], collections.abc.Mapping)
             for key in ("personalization", "nstart", "dangling")),
         "personalization, nstart and dangling must be dicts"),
    ]


@networkx_function(checks=_pagerank_checks)
def pagerank(G, alpha=0.85, personalization=None, max_iter=100, tol=1.0e-6, nstart=None, weight="weight",
             dangling=None):
    """Runs minigr.pagerank (weighted by `weight` unless it is None). Declines alpha outside
    (0, 1), tol <= 0, max_iter < 1, weights that are negative, non-numeric or not held by
    float32, and personalization, nstart or dangling values that are negative or sum to 0."""
    if len(G) == 0:
        return {}
    vectors = {key: _node_vector(G, values, key) for key, values in
               (("personalization", personalization), ("nstart", nstart), ("dangling", dangling))
               if values is not None}
    try:
        result = minigr.pagerank(G.minigr_graph(weight), alpha=alpha, tol=tol, max_iter=max_iter,
                                 weighted=weight is not None, **vectors)
    except minigr.MinigrError as exc:
        if "did not converge" in str(exc):
            raise nx.PowerIterationFailedConvergence(max_iter) from exc
        raise
    return dict(zip(G.nodes, result.to_host().rank.tolist()))
