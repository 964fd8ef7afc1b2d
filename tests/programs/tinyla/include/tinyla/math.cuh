#pragma once

#include "config.h"

namespace tla {

// Overloads by precision, the way the library calls them from templates.
TLA_HD TLA_INLINE float fma_(float a, float b, float c) { return fmaf(a, b, c); }
TLA_HD TLA_INLINE double fma_(double a, double b, double c) { return fma(a, b, c); }
TLA_HD TLA_INLINE float sqrt_(float x) { return sqrtf(x); }
TLA_HD TLA_INLINE double sqrt_(double x) { return sqrt(x); }

template <typename T>
TLA_HD TLA_INLINE T zero() {
  return T(0);
}

#ifdef __CUDACC__
template <typename T>
TLA_DEVICE TLA_INLINE T warpSum(T v) {
#pragma unroll
  for (int mask = TLA_WARP / 2; mask > 0; mask /= 2) v += __shfl_xor_sync(TLA_FULL_MASK, v, mask);
  return v;
}
#endif

}  // namespace tla
