// Single-pass scan over counts produced by a functor, with decoupled look-back
// (Merrill and Garland): each tile publishes its aggregate, then its inclusive
// prefix, in one 64-bit status word (value << 2 | flag), so the counts are read
// once and never stored. scan_transform and compact_transform both use it.
namespace minigr {

constexpr unsigned long long STATUS_AGGREGATE = 1, STATUS_PREFIX = 2;

// The zeroed workspace of a look-back kernel: the tiles' status words, STRIDE
// words apart. Tiles poll their predecessors' words all the time, and words
// sharing a 128-byte line would queue those polls (and the stores they wait
// for) on one L2 slice.
template <int STRIDE>
struct Workspace {
    unsigned long long* words;

    __device__ unsigned long long* status(long long tile) const { return words + tile * STRIDE; }
};

__device__ __forceinline__ unsigned long long load_status(const unsigned long long* p)
{
    return *(const volatile unsigned long long*)p;
}

__device__ __forceinline__ void store_status(unsigned long long* p, long long value, unsigned long long flag)
{
    *(volatile unsigned long long*)p = ((unsigned long long)value << 2) | flag;
}

// Warp 0 of tile `tile` finds the sum of all earlier tiles, looking back 32 tiles
// at a time, and publishes its own inclusive prefix.
template <int STRIDE>
__device__ long long lookback(const Workspace<STRIDE>& work, long long tile, long long aggregate)
{
    const int lane = threadIdx.x & 31;
    if (tile == 0) {
        if (lane == 0) store_status(work.status(0), aggregate, STATUS_PREFIX);
        return 0;
    }
    if (lane == 0) store_status(work.status(tile), aggregate, STATUS_AGGREGATE);
    long long exclusive = 0;
    for (long long top = tile - 1;; top -= 32) {
        const long long t = top - lane;
        unsigned long long s;
        for (unsigned delay = 32;; delay = min(2 * delay, 1024u)) {  // back off: many warps poll the same words
            s = t >= 0 ? load_status(work.status(t)) : STATUS_PREFIX;  // before tile 0: prefix 0
            if (!__any_sync(FULL_MASK, (s & 3) == 0)) break;
            __nanosleep(delay);
        }
        const unsigned prefix_lanes = __ballot_sync(FULL_MASK, (s & 3) == STATUS_PREFIX);
        const int stop = prefix_lanes ? __ffs(prefix_lanes) - 1 : 31;
        long long v = lane <= stop ? ((long long)s >> 2) : 0;
        for (int d = 16; d > 0; d >>= 1) v += __shfl_xor_sync(FULL_MASK, v, d);
        exclusive += v;
        if (prefix_lanes) break;
    }
    if (lane == 0) store_status(work.status(tile), exclusive + aggregate, STATUS_PREFIX);
    return exclusive;
}

// Block b scans tile b. The GPU starts a grid's blocks in index order, so a
// tile waits only on tiles whose blocks are running or done, never on one that
// cannot start (CUB's single-pass scans rely on the same order). A tile counter
// bumped with an atomic would not rely on it, and cost 3% of compact's time.
__device__ __forceinline__ long long block_tile() { return blockIdx.x; }

// Counts of 1 or 2 bytes (flags, small counts) are kept in shared memory as int,
// half the traffic: a tile's offsets then stay below TILE * 65536 < 2^31. Wider
// counts are kept as long long; sums across tiles are always 64-bit.
template <class C> struct CountStorage { typedef long long type; };
template <> struct CountStorage<bool> { typedef int type; };
template <> struct CountStorage<char> { typedef int type; };
template <> struct CountStorage<signed char> { typedef int type; };
template <> struct CountStorage<unsigned char> { typedef int type; };
template <> struct CountStorage<short> { typedef int type; };
template <> struct CountStorage<unsigned short> { typedef int type; };

// Calls count(i) once per item, then emit(i, offset, count) with the exclusive
// offset; the last tile calls finish(total) first.
template <int BLOCK, int ITEMS, int STRIDE, class Count, class Emit, class Finish>
__device__ void scan_tiles(long long n, const Workspace<STRIDE>& work, Count& count, Emit& emit, Finish& finish)
{
    constexpr int TILE = BLOCK * ITEMS;
    static_assert(TILE <= 32768, "int tile offsets need TILE * 65536 < 2^31");
    typedef typename CountStorage<decltype(count(0LL))>::type S;
    __shared__ S items[padded_size<S>(TILE)];
    __shared__ long long tile_prefix;
    const long long tile = block_tile(), base = tile * TILE;

    S counts[ITEMS];
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        const int j = k * BLOCK + threadIdx.x;
        counts[k] = base + j < n ? (S)count(base + j) : 0;
        items[padded<S>(j)] = counts[k];
    }
    __syncthreads();
    long long thread_sum = 0;
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) thread_sum += items[padded<S>(threadIdx.x * ITEMS + k)];
    long long tile_sum;
    // Offsets within the tile replace the counts.
    long long running = block_exclusive_sum<BLOCK>(thread_sum, tile_sum);
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        const int j = padded<S>(threadIdx.x * ITEMS + k);
        const long long c = items[j];
        items[j] = (S)running;
        running += c;
    }
    if (threadIdx.x < 32) {
        const long long prefix = lookback(work, tile, tile_sum);
        if (threadIdx.x == 0) {
            tile_prefix = prefix;
            if (base + TILE >= n) finish(prefix + tile_sum);  // the host waits for it: before the stores
        }
    }
    __syncthreads();
    const long long prefix = tile_prefix;
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        const int j = k * BLOCK + threadIdx.x;
        if (base + j < n) emit(base + j, prefix + items[padded<S>(j)], counts[k]);
    }
}

// scan_transform: exclusive offsets of the counts, offsets[n] = total.
struct ScanEmit {
    long long* offsets;
    __device__ void operator()(long long i, long long offset, long long) const { offsets[i] = offset; }
};

struct StoreTotal {
    long long* last;   // offsets[n]
    long long* total;  // the host's copy
    __device__ void operator()(long long value) const { *last = value; *total = value; }
};

template <int BLOCK, int ITEMS, int STRIDE, class Count>
__device__ void scan(long long n, long long* offsets, long long* total, unsigned long long* workspace, Count& count)
{
    ScanEmit emit{offsets};
    StoreTotal finish{offsets + n, total};
    scan_tiles<BLOCK, ITEMS>(n, Workspace<STRIDE>{workspace}, count, emit, finish);
}

// compact_transform: write(dest, src) for every src whose predicate holds, in
// order, and how many in *count. Each warp takes 32 * ITEMS consecutive items
// and counts them with ballots, so a tile's sum is one number per warp.
template <int BLOCK, int ITEMS, int STRIDE, class Pred, class Write>
__device__ void compact(long long n, long long* count, unsigned long long* workspace, Pred& pred, Write&& write)
{
    constexpr int TILE = BLOCK * ITEMS;
    const Workspace<STRIDE> work{workspace};
    __shared__ long long tile_prefix;
    __shared__ unsigned ballots[BLOCK / 32][ITEMS];  // in shared memory: registers hold the loads in flight
    const long long tile = block_tile(), base = tile * TILE;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const long long start = base + (long long)warp * 32 * ITEMS;
    unsigned* masks = ballots[warp];

    // Every predicate of a chunk before any ballot, so that their loads are in
    // flight at once; only the last tile checks the bounds.
    constexpr int CHUNK = ITEMS < 32 ? ITEMS : 32;
    static_assert(ITEMS % CHUNK == 0, "ITEMS: below 32 or a multiple of 32");
    int warp_count = 0;
#pragma unroll 1
    for (int c = 0; c < ITEMS; c += CHUNK) {
        bool kept[CHUNK];
        if (base + TILE <= n) {
#pragma unroll
            for (int k = 0; k < CHUNK; ++k) kept[k] = pred(start + (c + k) * 32 + lane);
        } else {
#pragma unroll
            for (int k = 0; k < CHUNK; ++k) {
                const long long i = start + (c + k) * 32 + lane;
                kept[k] = i < n && pred(i);
            }
        }
#pragma unroll
        for (int k = 0; k < CHUNK; ++k) {
            const unsigned mask = __ballot_sync(FULL_MASK, kept[k]);
            if (lane == 0) masks[c + k] = mask;
            warp_count += __popc(mask);
        }
    }
    __shared__ int warp_counts[BLOCK / 32];  // summed by every thread: one barrier, not a block scan's three
    if (lane == 0) warp_counts[warp] = warp_count;
    __syncthreads();
    long long tile_sum = 0, warp_before = 0;
#pragma unroll
    for (int w = 0; w < BLOCK / 32; ++w) {
        const int c = warp_counts[w];
        if (w < warp) warp_before += c;
        tile_sum += c;
    }
    if (warp == 0) {
        const long long prefix = lookback(work, tile, tile_sum);
        if (lane == 0) {
            tile_prefix = prefix;
            if (base + TILE >= n) *count = prefix + tile_sum;  // the host waits for it: before the stores
        }
    }
    __syncthreads();
    long long dest = tile_prefix + warp_before;
    const unsigned lanes_below = (1u << lane) - 1;
#pragma unroll 8
    for (int k = 0; k < ITEMS; ++k) {
        const unsigned mask = masks[k];
        if ((mask >> lane) & 1) write(dest + __popc(mask & lanes_below), start + k * 32 + lane);
        dest += __popc(mask);
    }
}

}  // namespace minigr
