// transform: f(idx) for every idx in [0, n), grid-stride, so a fixed grid
// serves a count left on the device (n by address).
namespace minigr {

template <class Size, class F>
__device__ void transform(Size size, F& f)
{
    const long long n = value_of(size), stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) f(i);
}

}  // namespace minigr
