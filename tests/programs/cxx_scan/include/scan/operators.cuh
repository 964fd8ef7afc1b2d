// Associative operators for the scan library: each names its identity.
#pragma once

#include <cuda_runtime.h>

namespace scan {

struct Sum {
  template <class T>
  __host__ __device__ static constexpr T identity() { return T(0); }
  template <class T>
  __host__ __device__ T operator()(const T &a, const T &b) const { return a + b; }
};

struct Max {
  template <class T>
  __host__ __device__ static constexpr T identity() { return T(-2147483647 - 1); }
  template <class T>
  __host__ __device__ T operator()(const T &a, const T &b) const { return a < b ? b : a; }
};

} // namespace scan
