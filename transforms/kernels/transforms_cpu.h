// The transforms on the CPU: plain serial loops over the same functors.
namespace minigr {

template <class Size, class F>
void transform(Size size, F& f)
{
    const long long n = value_of(size);
    for (long long i = 0; i < n; ++i) f(i);
}

template <int K, class Size, class F>
void transform_sums(Size size, F& f, double* total, double* /* partials: unused here */,
                    unsigned* /* arrivals: unused here */)
{
    static_assert(Same<decltype(f(0ll)), Sums<K>>::value,
                  "a transform with sums= takes a functor returning minigr::Sums<K>, K = len(sums)");
    const long long n = value_of(size);
    Sums<K> sums{};
    for (long long i = 0; i < n; ++i) sums += f(i);
    for (int k = 0; k < K; ++k) total[k] += sums.at[k];
}

template <class Size, class Bounds, class F>
void segments(Size size, Bounds& bounds, F& f)
{
    const long long n = value_of(size);
    for (long long s = 0; s < n; ++s) {
        long long begin = 0, end = 0;
        bounds(s, begin, end);
        for (long long i = begin; i < end; ++i) f(i, s, i - begin);
    }
}

template <class Count>
void scan(long long n, long long* offsets, long long* total, unsigned long long* /* workspace: unused here */,
          Count& count)
{
    long long running = 0;
    for (long long i = 0; i < n; ++i) {
        offsets[i] = running;
        running += (long long)count(i);
    }
    offsets[n] = *total = running;
}

template <class Pred, class Write>
void compact(long long n, long long* count, unsigned long long* /* workspace: unused here */, Pred& pred, Write&& write)
{
    long long kept = 0;
    for (long long i = 0; i < n; ++i)
        if (pred(i)) write(kept++, i);
    *count = kept;
}

template <class O, class F>
void lbs(const O* offsets, long long nseg, F& f)
{
    for (long long s = 0; s < nseg; ++s)
        for (long long i = offsets[s]; i < (long long)offsets[s + 1]; ++i) f(i, s, i - (long long)offsets[s]);
}

// Serial execution: a plain combine is atomic.
template <class T, class Op>
void atomic_combine(T* address, T value, const Op& op)
{
    *address = op(*address, value);
}

template <class O, class T, class F, class Op>
void segreduce(const O* offsets, long long nseg, T* out, T identity, F& f, Op& op)
{
    for (long long s = 0; s < nseg; ++s) {
        T acc = identity;
        for (long long i = offsets[s]; i < (long long)offsets[s + 1]; ++i)
            acc = op(acc, (T)f(i, s, i - (long long)offsets[s]));
        out[s] = acc;
    }
}

// intersect_transform: a plain merge of each pair's two ranges.
template <class Size, class T, class Pairs, class F, class Count>
void intersect(Size size, const T* items, Pairs& pairs, F& f, Count& count)
{
    const long long n = value_of(size);
    for (long long p = 0; p < n; ++p) {
        long long ia = 0, a_end = 0, ib = 0, b_end = 0;
        pairs(p, ia, a_end, ib, b_end);
        long long common = 0;
        while (ia < a_end && ib < b_end) {
            if (items[ia] < items[ib]) {
                ++ia;
            } else if (items[ib] < items[ia]) {
                ++ib;
            } else {
                f(p, ia++, ib++);
                ++common;
            }
        }
        count(p, common);
    }
}

// worklist_transform: the queue in order, one pair at a time, until it is empty.
template <class F>
void worklist(const Worklist& queue, F& f)
{
    unsigned long long* words = queue.words;
    for (long long position = 0; position < (long long)(words[worklist_word::COUNTS] >> 32) &&
                                 !words[worklist_word::OVERFLOWED]; ++position) {
        const unsigned long long pair = queue.slots[position];
        queue.slots[position] = WORKLIST_EMPTY;
        f((int)(unsigned)pair, (unsigned)(pair >> 32), queue);
        words[worklist_word::COUNTS] += 1;
    }
}

}  // namespace minigr
