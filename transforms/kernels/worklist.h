// A worklist: a queue of (item, key) pairs, each pushed once and taken once,
// for worklist_transform (worklist.cuh on the GPU, transforms_cpu.h on the
// CPU). slots[p] holds the p-th pushed pair as key << 32 | item, or EMPTY
// before it is pushed and again once taken, so a queue that ran to its end
// is ready for the next run. counters = [pushed << 32 | finished, taken,
// overflowed]: one atomic both counts a push and gives its position, and
// pushed == finished means that nothing is queued or being worked on.
namespace minigr {

constexpr unsigned long long WORKLIST_EMPTY = ~0ull;

struct Worklist {
    unsigned long long* slots;
    unsigned long long* counters;
    long long capacity;  // below 2^31, so the 32-bit counts cannot wrap

    // Queues (item, key). Past capacity it only sets overflowed: the run's
    // result is void, and its caller runs again another way.
    __device__ void push(int item, unsigned key) const
    {
        const unsigned long long position = atomicAdd(counters, 1ull << 32) >> 32;
        if (position >= (unsigned long long)capacity) {
            atomicExch(counters + 2, 1ull);
            return;
        }
        store_release(slots + position, (unsigned long long)key << 32 | (unsigned)item);
    }
};

}  // namespace minigr
