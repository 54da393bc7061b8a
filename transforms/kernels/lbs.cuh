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

// A block's share of the merge path: items [x0, x1), the ends of segments
// [y0, y1) in shared memory as item positions relative to x0 (0..items, so
// 32-bit), and the start of segment y0.
template <int NV>
struct MergeRange {
    long long x0, x1, y0, y1, start0;
    int ends[NV + 1];

    __device__ __forceinline__ int items() const { return (int)(x1 - x0); }
    __device__ __forceinline__ int nends() const { return (int)(y1 - y0); }
    __device__ __forceinline__ long long start_of(int local) const { return local ? x0 + ends[local - 1] : start0; }

    // Items (x) and ends (y) before step `diag` of the block's path.
    __device__ __forceinline__ void split(int diag, int& x, int& y) const
    {
        int lo = max(0, diag - nends()), hi = min(diag, items());
        while (lo < hi) {
            const int mid = (lo + hi) >> 1;
            if (mid < ends[diag - 1 - mid]) lo = mid + 1; else hi = mid;
        }
        x = lo;
        y = diag - lo;
    }

    // Where the walk from segment y stops taking items: that segment's end,
    // or past the last end, the block's item count.
    __device__ __forceinline__ int stop_of(int y) const { return y < nends() ? ends[y] : items(); }

    // The segment holding item j (both relative): the number of ends at or
    // before j. A fixed number of steps, so that the compiler can drop the
    // search where its result goes unused.
    __device__ __forceinline__ int segment_of(int j) const
    {
        static_assert((NV & (NV - 1)) == 0, "NV is a power of two");
        int count = 0;
#pragma unroll
        for (int step = NV; step > 0; step >>= 1)
            if (count + step <= nends() && ends[count + step - 1] <= j) count += step;
        return count;
    }
};

struct NoSegment {
    __device__ void operator()(long long) const {}
};

// The merge-path split at the start of every block (and the end), one thread
// each, so that blocks start without a serial search through global memory;
// open(seg) is called with the segment open at each split (seg < nseg).
template <int NV, class O, class Open = NoSegment>
__device__ void merge_partitions(const O* offsets, long long nseg, long long total, long long* splits,
                                 Open open = {})
{
    const long long blocks = (total + nseg + NV - 1) / NV;
    const long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (p > blocks) return;
    const long long diag = min(p * NV, total + nseg), x = merge_path(diag, offsets + 1, nseg, total);
    splits[p] = x;
    if (diag - x < nseg) open(diag - x);
}

template <int BLOCK, int NV, class O>
__device__ void load_merge_range(MergeRange<NV>& r, const O* offsets, long long nseg, long long total,
                                 const long long* splits)
{
    const long long diag0 = (long long)blockIdx.x * NV, diag1 = min(diag0 + NV, total + nseg);
    const long long x0 = splits[blockIdx.x], x1 = splits[blockIdx.x + 1], y0 = diag0 - x0, y1 = diag1 - x1;
    if (threadIdx.x == 0) {
        r.x0 = x0; r.x1 = x1; r.y0 = y0; r.y1 = y1;
        r.start0 = offsets[y0];
    }
    for (int j = threadIdx.x; j < y1 - y0; j += BLOCK) r.ends[j] = (int)(offsets[y0 + 1 + j] - x0);
    __syncthreads();
}

// Each thread walks its ITEMS steps of the block's path from (x, y), recording
// the segment of each item it meets (relative to y0) at padded<int>(item - x0).
template <int BLOCK, int ITEMS>
__device__ void record_segments(const MergeRange<BLOCK * ITEMS>& r, int* segment, int x, int y)
{
    int stop = r.stop_of(y);
#pragma unroll
    for (int step = 0; step < ITEMS; ++step) {
        if (x < stop) segment[padded<int>(x++)] = y;
        else if (y < r.nends()) stop = r.stop_of(++y);
    }
    __syncthreads();
}

// Segments recorded by a walk, then items visited striped, so that f's
// accesses at idx coalesce and many are in flight at once.
template <int BLOCK, int ITEMS, class O, class F>
__device__ void lbs(const O* offsets, long long nseg, long long total, const long long* splits, F& f)
{
    constexpr int NV = BLOCK * ITEMS;
    __shared__ MergeRange<NV> r;
    __shared__ int segment[padded_size<int>(NV)];
    load_merge_range<BLOCK>(r, offsets, nseg, total, splits);
    int x, y;
    r.split(min((int)threadIdx.x * ITEMS, r.items() + r.nends()), x, y);
    record_segments<BLOCK, ITEMS>(r, segment, x, y);
    for (int j = threadIdx.x; j < r.items(); j += BLOCK) {
        const int local = segment[padded<int>(j)];
        f(r.x0 + j, r.y0 + local, r.x0 + j - r.start_of(local));
    }
}

}  // namespace minigr
