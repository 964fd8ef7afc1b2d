// <cuda/std/functional> and <cuda/functional> for kernelc: libcu++'s
// function objects in `cuda::std::__4` (`cuda::std::minus<float>`,
// `cuda::std::less<>`), so a kernel template instantiated with one has
// nvcc's name (`N4cuda3std3__44lessIvEE`). Each `F<T>` is a constexpr
// __host__ __device__ `operator()` of two `const T &` (one for `negate`
// and `logical_not`); `F<>` (`F<void>`) is transparent, its `operator()`
// a template of two forwarding references whose result is the operator's.
//
// `cuda::std::plus`, `cuda::maximum` and `cuda::minimum` are CUB's header's
// (frontend/headers/cub.cuh), which defines them for its collectives:
// reading it here gives one definition of each, whichever of the two a
// program includes first.
#pragma once
#include <cub/block/block_reduce.cuh>

namespace cuda {
namespace std {
inline namespace __4 {

#define __KERNELC_BINARY_FUNCTOR(NAME, OP, RESULT)                                              \
  template <class T = void> struct NAME {                                                        \
    __host__ __device__ constexpr RESULT operator()(const T &a, const T &b) const { return a OP b; } \
  };                                                                                             \
  template <> struct NAME<void> {                                                                \
    typedef void is_transparent;                                                                 \
    template <class A, class B>                                                                  \
    __host__ __device__ constexpr auto operator()(A &&a, B &&b) const -> decltype(a OP b) {     \
      return a OP b;                                                                             \
    }                                                                                            \
  };

#define __KERNELC_UNARY_FUNCTOR(NAME, OP, RESULT)                                                \
  template <class T = void> struct NAME {                                                        \
    __host__ __device__ constexpr RESULT operator()(const T &a) const { return OP a; }           \
  };                                                                                             \
  template <> struct NAME<void> {                                                                \
    typedef void is_transparent;                                                                 \
    template <class A> __host__ __device__ constexpr auto operator()(A &&a) const -> decltype(OP a) { \
      return OP a;                                                                               \
    }                                                                                            \
  };

__KERNELC_BINARY_FUNCTOR(minus, -, T)
__KERNELC_BINARY_FUNCTOR(multiplies, *, T)
__KERNELC_BINARY_FUNCTOR(divides, /, T)
__KERNELC_BINARY_FUNCTOR(modulus, %, T)
__KERNELC_UNARY_FUNCTOR(negate, -, T)
__KERNELC_BINARY_FUNCTOR(equal_to, ==, bool)
__KERNELC_BINARY_FUNCTOR(not_equal_to, !=, bool)
__KERNELC_BINARY_FUNCTOR(less, <, bool)
__KERNELC_BINARY_FUNCTOR(greater, >, bool)
__KERNELC_BINARY_FUNCTOR(less_equal, <=, bool)
__KERNELC_BINARY_FUNCTOR(greater_equal, >=, bool)
__KERNELC_BINARY_FUNCTOR(logical_and, &&, bool)
__KERNELC_BINARY_FUNCTOR(logical_or, ||, bool)
__KERNELC_UNARY_FUNCTOR(logical_not, !, bool)
__KERNELC_BINARY_FUNCTOR(bit_and, &, T)
__KERNELC_BINARY_FUNCTOR(bit_or, |, T)
__KERNELC_BINARY_FUNCTOR(bit_xor, ^, T)

#undef __KERNELC_BINARY_FUNCTOR
#undef __KERNELC_UNARY_FUNCTOR

} // namespace __4
} // namespace std
} // namespace cuda
