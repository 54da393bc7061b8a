"""Reachability in hops, written with the operators, a CUDA C functor plugin
and a loop that stays on the GPU (a CUDA graph; the CPU runs the same body in
a host loop): runs on the GPU when there is one, else on the CPU."""
import numpy

import minigr
from minigr.enactor import Loop
from minigr.frontier import Frontier
from minigr.operators import AdvanceFunctor, advance

graph = minigr.load("kron:scale=12,edge_factor=8,seed=1")      # or a .mtx / edge-list path
source = int(graph.out_degrees().argmax())
hops = graph.xp.full(graph.num_vertices, -1, dtype=numpy.int32)
hops[source] = 0

# cond: whether edge src -> dst is taken (apply, not needed here, would run where it is).
visit = AdvanceFunctor(cond="return atomicCAS(&hops[dst], -1, iteration + 1) == -1;",   # first to reach dst claims it
                       hops=hops)

frontier = Frontier.from_ids(source, graph.num_vertices, graph.device)
# Each level appends the next after it; the loop stops when a level is empty.
loop = Loop("reach", graph.device, lambda: advance(graph, frontier, visit, out=frontier, iteration=loop.iteration),
            frontier.not_empty())
loop.run("device", max_iterations=graph.num_vertices)
levels, _ = loop.wait_iterations()
print(f"{graph}: {int((hops >= 0).sum())} vertices reached from {source} in {levels - 1} hops")
