// Functors that the transforms supply themselves, for both backends.
namespace minigr {

// compact_transform's writer when none is given: the kept indices, in order.
struct KeptIndex {
    long long* out;
    __device__ void operator()(long long dest, long long src) const { out[dest] = src; }
};

}  // namespace minigr
