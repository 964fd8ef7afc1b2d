// <cuda/std/array> for kernelc: libcu++'s fixed-size `array`, an aggregate
// whose one member is a C array, in `cuda::std::__4`. Its iterators are
// pointers.
#pragma once
#include <cuda/std/utility>

namespace cuda {
namespace std {
inline namespace __4 {

template <class T, size_t N> struct array {
  typedef T value_type;
  typedef size_t size_type;
  typedef T *iterator;
  typedef const T *const_iterator;

  // Public, as C++ requires of an aggregate (`array<float, 4> a = {1, 2, 3, 4};`).
  T __elems_[N];

  __host__ __device__ constexpr T &operator[](size_t i) { return __elems_[i]; }
  __host__ __device__ constexpr const T &operator[](size_t i) const { return __elems_[i]; }
  __host__ __device__ constexpr T &front() { return __elems_[0]; }
  __host__ __device__ constexpr const T &front() const { return __elems_[0]; }
  __host__ __device__ constexpr T &back() { return __elems_[N - 1]; }
  __host__ __device__ constexpr const T &back() const { return __elems_[N - 1]; }
  __host__ __device__ constexpr T *data() { return __elems_; }
  __host__ __device__ constexpr const T *data() const { return __elems_; }
  __host__ __device__ constexpr T *begin() { return __elems_; }
  __host__ __device__ constexpr const T *begin() const { return __elems_; }
  __host__ __device__ constexpr T *end() { return __elems_ + N; }
  __host__ __device__ constexpr const T *end() const { return __elems_ + N; }
  __host__ __device__ constexpr size_t size() const { return N; }
  __host__ __device__ constexpr size_t max_size() const { return N; }
  __host__ __device__ constexpr bool empty() const { return N == 0; }
  __host__ __device__ constexpr void fill(const T &value) {
    for (size_t i = 0; i < N; ++i) __elems_[i] = value;
  }
  __host__ __device__ constexpr void swap(array &other) {
    for (size_t i = 0; i < N; ++i) cuda::std::swap(__elems_[i], other.__elems_[i]);
  }
};

template <class T, size_t N>
__host__ __device__ constexpr bool operator==(const array<T, N> &x, const array<T, N> &y) {
  for (size_t i = 0; i < N; ++i) {
    if (!(x[i] == y[i])) return false;
  }
  return true;
}
template <class T, size_t N>
__host__ __device__ constexpr bool operator!=(const array<T, N> &x, const array<T, N> &y) {
  return !(x == y);
}

} // namespace __4
} // namespace std
} // namespace cuda
