"""Reachability in hops, written with the operators and a CUDA C functor plugin:
runs on the GPU when there is one, else on the CPU (same functor source)."""
import numpy

import minigr
from minigr.frontier import Frontier
from minigr.operators import advance
from minigr.transforms import Functor

graph = minigr.load("kron:scale=12,edge_factor=8,seed=1")      # or a .mtx / edge-list path
source = int(graph.out_degrees().argmax())
hops = graph.xp.full(graph.num_vertices, -1, dtype=numpy.int32)
hops[source] = 0

visit = Functor("""
bool cond(int src, int dst, long long edge, long long rank, long long out_idx, int iteration) const {
    return atomicCAS(&hops[dst], -1, iteration + 1) == -1;     // first to reach dst claims it
}
void apply(int src, int dst, long long edge, long long rank, long long out_idx, int iteration) const {}
""", hops=hops)

frontier, level = Frontier.from_ids([source], graph.num_vertices, graph.device), 0
while len(frontier):
    frontier = advance(graph, frontier, visit, iteration=level)
    level += 1
print(f"{graph}: {int((hops >= 0).sum())} vertices reached from {source} in {level - 1} hops")
