// The functor dialect on the GPU: fixed-width integer names and the few
// overloads CUDA lacks, so functor source reads the same on both backends.
typedef signed char int8_t;
typedef unsigned char uint8_t;
typedef short int16_t;
typedef unsigned short uint16_t;
typedef int int32_t;
typedef unsigned int uint32_t;
typedef long long int64_t;
typedef unsigned long long uint64_t;

__device__ __forceinline__ long long atomicAdd(long long* address, long long value)
{
    return (long long)atomicAdd((unsigned long long*)address, (unsigned long long)value);
}

__device__ __forceinline__ long long atomicExch(long long* address, long long value)
{
    return (long long)atomicExch((unsigned long long*)address, (unsigned long long)value);
}

__device__ __forceinline__ long long atomicCAS(long long* address, long long compare, long long value)
{
    return (long long)atomicCAS((unsigned long long*)address, (unsigned long long)compare,
                                (unsigned long long)value);
}

// Sets a CUDA graph's conditional handle; the driver resolves it when the module
// loads (no header or device runtime library needed).
typedef __device_builtin__ unsigned long long cudaGraphConditionalHandle;
extern "C" __device__ __cudart_builtin__ void cudaGraphSetConditional(cudaGraphConditionalHandle handle,
                                                                     unsigned int value);

namespace minigr {

constexpr unsigned FULL_MASK = 0xffffffffu;  // every lane of a warp

// atomicAdd(counter, 1) for every calling lane of a warp with one atomic:
// returns each lane's own slot, in lane order.
__device__ __forceinline__ long long aggregated_increment(long long* counter)
{
    const unsigned lanes = __activemask();
    const int lane = threadIdx.x & 31, leader = __ffs(lanes) - 1;
    long long first = 0;
    if (lane == leader) first = atomicAdd(counter, (long long)__popc(lanes));
    first = __shfl_sync(lanes, first, leader);
    return first + __popc(lanes & ((1u << lane) - 1));
}

// atomicAdd(counter, value) for every calling lane of a warp with one atomic;
// values are summed as 32-bit, so keep them under 2^26.
__device__ __forceinline__ void aggregated_add(long long* counter, unsigned value)
{
    const unsigned lanes = __activemask();
    const unsigned sum = __reduce_add_sync(lanes, value);
    if ((threadIdx.x & 31) == __ffs(lanes) - 1) atomicAdd(counter, (long long)sum);
}

// A decision's destination in a CUDA graph: the conditional node of `handle`.
struct SetConditional {
    unsigned long long handle;
    __device__ void operator()(bool go) const { cudaGraphSetConditional(handle, go ? 1u : 0u); }
};

// atomicMin(cell, value) only where the cell holds more, by a load first: a
// cell that only falls and that many threads offer the same values to (a
// component's lowest label, the least degree left) then takes atomics from
// the few that lower it, not from all, which queue on its address. It waits
// for the load, where a bare atomicMin whose result goes unused does not
// wait: SSSP's far_min, offered distinct distances, was 1.5% slower with the
// load (rgg_n22), and takes aggregated_min below.
template <class T, class U>
__device__ __forceinline__ void lower(T* cell, U value)
{
    if ((T)value < *(volatile T*)cell) atomicMin(cell, (T)value);
}

// atomicMin(cell, value) for every calling lane of a warp with one atomic:
// the lanes' least value by two 32-bit warp reductions (atomics on one
// address queue one after another, ~0.8 ns each on an H100).
__device__ __forceinline__ void aggregated_min(unsigned long long* cell, unsigned long long value)
{
    const unsigned lanes = __activemask(), high = (unsigned)(value >> 32);
    const unsigned least_high = __reduce_min_sync(lanes, high);
    const unsigned tied = __ballot_sync(lanes, high == least_high);
    if (high != least_high) return;
    const unsigned least_low = __reduce_min_sync(tied, (unsigned)value);
    if ((int)(threadIdx.x & 31) == __ffs(tied) - 1) atomicMin(cell, (unsigned long long)least_high << 32 | least_low);
}

// Reinterprets the bits of one type as another of the same size.
template <class To, class From>
__device__ __forceinline__ To bit_cast(From from)
{
    static_assert(sizeof(To) == sizeof(From), "bit_cast needs equal sizes");
    union { From from; To to; } u;
    u.from = from;
    return u.to;
}

// Loads and stores at GPU scope for data that other blocks write while a
// kernel runs: acquire sees what was written before a release it reads.
__device__ __forceinline__ unsigned long long load_acquire(const unsigned long long* word)
{
    unsigned long long value;
    asm volatile("ld.acquire.gpu.u64 %0, [%1];" : "=l"(value) : "l"(word) : "memory");
    return value;
}

__device__ __forceinline__ unsigned long long load_relaxed(const unsigned long long* word)
{
    unsigned long long value;
    asm volatile("ld.relaxed.gpu.u64 %0, [%1];" : "=l"(value) : "l"(word) : "memory");
    return value;
}

__device__ __forceinline__ void store_release(unsigned long long* word, unsigned long long value)
{
    asm volatile("st.release.gpu.u64 [%0], %1;" : : "l"(word), "l"(value) : "memory");
}

__device__ __forceinline__ void store_relaxed(unsigned long long* word, unsigned long long value)
{
    asm volatile("st.relaxed.gpu.u64 [%0], %1;" : : "l"(word), "l"(value) : "memory");
}

// atomicInc at GPU scope, acquire and release: returns the count and leaves
// it one more, or 0 where it was `last`. The thread that takes a count sees
// what every thread that took one before it wrote before taking it.
__device__ __forceinline__ unsigned count_acq_rel(unsigned* counter, unsigned last)
{
    unsigned old;
    asm volatile("atom.acq_rel.gpu.inc.u32 %0, [%1], %2;" : "=r"(old) : "l"(counter), "r"(last) : "memory");
    return old;
}

// A clock in nanoseconds that every SM of the GPU agrees on (for timing phases).
__device__ __forceinline__ long long now_ns()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return (long long)t;
}

}  // namespace minigr
