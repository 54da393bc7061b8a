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

// Each thread walks ITEMS steps of the block's path, reducing items as it meets
// them and finishing each segment whose end it meets; the partial of a segment
// still open at a thread's last step carries into the next threads through a
// segmented scan, and into the next block through atomic_combine.
template <int BLOCK, int ITEMS, class O, class T, class F, class Op>
__device__ void segreduce(const O* offsets, long long nseg, long long total, const long long* splits, T* out,
                          T identity, F& f, Op& op)
{
    constexpr int NV = BLOCK * ITEMS;
    __shared__ MergeRange<NV> r;
    __shared__ T inclusive_values[BLOCK];
    load_merge_range<BLOCK>(r, offsets, nseg, total, splits);

    // Stores segment `local` (relative to y0), or combines it into out when the
    // segment has items in other blocks too.
    const bool first_inside = r.start0 >= r.x0;
    auto finish = [&](int local, T value, bool right_inside) {
        if ((local > 0 || first_inside) && right_inside) out[r.y0 + local] = value;
        else atomic_combine(out + r.y0 + local, value, op);
    };

    int x, y;
    r.split(min((int)threadIdx.x * ITEMS, r.items() + r.nends()), x, y);
    // First pass over the thread's ITEMS steps: the items' values, with no store
    // in between, so that all their loads are in flight at once.
    const int nends = r.nends();
    T values[ITEMS];
    unsigned item_steps = 0, end_steps = 0;
    {
        int walk_x = x, walk_y = y, stop = r.stop_of(y);
        long long seg_start = r.start_of(y);
#pragma unroll
        for (int step = 0; step < ITEMS; ++step) {
            values[step] = identity;
            if (walk_x < stop) {
                const long long idx = r.x0 + walk_x++;
                values[step] = (T)f(idx, r.y0 + walk_y, idx - seg_start);
                item_steps |= 1u << step;
            } else if (walk_y < nends) {
                end_steps |= 1u << step;
                seg_start = r.x0 + stop;
                stop = r.stop_of(++walk_y);
            }
        }
    }
    // Second pass: reduce, finishing each segment whose end the thread meets.
    int first_seg = -1;  // the first segment this thread closes: it may have begun in earlier threads
    T first_value = identity, acc = identity;
#pragma unroll
    for (int step = 0; step < ITEMS; ++step) {
        if ((item_steps >> step) & 1u) {
            acc = op(acc, values[step]);
        } else if ((end_steps >> step) & 1u) {
            if (first_seg < 0) { first_seg = y; first_value = acc; }
            else finish(y, acc, true);
            ++y;
            acc = identity;
        }
    }
    const Run<T> inclusive = block_segmented_scan<BLOCK>(Run<T>{first_seg >= 0, acc}, op);
    inclusive_values[threadIdx.x] = inclusive.value;
    __syncthreads();
    if (first_seg >= 0)
        finish(first_seg, threadIdx.x ? op(inclusive_values[threadIdx.x - 1], first_value) : first_value, true);
    // The segment open at the block's end continues in the next block.
    if (threadIdx.x == BLOCK - 1 && r.y1 < nseg && r.items() > 0) finish(r.nends(), inclusive.value, false);
}

}  // namespace minigr
