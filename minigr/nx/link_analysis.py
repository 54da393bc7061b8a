"""networkx's link analysis (pagerank, hits) by minigr.pagerank and minigr.hits, and what the
power iterations share (centrality.py's eigenvector and Katz too)."""
import collections.abc
import contextlib
import numbers

import networkx as nx
import numpy

import minigr

from .convert import real
from .registry import networkx_function


def node_vector(G, values, name):
    """A dict of per-node values (0 where missing) as an array over the vertices."""
    vector = numpy.array([real(values.get(node, 0)) for node in G.nodes])
    if not (numpy.isfinite(vector).all() and (vector >= 0).all() and vector.sum() > 0):
        raise NotImplementedError(f"{name} has negative or non-numeric values, or sums to 0")
    return vector


def power_checks(a):
    """(declined, why) for what the power iterations share: tol, max_iter, and dicts of node values."""
    return [
        (not (isinstance(a["tol"], numbers.Real) and a["tol"] > 0), "tol is not positive"),
        (not (isinstance(a["max_iter"], numbers.Integral) and a["max_iter"] >= 1), "max_iter is below 1"),
        (any(a.get(key) is not None and not isinstance(a[key], collections.abc.Mapping)
             for key in ("personalization", "nstart", "dangling")),
         "personalization, nstart and dangling must be dicts"),
    ]


@contextlib.contextmanager
def converged(max_iter, networkx_iterates=True):
    """minigr's "did not converge" as networkx's PowerIterationFailedConvergence where networkx
    iterates as minigr does (networkx_iterates), else a decline: networkx may converge otherwise."""
    try:
        yield
    except minigr.MinigrError as exc:
        if "did not converge" not in str(exc):
            raise
        if networkx_iterates:
            raise nx.PowerIterationFailedConvergence(max_iter) from exc
        raise NotImplementedError(f"minigr's power iteration did not converge in {max_iter} iterations, where "
                                  "networkx's ARPACK may") from exc


def _pagerank_checks(a):
    return [(not (isinstance(a["alpha"], numbers.Real) and 0 < a["alpha"] < 1), "alpha is not in (0, 1)"),
            *power_checks(a)]


@networkx_function(checks=_pagerank_checks)
def pagerank(G, alpha=0.85, personalization=None, max_iter=100, tol=1.0e-6, nstart=None, weight="weight",
             dangling=None):
    """Runs minigr.pagerank (weighted by `weight` unless it is None). Declines alpha outside
    (0, 1), tol <= 0, max_iter < 1, weights that are negative, non-numeric or not held by
    float32, and personalization, nstart or dangling values that are negative or sum to 0."""
    if len(G) == 0:
        return {}
    vectors = {key: node_vector(G, values, key) for key, values in
               (("personalization", personalization), ("nstart", nstart), ("dangling", dangling))
               if values is not None}
    with converged(max_iter):
        result = minigr.pagerank(G.minigr_graph(weight), alpha=alpha, tol=tol, max_iter=max_iter,
                                 weighted=weight is not None, **vectors)
    return dict(zip(G.nodes, result.to_host().rank.tolist()))


@networkx_function(checks=lambda a: [*power_checks(a), (
    not a["normalized"], "networkx's unnormalized scores are ARPACK's singular vector, of any sign")])
def hits(G, max_iter=100, tol=1.0e-8, nstart=None, normalized=True):
    """Runs minigr.hits: (hubs, authorities), weighted by the edges' attribute "weight" (1
    where missing), as networkx weighs them. Declines weights float32 does not hold, nstart
    values that are negative or sum to 0, normalized=False (networkx's scores are then ARPACK's
    singular vector, of 2-norm 1 and either sign), and graphs where minigr's power iteration
    does not converge in max_iter iterations (networkx's ARPACK may)."""
    if len(G) == 0:
        return {}, {}
    if len(G.src) == 0:
        raise ZeroDivisionError("the graph has no edges")  # networkx divides by its 0 largest score too
    vectors = {} if nstart is None else {"nstart": node_vector(G, nstart, "nstart")}
    graph = G.minigr_graph("weight")
    if not bool((graph.weights != 0).any()):
        raise NotImplementedError("every edge weighs 0; networkx's ARPACK fails on that its own way")
    with converged(max_iter, networkx_iterates=False):
        found = minigr.hits(graph, max_iter=max_iter, tol=tol, weighted=True,
                            **vectors).to_host()
    return dict(zip(G.nodes, found.hub.tolist())), dict(zip(G.nodes, found.authority.tolist()))
