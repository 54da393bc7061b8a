// A frontier on the device: a ring of `capacity` vertex ids read a level at a
// time. bounds holds the positions of the current level [HEAD, END), where the
// next level is being appended (up to TAIL), and counts kept for the loop's
// decisions. A frontier that keeps its levels (kept > 0) never reuses their
// room: levels[i] is where level i began, levels[i + 1] where it ended, so
// previous_level() can walk them back. Q is a functor struct with members ids,
// bounds, stamps, capacity, levels, kept (see minigr/frontier.py). The two
// words that appends add to have 128-byte lines of their own: beside the
// words every thread reads as a level begins, their atomics held those reads
// back (H100, 2026-11-27, persistent BFS rgg_n22 14.7 -> 11.0 ms, kron_s21_e16
// 0.50 -> 0.29; SSSP rgg_n22 39.2 -> 34.6).
namespace minigr {
namespace level {
enum : int {
    HEAD = 0,         // first position of the current level, below capacity
    END = 1,          // one past its last
    SIZE = 3,         // END - HEAD: the current level's vertex count
    EDGES = 4,        // the out-edges of the current level's vertices, as far as appenders said
    NUMBER = 6,       // how many levels began (stamps of unique appends)
    OVERFLOW = 7,     // 1 once an append found the ring full (or the kept levels too many): the result is void
    LEVEL = 8,        // levels made current since the reset: the current one is LEVEL - 1
    TAIL = 16,        // one past the last appended to the next level
    NEXT_EDGES = 32,  // the out-edges of the next level's vertices so far
    FIELDS = 33
};
}

template <class Q>
__device__ __forceinline__ long long ring_index(const Q& q, long long position)
{
    return position < q.capacity ? position : position - q.capacity;
}

// The i-th vertex of the current level.
template <class Q>
__device__ __forceinline__ int level_vertex(const Q& q, long long i)
{
    return q.ids[ring_index(q, q.bounds[level::HEAD] + i)];
}

// Stores an appended v at its ring position, or marks the frontier
// overflowed where the ring (or the kept levels' room) is full.
template <class Q>
__device__ __forceinline__ bool store_appended(const Q& q, long long position, int v)
{
    if (position - (q.kept ? 0 : q.bounds[level::HEAD]) >= q.capacity) {
        q.bounds[level::OVERFLOW] = 1;
        return false;
    }
    q.ids[ring_index(q, position)] = v;
    return true;
}

// An out-degree as the level's edge count adds it: below 2^26 exactly.
__device__ __forceinline__ unsigned counted_edges(long long edges) { return (unsigned)min(edges, 1LL << 26); }

// Appends v to the next level; with EDGES, `edges` (its out-degree) feeds the
// level's edge count, which direction choices read (without, loads that
// compute it are dropped by the compiler).
template <bool EDGES, class Q>
__device__ __forceinline__ void append_vertex(const Q& q, int v, long long edges)
{
    const long long position = aggregated_increment(&q.bounds[level::TAIL]);
    if (store_appended(q, position, v) && EDGES) aggregated_add(&q.bounds[level::NEXT_EDGES], counted_edges(edges));
}

// Whether v is not in this level yet, and now is (the stamps remember each
// vertex's last level number, 64-bit: a 32-bit one wrapped after 2^32 levels,
// ~4M calls of SSSP on one graph, and a stamp left from exactly that many
// levels before matched, dropping an append): one caller gets true. The
// exchange alone, with no load of the stamp before it: most callers are first,
// and the load was a round trip more. H100, 2026-11-27, persistent SSSP /
// idempotent BFS ms, load and exchange against exchange (.devrun/stampab.py,
// two rounds, 32-bit stamps): USA-road-d.NY
// 5.86-5.88 / 2.13-2.14 -> 5.36-5.47 / 2.09-2.13, grid_22 25.0-25.3 / 19.0 ->
// 24.0-24.2 / 18.0, rgg_n22 26.6 / 9.5-9.6 -> 26.0-26.1 / 9.2-9.4,
// luxembourg_osm 5.72 / 4.61-4.68 -> 5.49-5.60 / 4.45-4.58, kron_s21_e16
// 4.35-4.36 / 0.27-0.28 -> 4.37-4.43 / 0.27-0.31.
template <class Q>
__device__ __forceinline__ bool first_this_level(const Q& q, int v)
{
    const long long number = q.bounds[level::NUMBER];
    return atomicExch(&q.stamps[v], number) != number;
}

// Appends v unless this level already has it.
template <bool EDGES, class Q>
__device__ __forceinline__ void append_unique(const Q& q, int v, long long edges)
{
    if (first_this_level(q, v)) append_vertex<EDGES>(q, v, edges);
}

// Appends gathered per block: on an H100 atomics on one address take ~0.8 ns
// each, one after another, so a level of BFS on rgg_n22 (~1700 warps that
// append) waited ~1.3 us on each of the frontier's two counters. A block's
// threads stage their appends in shared memory and the block adds to each
// counter once (its pass's close); appends past STAGED go straight to the
// frontier. Only where every thread of a block opens and closes each pass
// together (segment_transform's block_open / block_close); the CPU appends.
#ifdef __CUDACC__
constexpr int STAGED = 1024;
struct Staged {
    int count;          // appends staged this pass, those past STAGED included
    unsigned edges;     // their out-edges (counted_edges)
    long long position;  // where the block's staged appends go in the ring
    int ids[STAGED];
};

__device__ __forceinline__ Staged& staged()
{
    __shared__ Staged block;
    return block;
}

template <class Q>
__device__ void open_staged(const Q&)
{
    __syncthreads();  // the last pass's close has read the stage
    if (threadIdx.x == 0) {
        staged().count = 0;
        staged().edges = 0;
    }
    __syncthreads();
}

template <bool EDGES, class Q>
__device__ __forceinline__ void stage_vertex(const Q& q, int v, long long edges)
{
    const int slot = atomicAdd(&staged().count, 1);
    if (slot >= STAGED) {
        append_vertex<EDGES>(q, v, edges);
        return;
    }
    staged().ids[slot] = v;
    if (EDGES) atomicAdd(&staged().edges, counted_edges(edges));
}

template <bool EDGES, class Q>
__device__ void close_staged(const Q& q)
{
    Staged& block = staged();
    __syncthreads();
    const int count = min(block.count, STAGED);
    if (threadIdx.x == 0) {
        if (count > 0) block.position = atomicAdd(&q.bounds[level::TAIL], (long long)count);
        if (EDGES && block.edges) atomicAdd(&q.bounds[level::NEXT_EDGES], (long long)block.edges);
    }
    __syncthreads();
    for (int i = threadIdx.x; i < count; i += blockDim.x) store_appended(q, block.position + i, block.ids[i]);
}
#else
template <class Q>
void open_staged(const Q&) {}
template <bool EDGES, class Q>
void stage_vertex(const Q& q, int v, long long edges) { append_vertex<EDGES>(q, v, edges); }
template <bool EDGES, class Q>
void close_staged(const Q&) {}
#endif

// Empties the current level (its vertices were dealt with); appends stay. One thread.
template <class Q>
__device__ void drop_level(const Q& q)
{
    q.bounds[level::HEAD] = ring_index(q, q.bounds[level::END]);
    q.bounds[level::TAIL] = q.bounds[level::HEAD] + (q.bounds[level::TAIL] - q.bounds[level::END]);
    q.bounds[level::END] = q.bounds[level::HEAD];
    q.bounds[level::SIZE] = 0;
}

// Makes the appended vertices the current level; returns its size. One thread.
// An overflowed frontier's next level is empty: its appends past the ring were
// counted but never stored, so a level of them would hand out ids no one wrote
// (a loop then ends, and its check says why).
template <class Q>
__device__ long long next_level(const Q& q)
{
    int64_t* b = q.bounds;
    const long long head = q.kept ? b[level::END] : ring_index(q, b[level::END]);  // kept levels never wrap
    const long long size = b[level::OVERFLOW] ? 0 : b[level::TAIL] - b[level::END];
    b[level::HEAD] = head;
    b[level::END] = b[level::TAIL] = head + size;
    b[level::SIZE] = size;
    b[level::EDGES] = b[level::NEXT_EDGES];
    b[level::NEXT_EDGES] = 0;
    b[level::NUMBER] += 1;
    const long long number = ++b[level::LEVEL];
    if (q.kept && number > q.kept) {
        b[level::OVERFLOW] = 1;
    } else if (q.kept) {
        q.levels[number - 1] = head;
        q.levels[number] = head + size;
    }
    return size;
}

// Makes the level before the current one current again (a frontier keeping
// its levels); returns its size, or 0 with an empty current level where
// there is none. Appends made since are dropped. One thread.
template <class Q>
__device__ long long previous_level(const Q& q)
{
    int64_t* b = q.bounds;
    if (b[level::LEVEL] <= 1) {
        b[level::LEVEL] = 0;
        b[level::HEAD] = b[level::END] = b[level::TAIL] = q.kept ? q.levels[0] : b[level::HEAD];
        b[level::SIZE] = 0;
        return 0;
    }
    const long long number = --b[level::LEVEL];
    b[level::HEAD] = q.levels[number - 1];
    b[level::END] = b[level::TAIL] = q.levels[number];
    b[level::SIZE] = b[level::END] - b[level::HEAD];
    b[level::EDGES] = b[level::NEXT_EDGES] = 0;
    return b[level::SIZE];
}

}  // namespace minigr
