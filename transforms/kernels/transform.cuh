// transform: f(idx) for every idx in [0, n), grid-stride, so a fixed grid
// serves a count left on the device (n by address).
namespace minigr {

template <class Size, class F>
__device__ void transform(Size size, F& f)
{
    const long long n = value_of(size), stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) f(i);
}

// transform whose f(idx) returns Sums<K>: their sum over every idx is added
// into total[0..K) with the same bits on every run of a grid, whatever order
// its blocks end in (an atomicAdd a block added in that order, and PageRank's
// ranks differed in their last bits between two GPUs). Each block leaves its
// sum in its slot of partials (gridDim.x slots of K values) and counts itself
// in *arrivals: the last to arrive adds the slots up by a fixed tree and adds
// that into total. The count wraps to 0 there, ready for the next launch (a
// CUDA graph's replay, a persistent loop's next stage). Still one atomic a
// block, and a pass over the slots by the last.
template <int K, class Size, class F>
__device__ void transform_sums(Size size, F& f, double* total, double* partials, unsigned* arrivals)
{
    static_assert(Same<decltype(f(0ll)), Sums<K>>::value,
                  "a transform with sums= takes a functor returning minigr::Sums<K>, K = len(sums)");
    __shared__ bool last;
    const long long n = value_of(size), stride = (long long)gridDim.x * blockDim.x;
    Sums<K> sums{};
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) sums += f(i);
    sums = block_sum(sums);
    if (threadIdx.x == 0) {
        for (int k = 0; k < K; ++k) partials[blockIdx.x * K + k] = sums.at[k];
        last = count_acq_rel(arrivals, gridDim.x - 1) == gridDim.x - 1;  // releases the slot, acquires the others
    }
    __syncthreads();
    if (!last) return;
    Sums<K> slots{};
    for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x)
        for (int k = 0; k < K; ++k) slots.at[k] += __ldcg(&partials[b * K + k]);  // from L2: other SMs wrote them
    sums = block_sum(slots);
    if (threadIdx.x == 0)
        for (int k = 0; k < K; ++k) atomicAdd(&total[k], sums.at[k]);  // the one adder: no load to wait for
}

}  // namespace minigr
