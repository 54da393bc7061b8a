// A persistent loop's grid barrier: every block of a cooperative (all
// resident) grid arrives, and the last to arrive runs `serial` on one thread
// before it lets the others go on, so that one barrier both orders a loop's
// stages and runs its step. words = [arrived, generation, timed out].
namespace minigr {

constexpr long long BARRIER_TIMEOUT_NS = 10000000000LL;  // a block waiting 10 s: the grid is not all resident

struct NoSerial {
    __device__ void operator()() const {}
};

// Arrival counts and the release use acquire/release atomics at GPU scope:
// what a block wrote before it arrived is seen by every block after it leaves.
__device__ __forceinline__ unsigned arrive(unsigned* counter)
{
    unsigned old;
    asm volatile("atom.add.acq_rel.gpu.u32 %0, [%1], 1;" : "=r"(old) : "l"(counter) : "memory");
    return old;
}

__device__ __forceinline__ unsigned load_acquire(const unsigned* word)
{
    unsigned value;
    asm volatile("ld.acquire.gpu.u32 %0, [%1];" : "=r"(value) : "l"(word) : "memory");
    return value;
}

__device__ __forceinline__ void release_increment(unsigned* word)
{
    asm volatile("red.release.gpu.global.add.u32 [%0], 1;" : : "l"(word) : "memory");
}

template <class Serial>
__device__ void grid_barrier(unsigned* words, const Serial& serial)
{
    __syncthreads();
    if (threadIdx.x == 0) {
        const unsigned seen = load_acquire(words + 1);  // read before arriving: the release bumps it after
        if (arrive(words) == gridDim.x - 1) {
            words[0] = 0;
            serial();
            release_increment(words + 1);
        } else {
            const long long start = now_ns();
            for (unsigned spins = 1; load_acquire(words + 1) == seen; ++spins) {
                if (spins % 1024 == 0 && now_ns() - start > BARRIER_TIMEOUT_NS) {
                    atomicExch(words + 2, 1u);
                    break;
                }
            }
        }
    }
    __syncthreads();
}

// The step that ends an iteration: go = step(), decided by one thread.
template <class Step>
struct StepInto {
    const Step& step;
    int* go;
    __device__ void operator()() const { *(volatile int*)go = step() ? 1 : 0; }
};

// Ends an iteration: a barrier that runs the loop's step; whether to go on.
template <class Step>
__device__ bool end_iteration(unsigned* words, const Step& step, int* go)
{
    __shared__ int decision;
    grid_barrier(words, StepInto<Step>{step, go});
    if (threadIdx.x == 0) decision = *(volatile int*)go && !*(volatile unsigned*)(words + 2);
    __syncthreads();
    return decision;
}

}  // namespace minigr
