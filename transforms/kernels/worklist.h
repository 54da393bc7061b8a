// A worklist: a queue of (item, key) pairs, each pushed once and taken once,
// for worklist_transform (worklist.cuh on the GPU, transforms_cpu.h on the
// CPU). slots[p] holds the p-th pushed pair as key << 32 | item, or EMPTY
// before it is pushed and again once taken, so a queue that ran to its end
// is ready for the next run. A pair whose key is not below the run's bound
// is deferred instead: appended to one of two lists, which split_deferred
// queues again once the bound rises (buckets of keys, as in delta-stepping).
namespace minigr {

constexpr unsigned long long WORKLIST_EMPTY = ~0ull;
constexpr unsigned NO_BOUND = ~0u;  // a queue without buckets

// words: one atomic both counts a push and gives its position, and pushed ==
// finished means that nothing is queued or being worked on. The takers'
// word and the deferrals' words have 128-byte lines of their own, away from
// the pushes' (async SSSP, USA-road-d.NY: 2.8 -> 2.55 ms, H100, 2026-11-27).
namespace worklist_word {
enum : int {
    COUNTS = 0,     // pushed << 32 | finished
    OVERFLOWED = 2, // 1 once a push or a deferral found no room: the run's result is void
    BOUND = 3,      // keys from here on are deferred
    LIST = 5,       // the list that deferrals go to (0 or 1)
    TO_SPLIT = 8,   // pairs of the last bucket's list, for split_deferred
    PUSHES = 9,     // pushes of the buckets before this one
    TAKEN = 16,     // positions taken by the workers
    SMALLEST = 32,  // the smallest key deferred in this bucket
    DEFERRED = 33,  // pairs in list 0, then list 1 (at 34)
    WORDS = 48
};
}

struct Worklist {
    unsigned long long* words;
    unsigned long long* slots;
    unsigned long long* deferred;  // two lists of `capacity` pairs (none without buckets: NO_BOUND)
    long long capacity;            // below 2^31, so the 32-bit counts cannot wrap
    unsigned bound;                // words[BOUND], read when the run began
    unsigned list;                 // words[LIST], the same
    bool ordered;                  // pairs published with release and taken with acquire (else relaxed)

    __device__ void overflow() const { atomicExch(&words[worklist_word::OVERFLOWED], 1ull); }

    // Queues (item, key), or defers it from its bound on (a bound of
    // NO_BOUND defers nothing). Past capacity it only sets OVERFLOWED, and
    // its caller runs again another way.
    __device__ void push(int item, unsigned key) const
    {
        const unsigned long long pair = (unsigned long long)key << 32 | (unsigned)item;
        if (key >= bound && bound != NO_BOUND) {
            const unsigned long long at = atomicAdd(&words[worklist_word::DEFERRED + list], 1ull);
            if (at >= (unsigned long long)capacity) return overflow();
            deferred[list * capacity + at] = pair;
            atomicMin(&words[worklist_word::SMALLEST], (unsigned long long)key);
            return;
        }
        const unsigned long long position = atomicAdd(&words[worklist_word::COUNTS], 1ull << 32) >> 32;
        if (position >= (unsigned long long)capacity) return overflow();
        if (ordered) store_release(slots + position, pair);
        else store_relaxed(slots + position, pair);
    }
};

// The queue of words, slots and deferred pairs, with the bound and list of the run now beginning.
__device__ __forceinline__ Worklist worklist_of(unsigned long long* words, unsigned long long* slots,
                                                unsigned long long* deferred, long long capacity, bool ordered = true)
{
    return {words, slots, deferred, capacity, (unsigned)words[worklist_word::BOUND],
            (unsigned)words[worklist_word::LIST], ordered};
}

// Between buckets, on one thread: the queue empty again, the bound raised to
// next(smallest deferred key, pairs the bucket queued), deferrals to the
// other list, whose pairs split_deferred then goes through.
template <class Next>
__device__ void next_bucket(const Worklist& queue, const Next& next)
{
    using namespace worklist_word;
    unsigned long long* words = queue.words;
    const unsigned long long list = words[LIST], queued = words[COUNTS] >> 32;
    words[PUSHES] += queued;
    words[COUNTS] = words[TAKEN] = 0;
    words[BOUND] = next((unsigned)words[SMALLEST], queued);
    words[SMALLEST] = WORKLIST_EMPTY;
    words[TO_SPLIT] = min(words[DEFERRED + list], (unsigned long long)queue.capacity);
    words[DEFERRED + list] = 0;
    words[LIST] = 1 - list;
}

// Deferred pair i of the last bucket: queued if below the new bound, else deferred again.
__device__ __forceinline__ void split_deferred(const Worklist& queue, long long i)
{
    const unsigned long long pair = queue.deferred[(1 - queue.list) * queue.capacity + i];
    queue.push((int)(unsigned)pair, (unsigned)(pair >> 32));
}

}  // namespace minigr
