// worklist_transform on the GPU: every thread takes the next position of the
// queue, waits for its pair to be pushed (or for the queue to run dry), calls
// f(item, key, queue), which may push more, and takes the next. No levels and
// no barrier: a chain of pushes runs at the latency of its own loads
// (asynchronous label correcting, as in Atos). A pair is published with a
// release store and taken with an acquire load, so f sees what its pusher
// wrote before the push (unless the queue is not `ordered`: then both are
// relaxed, and f sees the pair alone). LANES of each warp work (32, or 1: a warp of its
// own each, whose chains no warp-mate's wait holds up); the others leave.
namespace minigr {

template <int LANES, class F>
__device__ void worklist(const Worklist& queue, F& f)
{
    using namespace worklist_word;
    if (threadIdx.x % 32 >= LANES) return;
    for (;;) {
        const unsigned long long position = atomicAdd(&queue.words[TAKEN], 1ull);
        if (position >= (unsigned long long)queue.capacity) return;
        unsigned long long* const slot = queue.slots + position;
        unsigned long long pair;
        for (unsigned spins = 1; (pair = queue.ordered ? load_acquire(slot) : load_relaxed(slot)) == WORKLIST_EMPTY;
             ++spins) {
            if (spins % 8 == 0) {  // now and then: has the queue run dry, or overflowed?
                const unsigned long long counts = load_relaxed(&queue.words[COUNTS]);
                if (counts >> 32 == (counts & 0xffffffffull) || load_relaxed(&queue.words[OVERFLOWED])) return;
            }
        }
        *slot = WORKLIST_EMPTY;
        f((int)(unsigned)pair, (unsigned)(pair >> 32), queue);
        atomicAdd(&queue.words[COUNTS], 1ull);  // finished, after the pushes it made counted
    }
}

}  // namespace minigr
