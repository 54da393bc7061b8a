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

namespace minigr {

// Reinterprets the bits of one type as another of the same size.
template <class To, class From>
__device__ __forceinline__ To bit_cast(From from)
{
    static_assert(sizeof(To) == sizeof(From), "bit_cast needs equal sizes");
    union { From from; To to; } u;
    u.from = from;
    return u.to;
}

}  // namespace minigr
