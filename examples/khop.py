"""The k-hop neighbourhood of a vertex: every vertex within k hops of it, read
off minigr's BFS depths."""
import minigr

graph = minigr.load("rgg:scale=12,seed=1")              # 4096 points in the unit square
center, k = 0, 3
depth = minigr.bfs(graph, center).depth                  # hops from center, -1 where unreached
within = (depth >= 0) & (depth <= k)
print(f"{graph}: {int(within.sum())} vertices within {k} hops of vertex {center}")
for hops in range(k + 1):
    print(f"  {hops} hops: {int((depth == hops).sum())}")
