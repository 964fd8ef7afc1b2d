// <cuComplex.h> for kernelc: single and double precision complex numbers as
// CUDA's vector types (cuFloatComplex is float2, cuDoubleComplex double2),
// with the toolkit's functions and their arithmetic: products and sums in
// the written order, a quotient scaled by 1 / (|re| + |im|) of the divisor
// first, a magnitude computed as max * sqrt(1 + (min / max)^2) with zero,
// infinite and NaN inputs returning max + min, and the fused forms' order of
// additions. Every function is __host__ __device__, as the toolkit's.
#pragma once

typedef float2 cuFloatComplex;
typedef double2 cuDoubleComplex;
typedef cuFloatComplex cuComplex;

#define __KERNELC_COMPLEX_FNS(T, C, S, MAX)                                             \
  __host__ __device__ static __inline__ T cuCreal##S(C z) { return z.x; }             \
  __host__ __device__ static __inline__ T cuCimag##S(C z) { return z.y; }             \
  __host__ __device__ static __inline__ C cuConj##S(C z) {                            \
    C r;                                                                               \
    r.x = z.x;                                                                         \
    r.y = -z.y;                                                                        \
    return r;                                                                          \
  }                                                                                    \
  __host__ __device__ static __inline__ C cuCadd##S(C a, C b) {                       \
    C r;                                                                               \
    r.x = a.x + b.x;                                                                   \
    r.y = a.y + b.y;                                                                   \
    return r;                                                                          \
  }                                                                                    \
  __host__ __device__ static __inline__ C cuCsub##S(C a, C b) {                       \
    C r;                                                                               \
    r.x = a.x - b.x;                                                                   \
    r.y = a.y - b.y;                                                                   \
    return r;                                                                          \
  }                                                                                    \
  __host__ __device__ static __inline__ C cuCmul##S(C a, C b) {                       \
    C r;                                                                               \
    r.x = (a.x * b.x) - (a.y * b.y);                                                   \
    r.y = (a.x * b.y) + (a.y * b.x);                                                   \
    return r;                                                                          \
  }                                                                                    \
  __host__ __device__ static __inline__ C cuCdiv##S(C a, C b) {                       \
    T scale = (T)1 / (fabs##S(b.x) + fabs##S(b.y));                                    \
    T ar = a.x * scale, ai = a.y * scale;                                              \
    T br = b.x * scale, bi = b.y * scale;                                              \
    T inv = (T)1 / ((br * br) + (bi * bi));                                            \
    C r;                                                                               \
    r.x = ((ar * br) + (ai * bi)) * inv;                                               \
    r.y = ((ai * br) - (ar * bi)) * inv;                                               \
    return r;                                                                          \
  }                                                                                    \
  __host__ __device__ static __inline__ T cuCabs##S(C z) {                            \
    T re = fabs##S(z.x), im = fabs##S(z.y);                                            \
    T big = re > im ? re : im;                                                         \
    T small = re > im ? im : re;                                                       \
    T ratio = small / big;                                                             \
    T m = big * sqrt##S((T)1 + ratio * ratio);                                         \
    if (big == (T)0 || big > MAX || small > MAX) m = big + small;                      \
    return m;                                                                          \
  }                                                                                    \
  __host__ __device__ static __inline__ C cuCfma##S(C a, C b, C d) {                  \
    T re = (a.x * b.x) + d.x;                                                          \
    T im = (a.x * b.y) + d.y;                                                          \
    C r;                                                                               \
    r.x = -(a.y * b.y) + re;                                                           \
    r.y = (a.y * b.x) + im;                                                            \
    return r;                                                                          \
  }

__host__ __device__ static __inline__ cuFloatComplex make_cuFloatComplex(float re, float im) {
  cuFloatComplex z;
  z.x = re;
  z.y = im;
  return z;
}

__host__ __device__ static __inline__ cuDoubleComplex make_cuDoubleComplex(double re, double im) {
  cuDoubleComplex z;
  z.x = re;
  z.y = im;
  return z;
}

__host__ __device__ static __inline__ cuComplex make_cuComplex(float re, float im) {
  return make_cuFloatComplex(re, im);
}

__KERNELC_COMPLEX_FNS(float, cuFloatComplex, f, 3.402823466e38f)
__KERNELC_COMPLEX_FNS(double, cuDoubleComplex, , 1.79769313486231570e+308)
#undef __KERNELC_COMPLEX_FNS

__host__ __device__ static __inline__ cuDoubleComplex cuComplexFloatToDouble(cuFloatComplex z) {
  return make_cuDoubleComplex((double)z.x, (double)z.y);
}

__host__ __device__ static __inline__ cuFloatComplex cuComplexDoubleToFloat(cuDoubleComplex z) {
  return make_cuFloatComplex((float)z.x, (float)z.y);
}
