// segment_transform: f(item, seg, rank) for every item of segments 0..n-1,
// where bounds(seg, begin, end) gives segment seg's items [begin, end). A
// group of GROUP threads takes a segment, or more (up to MAX_GROUP) where the
// grid has threads to spare for n segments; segments of at least BLOCK items
// are walked by the whole block, those of at least 32 by a warp, the rest by
// their group (Merrill, Garland and Grimshaw's thread/warp/CTA expansion,
// with groups so that short segments of many items keep threads busy).
// Segments of at least HUGE items go to a list that a second kernel walks
// with the whole grid, so that one vertex of a million edges does not wait
// on one block. No scan and no partition, so the kernels run on a fixed grid
// that a count left on the device does not change; merge-path lbs_transform
// balances better when the count is known on the host.
namespace minigr {

constexpr long long HUGE = 4096;
constexpr int HUGE_LIST = 1024;  // huge segments a call can hand to the grid; more stay with their block

// f may keep state per block across its calls (appends gathered in shared
// memory, so that a block adds to a counter once, not a warp at a time): it
// then defines block_open() and block_close(), which every thread of a block
// calls together before and after each pass over segments.
template <class F, class = void>
struct HasBlockPass { static constexpr bool value = false; };
template <class F>
struct HasBlockPass<F, decltype((void)&F::block_close)> { static constexpr bool value = true; };

template <class F>
__device__ __forceinline__ void block_open(F& f)
{
    if constexpr (HasBlockPass<F>::value) f.block_open();
}

template <class F>
__device__ __forceinline__ void block_close(F& f)
{
    if constexpr (HasBlockPass<F>::value) f.block_close();
}

// The list of huge segments of one call, kept per device (transforms/api.py):
// counters = [segments listed, blocks done walking them].
struct HugeList {
    long long* counters;
    long long* segments;  // seg, begin, end for each

    __device__ bool add(long long seg, long long begin, long long end) const
    {
        const long long slot = atomicAdd(&counters[0], 1LL);
        if (slot >= HUGE_LIST) return false;
        segments[3 * slot] = seg;
        segments[3 * slot + 1] = begin;
        segments[3 * slot + 2] = end;
        return true;
    }
};

// WIDEST: the widest walkers the segments need (0 a group, 1 a warp, 2 a
// block), by a bound on their lengths: the loops of wider ones, with their
// barriers and ballots, are left out where no segment would use them.
template <int BLOCK, int GROUP, bool LIST_HUGE, int WIDEST, class Size, class Bounds, class F>
__device__ void segments_in_groups(Size size, const HugeList& huge, Bounds& bounds, F& f)
{
    static_assert(32 % GROUP == 0, "GROUP divides a warp");
    constexpr int PER_BLOCK = BLOCK / GROUP;
    __shared__ long long block_seg, block_begin, block_end;
    const long long n = value_of(size);
    const int lane = threadIdx.x & 31, member = threadIdx.x % GROUP;
    for (long long base = (long long)blockIdx.x * PER_BLOCK; base < n; base += (long long)gridDim.x * PER_BLOCK) {
        block_open(f);
        const long long seg = base + threadIdx.x / GROUP;
        long long begin = 0, end = 0;
        if (seg < n) bounds(seg, begin, end);
        if (LIST_HUGE && end - begin >= HUGE && (member != 0 || huge.add(seg, begin, end))) end = begin;
        for (; WIDEST >= 2;) {  // the block's threads together, one big segment at a time
            if (threadIdx.x == 0) block_seg = -1;
            __syncthreads();
            if (member == 0 && end - begin >= BLOCK) block_seg = seg;  // one of the writers wins
            __syncthreads();
            const long long claimed = block_seg;
            if (claimed < 0) break;
            if (claimed == seg) {
                if (member == 0) {
                    block_begin = begin;
                    block_end = end;
                }
                end = begin;
            }
            __syncthreads();
            const long long b = block_begin, e = block_end;
            for (long long i = b + threadIdx.x; i < e; i += BLOCK) f(i, claimed, i - b);
            __syncthreads();
        }
        for (; WIDEST >= 1;) {  // the warp's lanes together, one mid-sized segment at a time
            const unsigned wanting = __ballot_sync(FULL_MASK, member == 0 && end - begin >= 32);
            if (!wanting) break;
            const int leader = __ffs(wanting) - 1;
            const long long s = __shfl_sync(FULL_MASK, seg, leader), b = __shfl_sync(FULL_MASK, begin, leader),
                            e = __shfl_sync(FULL_MASK, end, leader);
            if (seg == s) end = begin;
            for (long long i = b + lane; i < e; i += 32) f(i, s, i - b);
        }
        for (long long i = begin + member; i < end; i += GROUP) f(i, seg, i - begin);
        block_close(f);
    }
}

// The group widened while the grid's threads cover n segments at twice its
// width: a small level (a BFS frontier of a few thousand vertices, each
// thread's edges a chain of round trips to memory) is bound by its longest
// chain, which a wider group shortens. H100, 2026-11-27, persistent BFS /
// SSSP ms, fixed groups against widened: grid_22 26.5 / 41.7 against 16.5 /
// 30.0, rgg_n22 16.8 / 45.4 against 14.7 / 39.3, USA-road-d.NY 3.7 / 9.9
// against 2.0 / 6.2. Every thread reads the same n (once), so all take one width.
template <int BLOCK, int GROUP, int MAX_GROUP, bool LIST_HUGE, int WIDEST, class Size, class Bounds, class F>
__device__ void segments(Size size, const HugeList& huge, Bounds& bounds, F& f)
{
    const long long n = value_of(size);
    if constexpr (GROUP < MAX_GROUP) {
        if (n * (2 * GROUP) <= (long long)gridDim.x * BLOCK) {
            segments<BLOCK, 2 * GROUP, MAX_GROUP, LIST_HUGE, WIDEST>(n, huge, bounds, f);
            return;
        }
    }
    segments_in_groups<BLOCK, GROUP, LIST_HUGE, WIDEST>(n, huge, bounds, f);
}

// The second kernel: every item of the listed huge segments, grid-stride over
// their concatenation. The last block to finish empties the list.
template <int BLOCK, class F>
__device__ void huge_segments(const HugeList& huge, F& f)
{
    constexpr int PER_THREAD = HUGE_LIST / BLOCK;
    __shared__ long long starts[HUGE_LIST + 1];
    const int listed = (int)min(*(volatile long long*)&huge.counters[0], (long long)HUGE_LIST);
    long long lengths[PER_THREAD], sum = 0;
#pragma unroll
    for (int k = 0; k < PER_THREAD; ++k) {
        const int j = threadIdx.x * PER_THREAD + k;
        lengths[k] = j < listed ? huge.segments[3 * j + 2] - huge.segments[3 * j + 1] : 0;
        sum += lengths[k];
    }
    long long total;
    long long start = block_exclusive_sum<BLOCK>(sum, total);
#pragma unroll
    for (int k = 0; k < PER_THREAD; ++k) {
        starts[threadIdx.x * PER_THREAD + k] = start;
        start += lengths[k];
    }
    if (threadIdx.x == 0) starts[HUGE_LIST] = total;
    __syncthreads();
    block_open(f);
    for (long long t = (long long)blockIdx.x * BLOCK + threadIdx.x; t < total; t += (long long)gridDim.x * BLOCK) {
        int lo = 0, hi = listed - 1;  // the last segment starting at or before t
        while (lo < hi) {
            const int mid = (lo + hi + 1) >> 1;
            if (starts[mid] <= t) lo = mid; else hi = mid - 1;
        }
        const long long rank = t - starts[lo];
        f(huge.segments[3 * lo + 1] + rank, huge.segments[3 * lo], rank);
    }
    block_close(f);
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        if (atomicAdd(&huge.counters[1], 1LL) == gridDim.x - 1) {
            huge.counters[0] = 0;
            huge.counters[1] = 0;
        }
    }
}

}  // namespace minigr
