// A frontier on the device: a ring of `capacity` vertex ids read a level at a
// time. bounds holds the positions of the current level [HEAD, END), where the
// next level is being appended (up to TAIL), and counts kept for the loop's
// decisions. Q is a functor struct with members ids, bounds, stamps, capacity
// (see minigr/frontier.py).
namespace minigr {
namespace level {
enum : int {
    HEAD = 0,        // first position of the current level, below capacity
    END = 1,         // one past its last
    TAIL = 2,        // one past the last appended to the next level
    SIZE = 3,        // END - HEAD: the current level's vertex count
    EDGES = 4,       // the out-edges of the current level's vertices, as far as appenders said
    NEXT_EDGES = 5,  // the same, of the next level so far
    NUMBER = 6,      // how many levels began (stamps of unique appends)
    OVERFLOW = 7,    // 1 once an append found the ring full: the result is void
    FIELDS = 8
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

// Appends v to the next level; with EDGES, `edges` (its out-degree, below
// 2^26 counts exactly) feeds the level's edge count, which direction choices
// read (without, loads that compute it are dropped by the compiler).
template <bool EDGES, class Q>
__device__ __forceinline__ void append_vertex(const Q& q, int v, long long edges)
{
    const long long position = aggregated_increment(&q.bounds[level::TAIL]);
    if (position - q.bounds[level::HEAD] >= q.capacity) {
        q.bounds[level::OVERFLOW] = 1;
        return;
    }
    q.ids[ring_index(q, position)] = v;
    if (EDGES) aggregated_add(&q.bounds[level::NEXT_EDGES], (unsigned)min(edges, 1LL << 26));
}

// Appends v unless this level already has it (the stamps remember each
// vertex's last level).
template <bool EDGES, class Q>
__device__ __forceinline__ void append_unique(const Q& q, int v, long long edges)
{
    const int number = (int)q.bounds[level::NUMBER];
    if (q.stamps[v] == number || atomicExch(&q.stamps[v], number) == number) return;
    append_vertex<EDGES>(q, v, edges);
}

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
template <class Q>
__device__ long long next_level(const Q& q)
{
    int64_t* b = q.bounds;
    const long long head = ring_index(q, b[level::END]), size = b[level::TAIL] - b[level::END];
    b[level::HEAD] = head;
    b[level::END] = b[level::TAIL] = head + size;
    b[level::SIZE] = size;
    b[level::EDGES] = b[level::NEXT_EDGES];
    b[level::NEXT_EDGES] = 0;
    b[level::NUMBER] += 1;
    return size;
}

}  // namespace minigr
