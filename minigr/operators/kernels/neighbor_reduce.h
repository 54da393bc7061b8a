// neighbor_reduce's glue. Self is the operator's functor struct: members op
// (value of an edge: op(vertex, neighbor, edge)), combine (the reduction),
// identity, out, row_offsets, col_indices, and n or a frontier view.
namespace minigr {

// Over every vertex, the rows and columns are read once a pass: streaming
// loads and stores (__ldcs / __stcs, evict first) leave L2 to the values op
// gathers (H100, 2026-11-27, PageRank's float64 pull: rgg_n22 727 -> 694 us,
// kron_s21_e16 516 -> 507; grid_22 and float32 unchanged).

// GROUP consecutive threads take vertex i / GROUP of all n: their loads of its
// edges coalesce, and a shuffle combines their partial results. A lane loads
// BATCH of its edges' columns, then calls op on them (its gathers), so that a
// vertex of up to GROUP * BATCH edges waits on three round trips to memory
// (rows, columns, values), not two for each edge (H100, 2026-11-27, PageRank's
// pull: grid_22 float64 in two blocks 155-160 -> 142 us, rgg_n22 575-586 -> 542).
template <int GROUP, class T, class Self>
__device__ __forceinline__ void reduce_group(const Self& self, long long i)
{
    constexpr int BATCH = 4;
    const long long v = i / GROUP;
    const int lane = (int)(i % GROUP);
    T acc = self.identity;
    if (v < self.n) {
        const long long end = __ldcs(&self.row_offsets[v + 1]);
        for (long long base = __ldcs(&self.row_offsets[v]) + lane; base < end; base += GROUP * BATCH) {
            int neighbor[BATCH];  // unrolled: the array stays in registers
            for (int k = 0; k < BATCH; ++k)
                neighbor[k] = base + k * GROUP < end ? __ldcs(&self.col_indices[base + k * GROUP]) : -1;
            for (int k = 0; k < BATCH; ++k)
                if (neighbor[k] >= 0) acc = self.combine(acc, (T)self.op((int)v, neighbor[k], base + k * GROUP));
        }
    }
    if constexpr (GROUP > 1) {
        for (int d = GROUP / 2; d > 0; d >>= 1) acc = self.combine(acc, __shfl_xor_sync(0xffffffffu, acc, d, GROUP));
    }
    if (v < self.n && lane == 0) __stcs(&self.out[v], acc);
}

// The value of edge `edge` of vertex `seg`, for a segmented reduction over rows.
template <class T, class Self>
__device__ __forceinline__ T edge_value(const Self& self, long long edge, long long seg)
{
    return (T)self.op((int)seg, __ldcs(&self.col_indices[edge]), edge);
}

// Over a frontier: the value of an edge of the level's seg-th vertex v,
// combined atomically into out[v] (which holds the identity beforehand).
template <class T, class Self>
__device__ __forceinline__ void combine_edge(const Self& self, long long edge, long long seg)
{
    const int v = self.frontier.vertex(seg);
    atomic_combine(&self.out[v], (T)self.op(v, self.col_indices[edge], edge), self.combine);
}

}  // namespace minigr
