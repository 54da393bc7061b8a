// Segmented reduction fused with the load-balanced search: values f(idx, seg, rank)
// are reduced per segment with op. A block reduces its share of the merge path;
// a segment lying wholly inside one block is stored, one spanning blocks is
// combined into out atomically (atomic_combine), so op must be associative and
// commutative. Those segments hold the identity beforehand: merge_partitions
// stores it in the ones open at block boundaries (StoreIdentity), or, with a
// Partition found earlier, store_open_identity does.
namespace minigr {

template <class T>
struct StoreIdentity {
    T* out;
    T identity;
    __device__ void operator()(long long seg) const { out[seg] = identity; }
};

// An op with a native atomic (the built-in sum) defines atomic(address, value):
// a reduction done in L2 that the thread need not wait for, where the
// compare-and-swap loop below waits a round trip per try.
template <class Op, class = void>
struct HasAtomic { static constexpr bool value = false; };
template <class Op>
struct HasAtomic<Op, decltype((void)&Op::atomic)> { static constexpr bool value = true; };

template <class T, class Op>
__device__ void atomic_combine(T* address, T value, const Op& op)
{
    if constexpr (HasAtomic<Op>::value) {
        op.atomic(address, value);
    } else if constexpr (sizeof(T) == 4) {
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

// Items' values are computed striped (f's loads at idx coalesce) into shared
// memory; then each thread walks ITEMS steps of the block's path, reducing the
// items it meets and finishing each segment whose end it meets. The partial of a
// segment still open at a thread's last step carries into the next threads
// through a segmented scan, and into the next block through atomic_combine.
template <int BLOCK, int ITEMS, class O, class T, class F, class Op>
__device__ void segreduce(const O* offsets, long long nseg, long long total, const long long* splits, T* out,
                          T identity, F& f, Op& op)
{
    constexpr int NV = BLOCK * ITEMS;
    __shared__ MergeRange<NV> r;
    __shared__ T values[padded_size<T>(NV)];
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
    // An item's segment is searched for only if f uses it (or its rank); the
    // compiler drops the search otherwise, as for a plain gather.
    T striped[ITEMS];  // all loaded before any is stored, so that their loads are in flight at once
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        const int j = k * BLOCK + threadIdx.x;
        if (j < r.items()) {
            const int local = r.segment_of(j);
            striped[k] = (T)f(r.x0 + j, r.y0 + local, r.x0 + j - r.start_of(local));
        }
    }
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        const int j = k * BLOCK + threadIdx.x;
        if (j < r.items()) values[padded<T>(j)] = striped[k];
    }
    __syncthreads();

    const int nends = r.nends();
    int first_seg = -1;  // the first segment this thread closes: it may have begun in earlier threads
    T first_value = identity, acc = identity;
    int stop = r.stop_of(y);
#pragma unroll
    for (int step = 0; step < ITEMS; ++step) {
        if (x < stop) {
            acc = op(acc, values[padded<T>(x++)]);
        } else if (y < nends) {
            if (first_seg < 0) { first_seg = y; first_value = acc; }
            else finish(y, acc, true);
            stop = r.stop_of(++y);
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

// Before a segreduce with splits found earlier: the identity in the segments
// open at its blocks' boundaries (those it may combine atomically), where
// filling all of out wrote every segment twice.
template <int NV, class T>
__device__ void store_open_identity(long long nseg, long long total, const long long* splits, long long blocks,
                                    T* out, T identity)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x; p <= blocks; p += stride) {
        const long long seg = min(p * NV, total + nseg) - splits[p];
        if (seg < nseg) out[seg] = identity;
    }
}

}  // namespace minigr
