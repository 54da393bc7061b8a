// transform: f(idx) for every idx in [0, n), grid-stride.
namespace minigr {

template <class F>
__device__ void transform(long long n, F& f)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) f(i);
}

}  // namespace minigr
