// What the transforms supply themselves, for both backends.
namespace minigr {

// A count, an iteration number or a threshold passed by value (known on the host) or by
// address (left on the device by earlier work, so no one waits to read it).
template <class T>
__device__ __forceinline__ T value_of(T value) { return value; }
template <class T>
__device__ __forceinline__ T value_of(T* address) { return *address; }

// K values that a functor returns to have them summed over all its calls
// (transform's `sums`): return {change, mass};
template <int K>
struct Sums {
    double at[K];
    __device__ Sums& operator+=(const Sums& other)
    {
        for (int k = 0; k < K; ++k) at[k] += other.at[k];
        return *this;
    }
};

// Whether A and B are one type (for static_asserts on what a functor returns).
template <class A, class B>
struct Same { static constexpr bool value = false; };
template <class A>
struct Same<A, A> { static constexpr bool value = true; };

// compact_transform's writer when none is given: the kept indices, in order.
struct KeptIndex {
    long long* out;
    __device__ void operator()(long long dest, long long src) const { out[dest] = src; }
};

// A decision's destination on the host: a flag that the host polls (1 or 0).
struct StoreFlag {
    long long* flag;
    __device__ void operator()(bool go) const { *flag = go ? 1 : 0; }
};

// One thread evaluates cond() and hands the result to signal: a flag for the
// host, or on the GPU a CUDA graph's conditional node (SetConditional).
template <class Cond, class Signal>
__device__ void decide(Cond& cond, Signal& signal)
{
    signal(cond());
}

}  // namespace minigr
