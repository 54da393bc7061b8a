// Segmented reduction fused with the load-balanced search: values f(idx, seg, rank)
// are reduced per segment with op (associative and commutative), in two kernels,
// so that a result has the same bits on every run, whatever order the blocks end
// in (the segments that span blocks were combined atomically in that order before,
// and PageRank's float64 ranks differed in their last bits from run to run).
// segreduce: a block reduces its share of the merge path and stores the segments
// that close in it but the first, which may hold items of earlier blocks; for it
// the block leaves a record: its partial of that segment (its head), its partial
// of the segment open at its end (its tail: all its items where none closes) and
// the segment it closes first (-1 for none). combine_open_segments, one block,
// then combines the records in block order. A kernel of its own, not the last
// block to finish (as transform_sums does): every block of 2048 items would wait
// at its end for an acq_rel atomic, and the last one's pass over the records
// would have to fit the blocks' 32 registers (2048 threads an SM), a load at a time.
namespace minigr {

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

// Where block b of `blocks` leaves its record: combine_open_segments's thread t
// takes blocks t * chunk .. (t + 1) * chunk - 1, so the records of its threads'
// k-th blocks lie side by side, and their loads coalesce.
template <int THREADS>
__device__ __forceinline__ unsigned record_of(unsigned b, unsigned blocks)
{
    const unsigned chunk = (blocks + THREADS - 1) / THREADS;
    return b % chunk * THREADS + b / chunk;
}

// Items' values are computed striped (f's loads at idx coalesce) into shared
// memory; then each thread walks ITEMS steps of the block's path, reducing the
// items it meets and finishing each segment whose end it meets. The partial of a
// segment still open at a thread's last step carries into the next threads
// through a segmented scan, and into the next block through the record.
// partials: heads and tails, two values a record; closing: a segment a record.
template <int BLOCK, int ITEMS, int THREADS, class O, class T, class F, class Op>
__device__ void segreduce(const O* offsets, long long nseg, long long total, const long long* splits, T* out,
                          T identity, F& f, Op& op, T* partials, long long* closing)
{
    constexpr int NV = BLOCK * ITEMS;
    __shared__ MergeRange<NV> r;
    __shared__ T values[padded_size<T>(NV)];
    __shared__ T inclusive_values[BLOCK];
    load_merge_range<BLOCK>(r, offsets, nseg, total, splits);

    // Stores segment `local` (relative to y0), but the first goes to the block's record, as its head.
    auto finish = [&](int local, T value) {
        if (local) out[r.y0 + local] = value;
        else partials[2 * record_of<THREADS>(blockIdx.x, gridDim.x)] = value;
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
            else finish(y, acc);
            stop = r.stop_of(++y);
            acc = identity;
        }
    }
    const Run<T> inclusive = block_segmented_scan<BLOCK>(Run<T>{first_seg >= 0, acc}, op);
    inclusive_values[threadIdx.x] = inclusive.value;
    __syncthreads();
    if (first_seg >= 0)
        finish(first_seg, threadIdx.x ? op(inclusive_values[threadIdx.x - 1], first_value) : first_value);
    if (threadIdx.x == BLOCK - 1) {  // its inclusive value is the tail
        const unsigned record = record_of<THREADS>(blockIdx.x, gridDim.x);
        partials[2 * record + 1] = inclusive.value;
        closing[record] = nends ? r.y0 : -1;
    }
}

// The second kernel, one block of THREADS: the segments that the blocks of a
// segreduce close first, each op of its blocks' partials in block order (the
// tails of the blocks since the last to close one, then the head of the block
// closing it), an order fixed by the number of blocks alone. Thread t walks a
// run of blocks' records; what is open at the start of its run comes from the
// threads before through a segmented scan.
template <int THREADS, class T, class Op>
__device__ void combine_open_segments(long long blocks, const long long* closing, const T* partials, T* out,
                                      T identity, Op& op)
{
    constexpr int BATCH = 4;  // records a thread loads at once
    __shared__ T inclusive_values[THREADS];
    const long long chunk = (blocks + THREADS - 1) / THREADS, begin = threadIdx.x * chunk;
    const long long run = max(0ll, min(chunk, blocks - begin));  // the blocks of this thread's run
    long long first_seg = -1;  // the first segment this thread closes: it may be open in earlier threads' runs
    T first_value = identity, acc = identity;
    for (long long k0 = 0; k0 < run; k0 += BATCH) {
        long long seg[BATCH];
        T head[BATCH], tail[BATCH];
#pragma unroll
        for (int k = 0; k < BATCH; ++k) {
            const long long record = (k0 + k) * THREADS + threadIdx.x;  // record_of(begin + k0 + k)
            if (k0 + k < run) {
                seg[k] = closing[record];
                head[k] = partials[2 * record];  // written only where a segment closes, and read only there
                tail[k] = partials[2 * record + 1];
            }
        }
#pragma unroll
        for (int k = 0; k < BATCH; ++k) {
            if (k0 + k >= run) break;
            if (seg[k] >= 0) {
                const T value = op(acc, head[k]);
                if (first_seg < 0) { first_seg = seg[k]; first_value = value; }
                else out[seg[k]] = value;
                acc = tail[k];
            } else {
                acc = op(acc, tail[k]);
            }
        }
    }
    const Run<T> inclusive = block_segmented_scan<THREADS>(Run<T>{first_seg >= 0, acc}, op);
    inclusive_values[threadIdx.x] = inclusive.value;
    __syncthreads();
    if (first_seg >= 0) out[first_seg] = threadIdx.x ? op(inclusive_values[threadIdx.x - 1], first_value) : first_value;
}

}  // namespace minigr
