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
// into total[0..K), one atomic per value and block.
template <int K, class Size, class F>
__device__ void transform_sums(Size size, F& f, double* total)
{
    static_assert(Same<decltype(f(0ll)), Sums<K>>::value,
                  "a transform with sums= takes a functor returning minigr::Sums<K>, K = len(sums)");
    const long long n = value_of(size), stride = (long long)gridDim.x * blockDim.x;
    Sums<K> sums{};
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) sums += f(i);
    add_block_sums(total, sums);
}

}  // namespace minigr
