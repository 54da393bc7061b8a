// intersect_transform: for each pair p of sorted ranges of items, the items
// the two have in common, paired as a merge pairs them (the k-th copy of a
// value in one range with its k-th copy in the other), each given to
// f(p, ia, ib), and their number to count(p, common).
//
// A pair's work is cut into work items of about the same cost: with s and l
// the lengths of its shorter and longer range, either s binary searches in the
// longer range (log2(l) loads each), or, when both are long enough that the
// s + l steps of a merge cost less, its merge path in chunks of CHUNK steps.
// A block deals the work items of its BLOCK pairs out to its threads (a scan
// of their counts, then a search for each item's pair: Merrill and Garland's
// scan-based gather), so its threads stay busy whatever the mix of lengths:
// one huge range against many small ones, many empty ones. A pair's work
// stays in one block. Grid-stride over blocks of pairs, so a fixed grid serves
// a count left on the device.
namespace minigr {

// The first position in [lo, hi) whose item is not below v.
template <class T>
__device__ __forceinline__ long long lower_bound(const T* items, long long lo, long long hi, T v)
{
    while (lo < hi) {
        const long long mid = (lo + hi) >> 1;
        if (items[mid] < v) lo = mid + 1; else hi = mid;
    }
    return lo;
}

// A pair's ranges, the shorter first: X = [x0, x0 + s), Y = [y0, y0 + l).
// swapped: X is range b. merge: its work items are merge-path chunks, not searches.
struct IntersectPair {
    long long x0, y0, s, l;
    bool swapped, merge;
};

// Work item r of a searched pair: X's item r, looked up in Y. A copy of v
// with k copies before it in X pairs with the k-th copy in Y.
template <class T, class Emit>
__device__ void search_item(const T* items, const IntersectPair& q, long long r, Emit& emit)
{
    const long long i = q.x0 + r, y1 = q.y0 + q.l;
    const T v = items[i];
    long long k = 0;
    if (r > 0 && items[i - 1] == v) k = i - lower_bound(items, q.x0, i, v);
    const long long j = lower_bound(items, q.y0, y1, v) + k;
    if (j < y1 && items[j] == v) emit(i, j);
}

// Work item c of a merged pair: steps [c * CHUNK, (c + 1) * CHUNK) of the
// merge path of X and Y, which takes X's item first on ties. So when it takes
// Y[j] = v, every X item up to v is behind it: X's copies of v end just
// behind, and Y[j], the k-th copy of v in Y, pairs with X's k-th if there is
// one. x_run and y_run are where the runs of equal items holding the last X
// item taken and Y[j] start, or -1 where that is before the chunk (then
// searched for, if a match needs it).
template <int CHUNK, class T, class Emit>
__device__ void merge_chunk(const T* items, const IntersectPair& q, long long c, Emit& emit)
{
    const T* X = items + q.x0;
    const T* Y = items + q.y0;
    const long long s = q.s, l = q.l, d0 = c * CHUNK;
    long long lo = d0 > l ? d0 - l : 0, hi = d0 < s ? d0 : s;
    while (lo < hi) {  // X items among the path's first d0 steps
        const long long mid = (lo + hi) >> 1;
        if (X[mid] <= Y[d0 - 1 - mid]) lo = mid + 1; else hi = mid;
    }
    long long i = lo, j = d0 - lo, x_run = -1, y_run = -1;
    T x_prev = i > 0 ? X[i - 1] : T(), y_prev = j > 0 ? Y[j - 1] : T();
    T xi = i < s ? X[i] : T(), yj = j < l ? Y[j] : T();
    const int steps = (int)min((long long)CHUNK, s + l - d0);
    for (int step = 0; step < steps; ++step) {
        if (j == l || (i < s && xi <= yj)) {
            if (i == 0 || x_prev != xi) x_run = i;
            x_prev = xi;
            if (++i < s) xi = X[i];
        } else {
            if (j == 0 || y_prev != yj) y_run = j;
            if (i > 0 && x_prev == yj) {
                if (x_run < 0) x_run = lower_bound(X, 0, i, yj);
                if (y_run < 0) y_run = lower_bound(Y, 0, j, yj);
                if (j - y_run < i - x_run) emit(q.x0 + x_run + (j - y_run), q.y0 + j);
            }
            y_prev = yj;
            if (++j < l) yj = Y[j];
        }
    }
}

template <int BLOCK, int CHUNK, class Size, class T, class Pairs, class F, class Count>
__device__ void intersect(Size size, const T* items, Pairs& pairs, F& f, Count& count)
{
    __shared__ IntersectPair pair[BLOCK];
    __shared__ long long first_item[BLOCK];   // of each pair's work items, in the block's order
    __shared__ unsigned long long found[BLOCK];  // common items of each pair
    const long long n = value_of(size);
    for (long long base = (long long)blockIdx.x * BLOCK; base < n; base += (long long)gridDim.x * BLOCK) {
        const long long p = base + threadIdx.x;
        IntersectPair q{0, 0, 0, 0, false, false};
        long long work = 0;
        if (p < n) {
            long long a0 = 0, a1 = 0, b0 = 0, b1 = 0;
            pairs(p, a0, a1, b0, b1);
            const long long la = max(a1 - a0, 0LL), lb = max(b1 - b0, 0LL);
            q.swapped = lb < la;
            q.x0 = q.swapped ? b0 : a0;
            q.y0 = q.swapped ? a0 : b0;
            q.s = min(la, lb);
            q.l = max(la, lb);
            if (q.s > 0) {
                q.merge = q.s + q.l < q.s * (64 - __clzll(q.l));  // merge steps against search steps
                work = q.merge ? (q.s + q.l + CHUNK - 1) / CHUNK : q.s;
            }
        }
        long long total;
        const long long first = block_exclusive_sum<BLOCK>(work, total);
        pair[threadIdx.x] = q;
        first_item[threadIdx.x] = first;
        found[threadIdx.x] = 0;
        __syncthreads();
        int owner = 0;
        for (long long w = threadIdx.x; w < total; w += BLOCK) {
            // The last pair whose work starts at or before w (owners only grow with w).
            for (int step = BLOCK / 2; step > 0; step >>= 1)
                if (owner + step < BLOCK && first_item[owner + step] <= w) owner += step;
            const IntersectPair mine = pair[owner];
            const long long pair_index = base + owner;
            unsigned long long hits = 0;
            auto emit = [&](long long x, long long y) {
                f(pair_index, mine.swapped ? y : x, mine.swapped ? x : y);
                ++hits;
            };
            if (mine.merge) merge_chunk<CHUNK>(items, mine, w - first_item[owner], emit);
            else search_item(items, mine, w - first_item[owner], emit);
            if (hits) atomicAdd(&found[owner], hits);
        }
        __syncthreads();
        if (p < n) count(p, (long long)found[threadIdx.x]);
    }
}

}  // namespace minigr
