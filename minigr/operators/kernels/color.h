// Coloring's glue: a round of first-fit coloring in priority order for one
// vertex. Each vertex v lists its higher-priority neighbours (row v of the
// graph oriented towards higher priority: dag_offsets, dag_cols) and
// publishes state[v] = high << 32 | low: its color lies in [low, high], and
// low == high once it is known. A vertex takes the smallest color its known
// higher neighbours leave free as soon as no undecided higher neighbour can
// still take that color (ECL-GC's shortcut past Jones-Plassmann's wait for all
// of them): the sequential greedy coloring's choice. A state read while its
// vertex rewrites it in the same round is the old or the new one (one 64-bit
// word), each a true bound, so the colors do not depend on the order in which
// a round visits the vertices; only the number of rounds does.
// Self is the app's functor struct: members level (a frontier view), state,
// dag_offsets, dag_cols.
namespace minigr {

#ifdef __CUDACC__
constexpr int COLOR_WIDE = 32;  // threads per vertex with many higher neighbours: a warp
// The OR of `bits` over a group of GROUP consecutive lanes, in each of them.
template <int GROUP>
__device__ __forceinline__ unsigned long long group_or(unsigned long long bits)
{
    for (int d = GROUP / 2; d > 0; d >>= 1) bits |= __shfl_xor_sync(0xffffffffu, bits, d, GROUP);
    return bits;
}
__device__ __forceinline__ int lowest_set_bit(unsigned x) { return __ffs(x) - 1; }
#else
constexpr int COLOR_WIDE = 1;   // the CPU runs one item at a time
template <int GROUP>
inline unsigned long long group_or(unsigned long long bits)
{
    static_assert(GROUP == 1, "the CPU has no groups of threads");
    return bits;
}
inline int lowest_set_bit(unsigned x) { return __builtin_ctz(x); }
#endif

// What a higher neighbour's state says about the 32 colors from `base` on:
// the colors it surely has (low half), those it may still take (high half).
__device__ __forceinline__ unsigned long long window_bits(unsigned long long state, unsigned base)
{
    const unsigned low = (unsigned)state, high = (unsigned)(state >> 32);
    if (low == high) return low - base < 32 ? 1ull << (low - base) : 0;
    const unsigned first = max(low, base), last = min(high, base + 31);
    if (first > last) return 0;
    return ((2ull << (last - base)) - (1ull << (first - base))) << 32;
}

// Item i of a round over `level`: vertex i / GROUP, its DAG row split among
// GROUP consecutive threads (whole warps on the GPU, so every lane reaches the
// shuffle). The first lane decides, writes the state and keeps an undecided
// vertex for the next round.
template <int GROUP, class Self>
__device__ __forceinline__ void color_round(const Self& self, long long i)
{
    const int v = self.level.vertex(i / GROUP), lane = (int)(i % GROUP);
    const unsigned long long mine = self.state[v];
    const unsigned low = (unsigned)mine, high = (unsigned)(mine >> 32), base = low & ~31u;
    unsigned long long bits = 0;
    const long long end = self.dag_offsets[v + 1];
    for (long long e = self.dag_offsets[v] + lane; e < end; e += GROUP)
        bits |= window_bits(self.state[self.dag_cols[e]], base);
    bits = group_or<GROUP>(bits);
    if (lane != 0) return;
    const unsigned surely = (unsigned)bits, maybe = (unsigned)(bits >> 32);
    unsigned next_low, next_high = high;
    if (surely == ~0u) {
        next_low = base + 32;  // every color of the window is taken: look at the next 32
    } else {
        const int free = lowest_set_bit(~surely);
        next_low = base + free;
        if (!(maybe >> free & 1)) next_high = next_low;  // no undecided neighbour can take it
    }
    self.state[v] = (unsigned long long)next_high << 32 | next_low;
    if (next_low != next_high) self.level.append(v, 0);
}

}  // namespace minigr
