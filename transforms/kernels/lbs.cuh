// Load-balanced search: every output item of every segment, balanced over items
// and segment ends together. Each block takes BLOCK*ITEMS steps of the merge path
// of the items 0..total-1 with the segment ends offsets[1..nseg], so a block does
// the same work whatever the skew: one huge segment, or millions of empty ones.
namespace minigr {

// Items consumed in the first `diag` steps of the merge path; an end that equals
// an item's index comes first (the segment closed before that item).
template <class O>
__device__ long long merge_path(long long diag, const O* ends, long long nseg, long long total)
{
    long long lo = diag > nseg ? diag - nseg : 0, hi = diag < total ? diag : total;
    while (lo < hi) {
        const long long mid = (lo + hi) >> 1;
        if (mid < (long long)ends[diag - 1 - mid]) lo = mid + 1; else hi = mid;
    }
    return lo;
}

// A block's share of the merge path: items [x0, x1), segment ends [y0, y1) and
// the start of segment y0, then the segment of every item (relative to y0).
template <int NV>
struct MergeRange {
    long long x0, x1, y0, y1, start0;
    long long ends[NV + 1];
    int segment[padded_size<int>(NV)];  // of item x0 + j at padded<int>(j)

    __device__ __forceinline__ int segment_of(int j) const { return segment[padded<int>(j)]; }
    __device__ __forceinline__ long long start_of(int local) const { return local ? ends[local - 1] : start0; }
};

// The merge-path split at the start of every block (and the end), one thread
// each, so that blocks start without a serial search through global memory.
template <int NV, class O>
__device__ void merge_partitions(const O* offsets, long long nseg, long long total, long long* splits)
{
    const long long blocks = (total + nseg + NV - 1) / NV;
    const long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (p <= blocks) splits[p] = merge_path(min(p * NV, total + nseg), offsets + 1, nseg, total);
}

// Loads the block's share of the merge path, then walks it: each thread takes
// ITEMS consecutive steps from its own split, recording each item's segment.
template <int BLOCK, int ITEMS, class O>
__device__ void load_merge_range(MergeRange<BLOCK * ITEMS>& r, const O* offsets, long long nseg,
                                 long long total, const long long* splits)
{
    constexpr int NV = BLOCK * ITEMS;
    if (threadIdx.x == 0) {
        const long long diag0 = (long long)blockIdx.x * NV, diag1 = min(diag0 + NV, total + nseg);
        r.x0 = splits[blockIdx.x]; r.x1 = splits[blockIdx.x + 1];
        r.y0 = diag0 - r.x0; r.y1 = diag1 - r.x1;
        r.start0 = offsets[r.y0];
    }
    __syncthreads();
    const int items = (int)(r.x1 - r.x0), ends = (int)(r.y1 - r.y0);
    for (int j = threadIdx.x; j < ends; j += BLOCK) r.ends[j] = offsets[r.y0 + 1 + j];
    __syncthreads();
    const int diag = min((int)threadIdx.x * ITEMS, items + ends);
    int lo = max(0, diag - ends), hi = min(diag, items);
    while (lo < hi) {
        const int mid = (lo + hi) >> 1;
        if (r.x0 + mid < r.ends[diag - 1 - mid]) lo = mid + 1; else hi = mid;
    }
    int x = lo, y = diag - lo;
#pragma unroll
    for (int step = 0; step < ITEMS; ++step) {
        if (x < items && (y >= ends || r.x0 + x < r.ends[y])) r.segment[padded<int>(x++)] = y;
        else ++y;
    }
    __syncthreads();
}

template <int BLOCK, int ITEMS, class O, class F>
__device__ void lbs(const O* offsets, long long nseg, long long total, const long long* splits, F& f)
{
    constexpr int NV = BLOCK * ITEMS;
    __shared__ MergeRange<NV> r;
    load_merge_range<BLOCK, ITEMS>(r, offsets, nseg, total, splits);
    const int items = (int)(r.x1 - r.x0);
    for (int j = threadIdx.x; j < items; j += BLOCK) {
        const int local = r.segment_of(j);
        f(r.x0 + j, r.y0 + local, r.x0 + j - r.start_of(local));
    }
}

}  // namespace minigr
