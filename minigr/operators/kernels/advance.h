// advance's glue: what one edge, or one pulled vertex, does. Self is the
// operator's functor struct: members op (the user's cond/apply), row_offsets,
// col_indices, iteration (an int, or the loop's counter on the device), and
// for output `out`, a frontier view (frontier.h).
namespace minigr {

// Where an accepted destination goes: nowhere, or the next level (UNIQUE:
// unless already there; STAGED: gathered per block, for walks that open and
// close each block's pass, see frontier.h). edges(v): what an append tells
// the frontier of v's out-edges, loaded before cond (see visit_edge); a
// frontier that keeps no edge count leaves it unused, and the compiler drops
// its loads.
struct NoOutput {
    template <class Self>
    __device__ static long long edges(const Self&, int) { return 0; }
    template <class Self>
    __device__ static void add(const Self&, int, long long) {}
};
template <bool UNIQUE, bool STAGED>
struct Append {
    template <class Self>
    __device__ static long long edges(const Self& self, int v) { return self.row_offsets[v + 1] - self.row_offsets[v]; }
    template <class Self>
    __device__ static void add(const Self& self, int v, long long edges)
    {
        if (UNIQUE && !self.out.first_this_level(v)) return;
        if (STAGED) self.out.stage(v, edges);
        else self.out.append(v, edges);
    }
};

// The out-edges of v, as a segment of edge ids.
template <class Self>
__device__ __forceinline__ void out_edges(const Self& self, int v, long long& begin, long long& end)
{
    begin = self.row_offsets[v];
    end = self.row_offsets[v + 1];
}

// Push: cond on the edge src -> col_indices[edge], apply where it holds. dst's
// edge count is loaded beside cond's atomics, not after them: a small level's
// edge is a chain of round trips to memory, and this takes one out.
template <class Output, class Self>
__device__ __forceinline__ void visit_edge(const Self& self, int src, long long edge, long long rank, long long out_idx)
{
    const int dst = self.col_indices[edge], iteration = value_of(self.iteration);
    const long long edges = Output::edges(self, dst);
    if (!self.op.cond(src, dst, edge, rank, out_idx, iteration)) return;
    self.op.apply(src, dst, edge, rank, out_idx, iteration);
    Output::add(self, dst, edges);
}

// Pull: a wanted dst looks through its in-edges (in_offsets, in_sources) and
// stops at the first whose cond holds. It is appended after the walk, so that
// the lanes of a warp that found theirs at different edges append with one
// atomic (inside the walk, a warp appended at each edge where some lane found).
template <class Output, class Self>
__device__ __forceinline__ void pull_vertex(const Self& self, int dst)
{
    if (!self.wanted(dst)) return;
    const int iteration = value_of(self.iteration);
    const long long first = self.in_offsets[dst], last = self.in_offsets[dst + 1];
    bool found = false;
    for (long long edge = first; edge < last && !found; ++edge) {
        const int src = self.in_sources[edge];
        found = self.op.cond(src, dst, edge, edge - first, dst, iteration);
        if (found) self.op.apply(src, dst, edge, edge - first, dst, iteration);
    }
    if (found) Output::add(self, dst, Output::edges(self, dst));
}

}  // namespace minigr
