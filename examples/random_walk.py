"""Random walks, as DeepWalk or node2vec sample them: each step, every walker
moves to a random out-neighbour (a dead end keeps it where it is), one
transform over the walkers with a functor plugin."""
import numpy

import minigr
from minigr.transforms import Functor, transform

STEP = """
void operator()(long long w) const {
    const int v = here[w];
    const long long begin = row_offsets[v], degree = row_offsets[v + 1] - begin;
    uint64_t x = (uint64_t)(step * walkers + w + 1) * 0x9E3779B97F4A7C15ull;   // a hash of (step, walker)
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    x ^= x >> 31;
    there[w] = degree ? col_indices[begin + (long long)(x % (uint64_t)degree)] : v;
}"""

graph = minigr.load("kron:scale=10,edge_factor=4,seed=1")
walkers, steps = 2000, 10
walks = graph.xp.empty((steps + 1, walkers), dtype=numpy.int32)    # walks[s, w]: walker w after s steps
walks[0] = graph.xp.arange(walkers, dtype=numpy.int32) % graph.num_vertices
for step in range(steps):
    transform(walkers, Functor(STEP, here=walks[step], there=walks[step + 1], step=step, walkers=walkers,
                               row_offsets=graph.row_offsets, col_indices=graph.col_indices))
visits = graph.xp.bincount(walks[1:].ravel(), minlength=graph.num_vertices)
print(f"{walkers} walks of {steps} steps; most visited vertices: {graph.xp.argsort(-visits)[:5].tolist()}")
