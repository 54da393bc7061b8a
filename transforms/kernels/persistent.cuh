// A persistent loop's grid barrier: every block of a cooperative (all
// resident) grid arrives, and the last to arrive runs `serial` on one thread
// before it lets the others go on, so that one barrier both orders a loop's
// stages and runs its step. words = [arrived, generation, timed out].
namespace minigr {

constexpr long long BARRIER_TIMEOUT_NS = 10000000000LL;  // a block waiting 10 s: the grid is not all resident

struct NoSerial {
    __device__ void operator()() const {}
};

template <class Serial>
__device__ void grid_barrier(unsigned* words, const Serial& serial)
{
    __syncthreads();
    if (threadIdx.x == 0) {
        volatile unsigned* generation = words + 1;
        const unsigned seen = *generation;  // read before arriving: the release bumps it after
        __threadfence();
        if (atomicAdd(words, 1u) == gridDim.x - 1) {
            atomicExch(words, 0u);
            serial();
            __threadfence();
            atomicAdd(words + 1, 1u);
        } else {
            const long long start = now_ns();
            while (*generation == seen) {
                if (now_ns() - start > BARRIER_TIMEOUT_NS) {
                    atomicExch(words + 2, 1u);
                    break;
                }
            }
        }
        __threadfence();
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
