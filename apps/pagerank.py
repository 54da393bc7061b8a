"""PageRank, pulled through the in-neighbours: each iteration sums the rank
shares of every vertex's in-neighbours with neighbor_reduce. Dangling vertices
spread their rank uniformly and convergence is networkx's (L1 change < n * tol),
so results match networkx.pagerank."""
import numpy

from minigr.enactor import Result, Timer
from minigr.operators import neighbor_reduce
from minigr.transforms import Functor
from minigr.transforms.errors import MinigrError

SHARE = "double operator()(int v, int u, long long edge) const { return share[u]; }"


def pagerank(graph, *, damping=0.85, tol=1e-6, max_iter=100):
    """Rank of every vertex (float64, summing to 1). Unweighted: a duplicate edge
    counts once per copy. Raises when max_iter iterations do not converge."""
    if not 0 < damping < 1:
        raise MinigrError(f"damping must lie strictly between 0 and 1, got {damping}")
    if not tol > 0 or max_iter < 1:
        raise MinigrError(f"tol must be positive and max_iter at least 1, got tol={tol}, max_iter={max_iter}")
    xp, n = graph.xp, graph.num_vertices
    if n == 0:
        return Result({"rank": xp.zeros(0)}, 0, 0.0, 0)
    out_degree = graph.out_degrees().astype(numpy.float64)
    dangling = (out_degree == 0).astype(numpy.float64)  # 1 where a vertex has no out-edges
    inverse_degree = (1 - dangling) / xp.maximum(out_degree, 1)
    rank = xp.full(n, 1.0 / n)
    share = xp.empty(n)
    gather = Functor(SHARE, filename="<pagerank share>", share=share)
    with Timer(graph.device) as timer:
        for iteration in range(1, max_iter + 1):
            xp.multiply(rank, inverse_degree, out=share)
            pulled = neighbor_reduce(graph, gather, direction="in")
            base = (damping * xp.dot(rank, dangling) + (1 - damping)) / n  # stays on the device
            new_rank = damping * pulled + base
            change = float(xp.abs(new_rank - rank).sum())
            rank = new_rank
            if change < n * tol:
                break
        else:
            raise MinigrError(f"PageRank did not converge in {max_iter} iterations (L1 change {change:.3g}, "
                              f"needed < {n * tol:.3g}); raise max_iter or tol")
    return Result({"rank": rank}, iteration, timer.ms, graph.num_edges * iteration)
