// <cuda/std/span> for kernelc: libcu++'s `span`, a view of contiguous
// objects, in `cuda::std::__4` (nvcc's names: `N4cuda3std3__44spanIfLm4EEE`).
// A span of static extent holds only its pointer and one of dynamic extent
// (`span<T>`) its pointer and size, in that order, as libcu++'s do, so
// either may be a kernel's parameter. Its iterators are pointers.
#pragma once
#include <cuda/std/array>

namespace cuda {
namespace std {
inline namespace __4 {

constexpr size_t dynamic_extent = static_cast<size_t>(-1);

template <class T, size_t Extent = dynamic_extent> struct span {
  typedef T element_type;
  typedef size_t size_type;
  typedef T *pointer;
  typedef T *iterator;
  static constexpr size_t extent = Extent;

  T *__data_;

  __host__ __device__ constexpr span() : __data_(nullptr) {}
  __host__ __device__ constexpr span(T *first, size_t) : __data_(first) {}
  __host__ __device__ constexpr span(T (&arr)[Extent]) : __data_(arr) {}
  template <class U>
  __host__ __device__ constexpr span(array<U, Extent> &arr) : __data_(arr.data()) {}
  template <class U>
  __host__ __device__ constexpr span(const array<U, Extent> &arr) : __data_(arr.data()) {}
  template <class U> __host__ __device__ constexpr span(const span<U, Extent> &o) : __data_(o.data()) {}

  __host__ __device__ constexpr T &operator[](size_t i) const { return __data_[i]; }
  __host__ __device__ constexpr T &front() const { return __data_[0]; }
  __host__ __device__ constexpr T &back() const { return __data_[Extent - 1]; }
  __host__ __device__ constexpr T *data() const { return __data_; }
  __host__ __device__ constexpr T *begin() const { return __data_; }
  __host__ __device__ constexpr T *end() const { return __data_ + Extent; }
  __host__ __device__ constexpr size_t size() const { return Extent; }
  __host__ __device__ constexpr size_t size_bytes() const { return Extent * sizeof(T); }
  __host__ __device__ constexpr bool empty() const { return Extent == 0; }

  template <size_t Count> __host__ __device__ constexpr span<T, Count> first() const {
    return span<T, Count>(__data_, Count);
  }
  template <size_t Count> __host__ __device__ constexpr span<T, Count> last() const {
    return span<T, Count>(__data_ + (Extent - Count), Count);
  }
  template <size_t Offset, size_t Count = dynamic_extent>
  __host__ __device__ constexpr typename __subspan<T, Extent, Offset, Count>::type subspan() const {
    return typename __subspan<T, Extent, Offset, Count>::type(__data_ + Offset,
                                                               __subspan<T, Extent, Offset, Count>::extent);
  }
  __host__ __device__ constexpr span<T> first(size_t count) const { return span<T>(__data_, count); }
  __host__ __device__ constexpr span<T> last(size_t count) const {
    return span<T>(__data_ + (Extent - count), count);
  }
  __host__ __device__ constexpr span<T> subspan(size_t offset, size_t count = dynamic_extent) const {
    return span<T>(__data_ + offset, count == dynamic_extent ? Extent - offset : count);
  }
};

// What `subspan<Offset, Count>()` of a span of `Extent` returns.
template <class T, size_t Extent, size_t Offset, size_t Count> struct __subspan {
  static constexpr size_t extent =
      Count != dynamic_extent ? Count : Extent != dynamic_extent ? Extent - Offset : dynamic_extent;
  typedef span<T, extent> type;
};

template <class T> struct span<T, dynamic_extent> {
  typedef T element_type;
  typedef size_t size_type;
  typedef T *pointer;
  typedef T *iterator;
  static constexpr size_t extent = dynamic_extent;

  T *__data_;
  size_t __size_;

  __host__ __device__ constexpr span() : __data_(nullptr), __size_(0) {}
  __host__ __device__ constexpr span(T *first, size_t count) : __data_(first), __size_(count) {}
  __host__ __device__ constexpr span(T *first, T *last) : __data_(first), __size_(last - first) {}
  template <size_t N> __host__ __device__ constexpr span(T (&arr)[N]) : __data_(arr), __size_(N) {}
  template <class U, size_t N>
  __host__ __device__ constexpr span(array<U, N> &arr) : __data_(arr.data()), __size_(N) {}
  template <class U, size_t N>
  __host__ __device__ constexpr span(const array<U, N> &arr) : __data_(arr.data()), __size_(N) {}
  template <class U, size_t N>
  __host__ __device__ constexpr span(const span<U, N> &o) : __data_(o.data()), __size_(o.size()) {}

  __host__ __device__ constexpr T &operator[](size_t i) const { return __data_[i]; }
  __host__ __device__ constexpr T &front() const { return __data_[0]; }
  __host__ __device__ constexpr T &back() const { return __data_[__size_ - 1]; }
  __host__ __device__ constexpr T *data() const { return __data_; }
  __host__ __device__ constexpr T *begin() const { return __data_; }
  __host__ __device__ constexpr T *end() const { return __data_ + __size_; }
  __host__ __device__ constexpr size_t size() const { return __size_; }
  __host__ __device__ constexpr size_t size_bytes() const { return __size_ * sizeof(T); }
  __host__ __device__ constexpr bool empty() const { return __size_ == 0; }

  template <size_t Count> __host__ __device__ constexpr span<T, Count> first() const {
    return span<T, Count>(__data_, Count);
  }
  template <size_t Count> __host__ __device__ constexpr span<T, Count> last() const {
    return span<T, Count>(__data_ + (__size_ - Count), Count);
  }
  template <size_t Offset, size_t Count = dynamic_extent>
  __host__ __device__ constexpr span<T, Count> subspan() const {
    return span<T, Count>(__data_ + Offset, Count == dynamic_extent ? __size_ - Offset : Count);
  }
  __host__ __device__ constexpr span first(size_t count) const { return span(__data_, count); }
  __host__ __device__ constexpr span last(size_t count) const {
    return span(__data_ + (__size_ - count), count);
  }
  __host__ __device__ constexpr span subspan(size_t offset, size_t count = dynamic_extent) const {
    return span(__data_ + offset, count == dynamic_extent ? __size_ - offset : count);
  }
};

} // namespace __4
} // namespace std
} // namespace cuda
