// <cuda/std/algorithm> for kernelc: libcu++'s `min`, `max` (of two, with a
// comparator) and `clamp`, in `cuda::std::__4`; `swap` comes with
// <cuda/std/utility>. Like C++'s, `min` returns the first of equal
// arguments and `max` the first too (`max(a, b)` is `a < b ? b : a`).
#pragma once
#include <cuda/std/utility>

namespace cuda {
namespace std {
inline namespace __4 {

template <class T> __host__ __device__ constexpr const T &min(const T &a, const T &b) {
  return b < a ? b : a;
}
template <class T, class Less>
__host__ __device__ constexpr const T &min(const T &a, const T &b, Less less) {
  return less(b, a) ? b : a;
}
template <class T> __host__ __device__ constexpr const T &max(const T &a, const T &b) {
  return a < b ? b : a;
}
template <class T, class Less>
__host__ __device__ constexpr const T &max(const T &a, const T &b, Less less) {
  return less(a, b) ? b : a;
}
template <class T>
__host__ __device__ constexpr const T &clamp(const T &v, const T &lo, const T &hi) {
  return v < lo ? lo : hi < v ? hi : v;
}

} // namespace __4
} // namespace std
} // namespace cuda
