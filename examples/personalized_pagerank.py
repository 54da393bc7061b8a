"""Personalized PageRank: the vertices closest to a few seeds, by a random walk
that teleports back to the seeds instead of anywhere."""
import numpy

import minigr

graph = minigr.load("kron:scale=12,edge_factor=8,seed=1")
seeds = [3, 5, 8]
teleport = numpy.zeros(graph.num_vertices)
teleport[seeds] = 1                                      # minigr normalizes it
rank = minigr.pagerank(graph, personalization=teleport).to_host().rank
top = numpy.argsort(-rank, kind="stable")[:8]
print(f"closest to {seeds}: {top.tolist()}")
print(f"their ranks: {numpy.round(rank[top], 4).tolist()}")
