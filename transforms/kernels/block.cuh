// Block-wide building blocks shared by the GPU transforms.
namespace minigr {

// Shared-memory slot of item j in a tile of T: one pad element per 128 bytes, so
// that both the striped walk (item k*BLOCK+tid) and the blocked walk (item
// tid*ITEMS+k) over the tile are free of bank conflicts.
template <class T>
__device__ __forceinline__ int padded(int j) { return j + j / (128 / (int)sizeof(T)); }

template <class T>
constexpr int padded_size(int n) { return n + n / (128 / (int)sizeof(T)); }

// Exclusive prefix sum over the block's threads; every thread also gets the total.
template <int BLOCK>
__device__ long long block_exclusive_sum(long long x, long long& total)
{
    __shared__ long long warp_prefix[BLOCK / 32 + 1];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    long long inclusive = x;
    for (int d = 1; d < 32; d <<= 1) {
        long long y = __shfl_up_sync(FULL_MASK, inclusive, d);
        if (lane >= d) inclusive += y;
    }
    if (lane == 31) warp_prefix[warp] = inclusive;
    __syncthreads();
    if (warp == 0) {
        long long w = lane < BLOCK / 32 ? warp_prefix[lane] : 0;
        long long w_inclusive = w;
        for (int d = 1; d < 32; d <<= 1) {
            long long y = __shfl_up_sync(FULL_MASK, w_inclusive, d);
            if (lane >= d) w_inclusive += y;
        }
        if (lane < BLOCK / 32) warp_prefix[lane] = w_inclusive - w;
        if (lane == BLOCK / 32 - 1) warp_prefix[BLOCK / 32] = w_inclusive;
    }
    __syncthreads();
    total = warp_prefix[BLOCK / 32];
    long long result = warp_prefix[warp] + inclusive - x;
    __syncthreads();  // warp_prefix is reused by the next call
    return result;
}

// The sum of the block's threads' Sums<K>, in thread 0, by a fixed tree: the
// same bits whenever each thread brings the same values. Every thread of the
// block calls it, with zeros if it has none.
template <int K>
__device__ Sums<K> block_sum(Sums<K> sums)
{
    __shared__ double warp_sums[32][K];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int k = 0; k < K; ++k) {
        double x = sums.at[k];
        for (int d = 16; d > 0; d >>= 1) x += __shfl_xor_sync(FULL_MASK, x, d);
        if (lane == 0) warp_sums[warp][k] = x;
    }
    __syncthreads();
    if (warp == 0) {
        for (int k = 0; k < K; ++k) {
            double x = lane < (int)(blockDim.x >> 5) ? warp_sums[lane][k] : 0.0;
            for (int d = 16; d > 0; d >>= 1) x += __shfl_xor_sync(FULL_MASK, x, d);
            sums.at[k] = x;
        }
    }
    __syncthreads();  // warp_sums is reused by the next call
    return sums;
}

}  // namespace minigr
