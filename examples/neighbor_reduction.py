"""A custom neighbourhood reduction: every vertex's average and largest
neighbour degree (networkx's average_neighbor_degree, and a max), each one
neighbor_reduce with a functor that reads the neighbour's degree."""
import numpy

import minigr
from minigr.operators import neighbor_reduce
from minigr.transforms import Functor

graph = minigr.load("rgg:scale=12,seed=1")
degree = graph.out_degrees()
neighbour_degree = Functor("double operator()(int v, int u, long long edge) const { return degree[u]; }",
                           degree=degree)
average = neighbor_reduce(graph, neighbour_degree) / graph.xp.maximum(degree, 1)
largest = neighbor_reduce(graph, neighbour_degree, reduce="max", identity=0)
print(f"{graph}: mean degree {float(degree.mean()):.2f}, mean neighbour degree {float(average.mean()):.2f}")
print(f"largest neighbour degree: {int(largest.max())}, at vertex {int(largest.argmax())}")
