// The functor dialect on the CPU: CUDA's qualifiers, atomics and intrinsics as
// plain serial C++, so the same functor source compiles with the system C++
// compiler. Execution is serial, so an atomic is a plain read-modify-write.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <algorithm>
#include <chrono>

#define __device__
#define __host__
#define __global__
#define __forceinline__ inline
#define __restrict__ __restrict

using std::min;
using std::max;
using namespace std;  // the CUDA math functions (sqrt, exp, fabs, ...) by their plain names

template <class T, class U> inline T atomicAdd(T* address, U value) { T old = *address; *address = old + (T)value; return old; }
template <class T, class U> inline T atomicSub(T* address, U value) { T old = *address; *address = old - (T)value; return old; }
template <class T, class U> inline T atomicMin(T* address, U value) { T old = *address; if ((T)value < old) *address = (T)value; return old; }
template <class T, class U> inline T atomicMax(T* address, U value) { T old = *address; if ((T)value > old) *address = (T)value; return old; }
template <class T, class U> inline T atomicExch(T* address, U value) { T old = *address; *address = (T)value; return old; }
template <class T, class U> inline T atomicOr(T* address, U value) { T old = *address; *address = old | (T)value; return old; }
template <class T, class U> inline T atomicAnd(T* address, U value) { T old = *address; *address = old & (T)value; return old; }
template <class T, class U, class V> inline T atomicCAS(T* address, U compare, V value)
{
    T old = *address;
    if (old == (T)compare) *address = (T)value;
    return old;
}
template <class T> inline T __ldg(const T* address) { return *address; }
template <class T> inline T __ldcs(const T* address) { return *address; }
template <class T> inline void __stcs(T* address, T value) { *address = value; }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }  // 1 + the lowest set bit's index; 0 for none
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }

namespace minigr {

inline long long now_ns() { return chrono::duration_cast<chrono::nanoseconds>(chrono::steady_clock::now().time_since_epoch()).count(); }

inline unsigned long long load_acquire(const unsigned long long* word) { return *word; }
inline unsigned long long load_relaxed(const unsigned long long* word) { return *word; }
inline void store_release(unsigned long long* word, unsigned long long value) { *word = value; }
inline void store_relaxed(unsigned long long* word, unsigned long long value) { *word = value; }

template <class T> inline T aggregated_increment(T* counter) { return (*counter)++; }
template <class T> inline void aggregated_add(T* counter, unsigned value) { *counter += value; }
template <class T, class U> inline void lower(T* cell, U value) { if ((T)value < *cell) *cell = (T)value; }
inline void aggregated_min(unsigned long long* cell, unsigned long long value) { if (value < *cell) *cell = value; }

template <class To, class From>
inline To bit_cast(From from)
{
    static_assert(sizeof(To) == sizeof(From), "bit_cast needs equal sizes");
    To to;
    std::memcpy(&to, &from, sizeof(To));
    return to;
}

}  // namespace minigr
