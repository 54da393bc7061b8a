// A persistent loop's grid barrier: every block of a cooperative (all
// resident) grid arrives, and the last to arrive runs `serial` on one thread
// before it lets the others go on, so that one barrier both orders a loop's
// stages and runs its step. words = [state, timed out], 64-bit: state holds
// the arrivals (low 32 bits) and the generation (high 32 bits), whose lowest
// bit is what the last serial() decided. One atomic both arrives and tells a
// block the generation to wait past, and the load that sees the release also
// carries the decision: no other round trip to memory (each ~0.6 us on an
// H100: a level of a small frontier is a chain of them).
namespace minigr {

constexpr long long BARRIER_TIMEOUT_NS = 10000000000LL;  // a block waiting 10 s: the grid is not all resident

struct NoSerial {
    __device__ bool operator()() const { return true; }
};

// Acquire/release atomics at GPU scope: what a block wrote before it arrived
// is seen by every block after it leaves.
__device__ __forceinline__ unsigned long long arrive(unsigned long long* state)
{
    unsigned long long old;
    asm volatile("atom.add.acq_rel.gpu.u64 %0, [%1], 1;" : "=l"(old) : "l"(state) : "memory");
    return old;
}

// Returns what serial() decided at this barrier (false as well where a block
// gave up waiting: it sets words[1], and the loop ends).
template <class Serial>
__device__ bool grid_barrier(unsigned long long* words, const Serial& serial)
{
    __shared__ bool decision;
    __syncthreads();
    if (threadIdx.x == 0) {
        const unsigned long long old = arrive(words);
        const unsigned long long generation = old >> 33;  // above the decision bit
        if ((unsigned)old == gridDim.x - 1) {
            const bool go = serial();
            store_release(words, ((generation + 1) << 1 | go) << 32);  // no arrivals yet in the next
            decision = go;
        } else {
            const long long start = now_ns();
            unsigned long long now;
            for (unsigned spins = 1; ((now = load_acquire(words)) >> 33) == generation; ++spins) {
                if (spins % 1024 == 0 && now_ns() - start > BARRIER_TIMEOUT_NS) {
                    atomicExch(words + 1, 1ull);
                    break;
                }
            }
            decision = (now >> 33) != generation && (now >> 32 & 1);
        }
    }
    __syncthreads();
    return decision;
}

}  // namespace minigr
