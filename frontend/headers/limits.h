// <limits> and <cuda/std/limits> for kernelc: `std::numeric_limits` as the
// host compiler's (constexpr host functions: device code may call them only
// under --expt-relaxed-constexpr, as nvcc says) and `cuda::std::numeric_limits`
// as libcu++'s (__host__ __device__, in libcu++'s inline namespace
// `cuda::std::__4`, which nvcc's names spell out). The same body,
// numeric_limits.h, is read in each namespace.
#pragma once

namespace std {
#define __KERNELC_LIMITS_FN
#include <__kernelc/numeric_limits.h>
#undef __KERNELC_LIMITS_FN
} // namespace std

namespace cuda {
namespace std {
inline namespace __4 {
#define __KERNELC_LIMITS_FN __host__ __device__
#include <__kernelc/numeric_limits.h>
#undef __KERNELC_LIMITS_FN
} // namespace __4
} // namespace std
} // namespace cuda
