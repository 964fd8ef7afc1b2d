// finmath: small math helpers shared by host and device code. Everything
// lives in namespace fm; FM_HD marks a function for both sides when the
// header is compiled by a CUDA compiler and is empty for a plain C++ one.
#pragma once

#include <cmath>

#if defined(__CUDACC__)
#define FM_HD __host__ __device__
#define FM_INLINE __host__ __device__ __forceinline__
#else
#define FM_HD
#define FM_INLINE inline
#endif

namespace fm {

constexpr float kInvSqrt2 = 0.70710678118654752f;
constexpr double kInvSqrt2d = 0.70710678118654752440;

template <typename T> struct Consts;
template <> struct Consts<float> {
  static constexpr float half = 0.5f;
  static constexpr float one = 1.0f;
};
template <> struct Consts<double> {
  static constexpr double half = 0.5;
  static constexpr double one = 1.0;
};

// Standard normal cumulative distribution, through erfc.
FM_INLINE float cnd(float x) { return 0.5f * erfcf(-x * kInvSqrt2); }
FM_INLINE double cnd(double x) { return 0.5 * erfc(-x * kInvSqrt2d); }

// Abramowitz-Stegun polynomial, the classic alternative to erfc.
FM_HD inline float cndPoly(float d) {
  const float A1 = 0.31938153f, A2 = -0.356563782f, A3 = 1.781477937f;
  const float A4 = -1.821255978f, A5 = 1.330274429f;
  const float RSQRT2PI = 0.39894228040143267793994605993438f;
  float K = 1.0f / (1.0f + 0.2316419f * fabsf(d));
  float c = RSQRT2PI * expf(-0.5f * d * d) *
            (K * (A1 + K * (A2 + K * (A3 + K * (A4 + K * A5)))));
  return d > 0 ? 1.0f - c : c;
}

template <typename T> struct OptionPrice {
  T call;
  T put;
};

template <typename T>
FM_HD OptionPrice<T> blackScholes(T S, T X, T t, T r, T v) {
  T sqrtT = sqrt(t);
  T d1 = (log(S / X) + (r + Consts<T>::half * v * v) * t) / (v * sqrtT);
  T d2 = d1 - v * sqrtT;
  T expRT = exp(-r * t);
  OptionPrice<T> p;
  p.call = S * cnd(d1) - X * expRT * cnd(d2);
  p.put = X * expRT * (Consts<T>::one - cnd(d2)) - S * (Consts<T>::one - cnd(d1));
  return p;
}

// Inverse of the standard normal CDF.
FM_INLINE float invCnd(float p) {
  return -1.41421356237309504880f * erfcinvf(2.0f * p);
}

// log of the binomial coefficient n choose k, via lgamma.
FM_INLINE float logChoose(float n, float k) {
  return lgammaf(n + 1.0f) - lgammaf(k + 1.0f) - lgammaf(n - k + 1.0f);
}

// Splits x into a mantissa in [0.5, 1) and an exponent, then rebuilds a
// value scaled by 2^shift.
FM_INLINE float scaleByPow2(float x, int shift) {
  int e;
  float m = frexpf(x, &e);
  return ldexpf(m, e + shift);
}

FM_INLINE float signedMagnitude(float mag, float sign) {
  return copysignf(fabsf(mag), sign);
}

} // namespace fm
