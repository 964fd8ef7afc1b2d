// <type_traits> and <cuda/std/type_traits> for kernelc: the traits of
// type_traits.h read once in `std` (`integral_constant`'s functions
// constexpr host ones, as the host compiler's) and once in libcu++'s
// inline namespace `cuda::std::__4` (__host__ __device__, as libcu++'s), so
// a kernel whose signature names a `cuda::std::` trait has nvcc's name
// (`N4cuda3std3__417integral_constantIiLi3EEE`).
#pragma once

namespace std {
#define __KERNELC_TRAITS_FN
#include <__kernelc/type_traits.h>
#undef __KERNELC_TRAITS_FN
} // namespace std

namespace cuda {
namespace std {
inline namespace __4 {
#define __KERNELC_TRAITS_FN __host__ __device__
#include <__kernelc/type_traits.h>
#undef __KERNELC_TRAITS_FN
} // namespace __4
} // namespace std
} // namespace cuda
