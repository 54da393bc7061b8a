// segment_transform: f(item, seg, rank) for every item of segments 0..n-1,
// where bounds(seg, begin, end) gives segment seg's items [begin, end). A
// group of GROUP threads takes a segment; segments of at least BLOCK items
// are walked by the whole block, those of at least 32 by a warp, the rest by
// their group (Merrill, Garland and Grimshaw's thread/warp/CTA expansion,
// with groups so that short segments of many items keep threads busy). No
// scan and no partition, so one kernel on a fixed grid serves a count left on
// the device; merge-path lbs_transform balances better when the count is known.
namespace minigr {

template <int BLOCK, int GROUP, class Size, class Bounds, class F>
__device__ void segments(Size size, Bounds& bounds, F& f)
{
    static_assert(32 % GROUP == 0, "GROUP divides a warp");
    constexpr int PER_BLOCK = BLOCK / GROUP;
    __shared__ long long block_seg, block_begin, block_end;
    const long long n = value_of(size);
    const int lane = threadIdx.x & 31, member = threadIdx.x % GROUP;
    for (long long base = (long long)blockIdx.x * PER_BLOCK; base < n; base += (long long)gridDim.x * PER_BLOCK) {
        const long long seg = base + threadIdx.x / GROUP;
        long long begin = 0, end = 0;
        if (seg < n) bounds(seg, begin, end);
        for (;;) {  // the block's threads together, one big segment at a time
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
        for (;;) {  // the warp's lanes together, one mid-sized segment at a time
            const unsigned wanting = __ballot_sync(FULL_MASK, member == 0 && end - begin >= 32);
            if (!wanting) break;
            const int leader = __ffs(wanting) - 1;
            const long long s = __shfl_sync(FULL_MASK, seg, leader), b = __shfl_sync(FULL_MASK, begin, leader),
                            e = __shfl_sync(FULL_MASK, end, leader);
            if (seg == s) end = begin;
            for (long long i = b + lane; i < e; i += 32) f(i, s, i - b);
        }
        for (long long i = begin + member; i < end; i += GROUP) f(i, seg, i - begin);
    }
}

}  // namespace minigr
