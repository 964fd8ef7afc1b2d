// <cuda/std/utility> for kernelc: libcu++'s `pair`, `make_pair`, `swap` and
// `exchange`, in libcu++'s inline namespace `cuda::std::__4` (which nvcc's
// names spell out: `N4cuda3std3__44pairIifEE`). `move` and `forward` are
// built in (frontend/src/sema/expr.rs).
#pragma once

namespace cuda {
namespace std {
inline namespace __4 {

template <class T1, class T2> struct pair {
  typedef T1 first_type;
  typedef T2 second_type;
  T1 first;
  T2 second;
  __host__ __device__ constexpr pair() : first(), second() {}
  __host__ __device__ constexpr pair(const T1 &a, const T2 &b) : first(a), second(b) {}
  template <class U1, class U2>
  __host__ __device__ constexpr pair(const pair<U1, U2> &p) : first(p.first), second(p.second) {}
};

// The pair of the arguments' types (their decayed types, as C++'s).
template <class T1, class T2> __host__ __device__ constexpr pair<T1, T2> make_pair(T1 a, T2 b) {
  return pair<T1, T2>(a, b);
}

template <class T1, class T2>
__host__ __device__ constexpr bool operator==(const pair<T1, T2> &x, const pair<T1, T2> &y) {
  return x.first == y.first && x.second == y.second;
}
template <class T1, class T2>
__host__ __device__ constexpr bool operator!=(const pair<T1, T2> &x, const pair<T1, T2> &y) {
  return !(x == y);
}
// Lexicographic: by `first`, then by `second`.
template <class T1, class T2>
__host__ __device__ constexpr bool operator<(const pair<T1, T2> &x, const pair<T1, T2> &y) {
  return x.first < y.first || (!(y.first < x.first) && x.second < y.second);
}

template <class T> __host__ __device__ constexpr void swap(T &a, T &b) {
  T held = static_cast<T &&>(a);
  a = static_cast<T &&>(b);
  b = static_cast<T &&>(held);
}

// Sets `obj` to `value` and returns what it held.
template <class T, class U> __host__ __device__ constexpr T exchange(T &obj, const U &value) {
  T old = static_cast<T &&>(obj);
  obj = value;
  return old;
}

} // namespace __4
} // namespace std
} // namespace cuda
