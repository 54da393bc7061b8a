// Segmented reduction fused with the load-balanced search: values f(idx, seg, rank)
// are reduced per segment with op. A block reduces its share of the merge path;
// a segment lying wholly inside one block is stored, one spanning blocks is
// combined into out (pre-filled with the identity) with a compare-and-swap loop,
// so op must be associative and commutative.
namespace minigr {

template <class T, class Op>
__device__ void atomic_combine(T* address, T value, Op& op)
{
    if constexpr (sizeof(T) == 4) {
        unsigned int* bits = (unsigned int*)address;
        unsigned int old = *(volatile unsigned int*)bits, assumed;
        do {
            assumed = old;
            old = atomicCAS(bits, assumed, bit_cast<unsigned int>(op(bit_cast<T>(assumed), value)));
        } while (old != assumed);
    } else {
        static_assert(sizeof(T) == 8, "segreduce values are 4 or 8 bytes wide");
        unsigned long long* bits = (unsigned long long*)address;
        unsigned long long old = *(volatile unsigned long long*)bits, assumed;
        do {
            assumed = old;
            old = atomicCAS(bits, assumed, bit_cast<unsigned long long>(op(bit_cast<T>(assumed), value)));
        } while (old != assumed);
    }
}

// A partial reduction that may restart: `reset` marks a new segment.
template <class T>
struct Run {
    int reset;
    T value;
};

template <class T, class Op>
__device__ __forceinline__ Run<T> combine_runs(const Run<T>& a, const Run<T>& b, Op& op)
{
    return Run<T>{a.reset | b.reset, b.reset ? b.value : op(a.value, b.value)};
}

template <class T, class Op>
__device__ __forceinline__ Run<T> warp_segmented_scan(Run<T> x, Op& op)
{
    const int lane = threadIdx.x & 31;
    for (int d = 1; d < 32; d <<= 1) {
        Run<T> y{__shfl_up_sync(FULL_MASK, x.reset, d), __shfl_up_sync(FULL_MASK, x.value, d)};
        if (lane >= d) x = combine_runs(y, x, op);
    }
    return x;
}

// Inclusive segmented scan over the block's threads.
template <int BLOCK, class T, class Op>
__device__ Run<T> block_segmented_scan(Run<T> x, Op& op)
{
    __shared__ Run<T> warp_before[BLOCK / 32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const Run<T> inclusive = warp_segmented_scan(x, op);
    if (lane == 31) warp_before[warp] = inclusive;
    __syncthreads();
    if (warp == 0) {
        Run<T> w = lane < BLOCK / 32 ? warp_before[lane] : Run<T>{1, x.value};
        w = warp_segmented_scan(w, op);
        Run<T> before{__shfl_up_sync(FULL_MASK, w.reset, 1), __shfl_up_sync(FULL_MASK, w.value, 1)};
        if (lane > 0 && lane < BLOCK / 32) warp_before[lane] = before;
    }
    __syncthreads();
    const Run<T> result = warp ? combine_runs(warp_before[warp], inclusive, op) : inclusive;
    __syncthreads();
    return result;
}

template <int BLOCK, int ITEMS, class O, class T, class F, class Op>
__device__ void segreduce(const O* offsets, long long nseg, long long total, const long long* splits, T* out,
                          F& f, Op& op)
{
    constexpr int NV = BLOCK * ITEMS;
    __shared__ MergeRange<NV> r;
    __shared__ T values[padded_size<T>(NV)];
    __shared__ T inclusive_values[BLOCK];
    load_merge_range<BLOCK, ITEMS>(r, offsets, nseg, total, splits);

    const int m = (int)(r.x1 - r.x0);
    for (int j = threadIdx.x; j < m; j += BLOCK) {
        const int local = r.segment_of(j);
        values[padded<T>(j)] = (T)f(r.x0 + j, r.y0 + local, r.x0 + j - r.start_of(local));
    }
    __syncthreads();

    // Stores a finished run of segment `local`, or combines it when the segment
    // has items in other blocks too.
    const int block_ends = (int)(r.y1 - r.y0);
    auto finish = [&](int local, T value, bool right_inside) {
        const bool left_inside = local > 0 || r.start0 >= r.x0;
        if (left_inside && right_inside) out[r.y0 + local] = value;
        else atomic_combine(out + r.y0 + local, value, op);
    };

    // Each thread reduces ITEMS consecutive items; runs closed inside it are done.
    const int begin = threadIdx.x * ITEMS, end = min(begin + ITEMS, m);
    int first_seg = -1, seg = -1;
    T first_value = T(), acc = T();
    for (int j = begin; j < end; ++j) {
        const int s = r.segment_of(j);
        const T v = values[padded<T>(j)];
        if (j == begin) {
            seg = s; acc = v;
        } else if (s == seg) {
            acc = op(acc, v);
        } else {
            if (first_seg < 0) { first_seg = seg; first_value = acc; }
            else finish(seg, acc, true);
            seg = s; acc = v;
        }
    }
    // Runs crossing thread boundaries are joined by a segmented scan.
    const bool has_items = begin < end;
    const bool continues = has_items && begin > 0 && r.segment_of(begin - 1) == r.segment_of(begin);
    const Run<T> inclusive = block_segmented_scan<BLOCK>(Run<T>{!continues || first_seg >= 0, acc}, op);
    inclusive_values[threadIdx.x] = inclusive.value;
    __syncthreads();
    if (!has_items) return;
    if (first_seg >= 0)
        finish(first_seg, continues ? op(inclusive_values[threadIdx.x - 1], first_value) : first_value, true);
    const bool block_last = end == m;
    if (block_last || r.segment_of(end) != seg) finish(seg, inclusive.value, !block_last || seg < block_ends);
}

}  // namespace minigr
