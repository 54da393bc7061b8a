"""Modularity on the device, for community detection that measures a labelling
as it changes it (Louvain's sweeps): networkx's modularity (as
minigr.validate.modularity computes it on the host), its parts kept in device
arrays that a loop's functors read without a host round trip."""
import numpy

from .operators import neighbor_reduce, reduce_vertices
from .transforms import Functor

# An edge's weight in its ends' degrees: a self-loop counts twice, as networkx counts it.
WEIGHT = "double operator()(int v, int u, long long e) const { return (u == v ? 2.0 : 1.0) * weights[e]; }"
INSIDE = "double operator()(int v, int u, long long e) const { return c[u] == c[v] ? weight(v, u, e) : 0.0; }"
SQUARED = "double operator()(int v) const { return total[v] * total[v]; }"
ADD = "void operator()(long long v) const { atomicAdd(&total[c[v]], degree[v]); }"


class Modularity:
    """networkx's modularity of a labelling of an undirected graph's vertices, measured on
    the device while the labels change: sum over communities of (their inside weight / 2m
    - resolution (their total degree / 2m)^2), m the graph's total edge weight.

    Its parts are device arrays that the caller's functors may read too: the labels'
    communities' totals (`total`, counted by the `add` transform), the two sums `measure`
    queues, and `settings`.

    Parameters
    ----------
    graph : Graph
        Undirected, with float64 weights (as minigr.contract makes them): every stored edge
        counts its weight in both ends' degrees, a self-loop twice.
    labels : array
        int32, one community per vertex (any id below the vertex count); the caller changes it.
    resolution : float
        Below 1 favours larger communities, above 1 smaller ones.
    *more : float
        Values kept after m and the resolution in `settings`, for the caller's functors.

    Attributes
    ----------
    weight : Functor
        ``double operator()(int v, int u, long long e) const``: the edge's weight in v's degree.
    degree : array
        Each vertex's weighted degree (float64).
    total : array
        Each community's total degree (float64): the caller zeroes it over every vertex
        before `add` counts it (in a pass of its own, or fused into one that changes labels).
    add : Functor
        ``void operator()(long long v) const``, for ``transform(n, add)``: adds v's degree
        to its community's total.
    sums : array
        [weight inside communities, sum of squared totals], written by `measure`.
    settings : array
        ``[m, resolution, *more]``.

    Examples
    --------
    >>> import minigr
    >>> from minigr import validate
    >>> from minigr.modularity import Modularity
    >>> from minigr.transforms import transform
    >>> graph = minigr.Graph.from_edges([0, 1, 2, 3], [1, 2, 0, 4], [1.0] * 4, symmetrize=True)
    >>> labels = graph.xp.asarray([0, 0, 0, 3, 3], dtype="int32")
    >>> modularity = Modularity(graph, labels, 1.0)
    >>> modularity.total.fill(0)
    >>> transform(graph.num_vertices, modularity.add)
    >>> modularity.measure()
    >>> round(modularity.wait_value(), 4), round(validate.modularity(graph, labels, weighted=True), 4)
    (0.375, 0.375)
    """

    def __init__(self, graph, labels, resolution, *more):
        xp, self.graph = graph.xp, graph
        self.weight = Functor(WEIGHT, filename="<modularity weight>", weights=graph.weights)
        self.degree = neighbor_reduce(graph, self.weight)
        self.total, self.inside, self.sums = self.degree.copy(), xp.empty(graph.num_vertices), xp.zeros(2)
        self.settings = xp.asarray(numpy.array([float(self.degree.sum()) / 2, resolution, *more]))
        self.add = Functor(ADD, filename="<modularity add>", c=labels, total=self.total, degree=self.degree)
        self._inside = Functor(INSIDE, filename="<modularity inside>", c=labels, weight=self.weight)
        self._squared = Functor(SQUARED, filename="<modularity squared>", total=self.total)
        graph.vertex_partition()  # reduce_vertices' own, made before a loop captures measure

    def measure(self):
        """Queues the sums of the labels as they are and the totals as last counted (nothing
        waits; a loop's body may call it).

        Returns
        -------
        None

        Examples
        --------
        See the class.
        """
        neighbor_reduce(self.graph, self._inside, out=self.inside)
        reduce_vertices(self.graph, self.inside, out=self.sums[0:1])
        reduce_vertices(self.graph, self._squared, out=self.sums[1:2])

    def wait_value(self):
        """The modularity that the last `measure` found, read on the host (waits for it).

        Returns
        -------
        float
            The modularity (of a graph whose edges weigh more than 0 in all).

        Examples
        --------
        See the class.
        """
        two_m = 2 * float(self.settings[0])
        return float(self.sums[0]) / two_m - float(self.settings[1]) * float(self.sums[1]) / two_m**2
