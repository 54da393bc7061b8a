"""Multi-source BFS: every vertex's hops to the nearest of several sources, and
which source that is, written with the advance operator and a functor plugin
(the bodies of its cond and apply): the first frontier holds all the sources."""
import numpy

import minigr
from minigr.frontier import Frontier
from minigr.operators import AdvanceFunctor, advance

graph = minigr.load("grid:scale=12,seed=1")              # a 64 x 64 grid, some edges dropped
sources = graph.xp.asarray([0, 1365, 2730, 4095])
hops = graph.xp.full(graph.num_vertices, -1, dtype=numpy.int32)
nearest = graph.xp.full(graph.num_vertices, -1, dtype=numpy.int32)
hops[sources] = 0
nearest[sources] = sources

visit = AdvanceFunctor(cond="return atomicCAS(&hops[dst], -1, iteration + 1) == -1;",  # the first to reach dst
                       apply="nearest[dst] = nearest[src];",                             # claims it, and passes
                       hops=hops, nearest=nearest)                                       # its source on

frontier = Frontier.from_ids(sources, graph.num_vertices, graph.device)
level = 0
while frontier.wait_size():                              # a level at a time, decided on the host
    advance(graph, frontier, visit, out=frontier, iteration=level)
    frontier.next_level()
    level += 1
for source in sources.tolist():
    print(f"source {source}: nearest to {int((nearest == source).sum())} vertices")
print(f"every vertex within {int(hops.max())} hops of a source; {int((hops < 0).sum())} unreached")
