"""push_pull: direction-optimizing advance (Beamer, Asanović and Patterson,
2012; as GraphBLAS frameworks offer it, papers/push-pull-graphblas.txt). A
traversal's level is pushed from the frontier's vertices while it is small,
and pulled, each unvisited vertex looking for one visitor at the current
level, when the frontier's edges outweigh the unvisited ones. The choice is
made on the device after each level, in the loop's condition: the operator
not chosen gets a count of 0 and launches empty, so the levels loop on the
device with the same launches whatever the direction."""
import numpy

from ..transforms import DeviceCount, Functor
from .advance import advance, advance_pull

# After each level: choose the next one's direction from its size and edges
# over the whole graph. direction = [pulling, edges of unvisited vertices,
# vertices to push, to pull]: the operator not chosen gets a count of 0 and
# launches empty. n: vertices of the whole graph; local: this graph's vertices,
# of which `size` are in the next level here (a partitioned graph's part).
CHOOSE = """void choose(long long size, long long edges, long long local_size) const {
    direction[1] -= edges;
    if (direction[0]) direction[0] = size * beta >= n;
    else direction[0] = size * 4 * alpha >= n && edges * alpha > direction[1];
    direction[2] = direction[0] ? 0 : local_size;
    direction[3] = direction[0] ? local : 0;
}"""
# Stop when the next level is empty, else choose its direction.
NEXT_LEVEL = """bool operator()() const {
    const long long size = frontier.next_level();
    choose(size, frontier.level_edges(), size);
    return size > 0;
}"""
ALPHA, BETA = 14, 24


class PushPull:
    """A traversal's advance over one level, pushed or pulled as Beamer's heuristic chooses
    on the device after each level (alpha ALPHA, beta BETA, n vertices): a level is pushed
    from the frontier (`push` on its vertices' out-edges) until one holds n / (4 alpha)
    vertices or more and its edges times alpha outnumber the unvisited vertices' edges;
    that level is pulled (each vertex that `unvisited` picks tries `pull` on its in-edges,
    the first that holds wins), and so are the levels after it while each holds n / beta
    vertices or more; then they are pushed again.

    Calling it queues one level; `condition` is the loop's condition that ends a level and
    chooses the next one's direction. A run starts pushed from one vertex: the statements
    START, run by the first item of a Start (minigr.enactor.Start) with a `root` and
    `start_captures`, set the direction for it.

    Parameters
    ----------
    graph : Graph
        The graph traversed.
    frontier : Frontier
        The traversal's frontier, keeping its levels' edges (``edges=True``); both operators
        append the vertices they reach to its next level.
    push, pull : AdvanceFunctor
        The visit along an out-edge of a frontier vertex, and along an in-edge into an
        unvisited vertex from a vertex of the current level.
    unvisited : Functor
        ``bool operator()(int v) const``: whether v is still to be reached.
    unique : bool, default False
        Push appends each vertex at most once a level (see advance).
    vertices : int, optional
        The vertices of the whole graph, where `graph` is a part of it (default its own).

    Attributes
    ----------
    direction : array
        int64 [pulling, edges of unvisited vertices, vertices to push, to pull].
    start_captures : dict
        The captures START reads.

    Examples
    --------
    Hops from vertex 0, the levels decided on the host (a CUDA graph's loop on the GPU with
    ``run("device", ...)``):

    >>> import numpy
    >>> import minigr
    >>> from minigr.enactor import Loop, Start
    >>> from minigr.frontier import Frontier
    >>> from minigr.operators import AdvanceFunctor, PushPull
    >>> from minigr.transforms import Functor
    >>> graph = minigr.Graph.from_edges([0, 1, 1, 2], [1, 2, 3, 3], symmetrize=True)
    >>> depth = graph.xp.empty(4, dtype="int32")
    >>> frontier = Frontier(4, graph.device, capacity=4, edges=True)
    >>> push = AdvanceFunctor(cond="return atomicCAS(&depth[dst], -1, iteration + 1) == -1;", depth=depth)
    >>> pull = AdvanceFunctor(cond="return depth[src] == iteration;", apply="depth[dst] = iteration + 1;",
    ...                       depth=depth)
    >>> unvisited = Functor("bool operator()(int v) const { return depth[v] < 0; }", depth=depth)
    >>> hops = PushPull(graph, frontier, push, pull, unvisited)
    >>> start = Start("hops", 4, "frontier.reset(root);" + PushPull.START, "depth[v] = v == root ? 0 : -1;",
    ...               depth=depth, frontier=frontier.view, root=numpy.int32(0), **hops.start_captures)
    >>> loop = Loop("hops", graph.device, lambda: hops(loop.iteration), hops.condition("hops"))
    >>> loop.run("host", 4, before=start(root=0))
    >>> depth.tolist()
    [0, 1, 2, 2]
    """

    # A run's start, pushed from `root` alone (for a Start's first item, after the frontier's reset).
    START = """
        direction[0] = 0;
        direction[1] = edges - (row_offsets[root + 1] - row_offsets[root]);
        direction[2] = 1;
        direction[3] = 0;"""

    def __init__(self, graph, frontier, push, pull, unvisited, *, unique=False, vertices=None):
        n = graph.num_vertices
        self.graph, self.frontier, self.push, self.pull, self.unvisited = graph, frontier, push, pull, unvisited
        self.unique = unique
        self.direction = graph.xp.empty(4, dtype=numpy.int64)
        self.to_push, self.to_pull = (DeviceCount(self.direction, n, index, stable=True) for index in (2, 3))
        self.settings = dict(frontier=frontier.view, direction=self.direction, local=numpy.int64(n),
                             n=numpy.int64(n if vertices is None else vertices), alpha=numpy.int64(ALPHA),
                             beta=numpy.int64(BETA))
        self.start_captures = dict(direction=self.direction, row_offsets=graph.row_offsets,
                                   edges=numpy.int64(graph.num_edges))

    def __call__(self, iteration):
        """Queues one level: the push and the pull, one of them with nothing to do.

        Parameters
        ----------
        iteration : int or array
            The level, as advance takes it (a loop's ``loop.iteration``).

        Returns
        -------
        None

        Examples
        --------
        See the class.
        """
        advance(self.graph, self.frontier, self.push, out=self.frontier, iteration=iteration, unique=self.unique,
                count=self.to_push)
        advance_pull(self.graph, self.pull, self.unvisited, out=self.frontier, iteration=iteration,
                     count=self.to_pull)

    def condition(self, name, body=NEXT_LEVEL, **captures):
        """The loop's condition after each level: `body`, which may call
        ``choose(size, edges, local_size)`` with the next level's size and edges over the
        whole graph and its size here.

        Parameters
        ----------
        name : str
            The primitive's name, for the functor's (``<name next level>``).
        body : str, default NEXT_LEVEL
            ``bool operator()() const``; by default the frontier's next level made current,
            its direction chosen, and true unless it is empty.
        **captures
            The body's own captures, beside the frontier, direction and settings.

        Returns
        -------
        Functor
            The condition, for Loop.

        Examples
        --------
        >>> import minigr
        >>> from minigr.frontier import Frontier
        >>> from minigr.operators import AdvanceFunctor, PushPull
        >>> from minigr.transforms import Functor
        >>> graph = minigr.Graph.from_edges([0, 1], [1, 2])
        >>> depth = graph.xp.zeros(3, dtype="int32")
        >>> visit = AdvanceFunctor(cond="return depth[dst] < 0;", depth=depth)
        >>> unvisited = Functor("bool operator()(int v) const { return depth[v] < 0; }", depth=depth)
        >>> traversal = PushPull(graph, Frontier(3, graph.device, edges=True), visit, visit, unvisited)
        >>> traversal.condition("hops").filename
        '<hops next level>'
        """
        return Functor(CHOOSE + body, filename=f"<{name} next level>", **captures, **self.settings)
