// <cuda/std/complex> for kernelc: libcu++'s `complex<float>` and
// `complex<double>` in `cuda::std::__4`, two values aligned to their pair's
// size, with the arithmetic, comparisons, `real`, `imag`, `abs`, `arg`,
// `norm` and `conj` (not yet the transcendental functions). A quotient may
// differ from nvcc's in its last bits: nvcc fuses some of its products into
// adds and not others. Products and quotients follow C's Annex G as libcu++'s do: the
// plain formula, and when both parts come out NaN, a second computation
// that recovers infinities; a quotient scales the divisor by a power of two
// first (`logb`) so that `c*c + d*d` cannot overflow.
#pragma once

namespace cuda {
namespace std {
inline namespace __4 {

namespace __kc_complex {
__host__ __device__ inline float logb_of(float x) { return logbf(x); }
__host__ __device__ inline double logb_of(double x) { return logb(x); }
__host__ __device__ inline float scaled(float x, int e) { return scalbnf(x, e); }
__host__ __device__ inline double scaled(double x, int e) { return scalbn(x, e); }
__host__ __device__ inline float larger_magnitude(float x, float y) { return fmaxf(fabsf(x), fabsf(y)); }
__host__ __device__ inline double larger_magnitude(double x, double y) { return fmax(fabs(x), fabs(y)); }
__host__ __device__ inline float sign_of(float magnitude, float sign) { return copysignf(magnitude, sign); }
__host__ __device__ inline double sign_of(double magnitude, double sign) { return copysign(magnitude, sign); }
__host__ __device__ inline float hypot_of(float x, float y) { return hypotf(x, y); }
__host__ __device__ inline double hypot_of(double x, double y) { return hypot(x, y); }
__host__ __device__ inline float atan2_of(float y, float x) { return atan2f(y, x); }
__host__ __device__ inline double atan2_of(double y, double x) { return atan2(y, x); }
// A product never fused into a following add (as nvcc leaves libcu++'s
// four partial products of a complex product).
__host__ __device__ inline float product(float x, float y) { return __fmul_rn(x, y); }
__host__ __device__ inline double product(double x, double y) { return __dmul_rn(x, y); }
__host__ __device__ inline float magnitude(float x) { return fabsf(x); }
__host__ __device__ inline double magnitude(double x) { return fabs(x); }
__host__ __device__ inline float infinity_of(float) { return __int_as_float(0x7f800000); }
__host__ __device__ inline double infinity_of(double) { return __longlong_as_double(0x7ff0000000000000LL); }

// An infinite part as one of its sign, a finite one as a zero of its sign
// (Annex G's "box" of an infinite operand).
template <class T> __host__ __device__ T boxed(T x) { return sign_of(isinf(x) ? T(1) : T(0), x); }
// A NaN part as a zero of its sign, others as they are.
template <class T> __host__ __device__ T unnan(T x) { return isnan(x) ? sign_of(T(0), x) : x; }
} // namespace __kc_complex

// The members of `complex<float>` and `complex<double>`, each aligned to
// its two parts' size as libcu++'s: two explicit specializations, since
// kernelc's `alignas` takes a literal, not `alignas(2 * sizeof(T))`.
#define __KC_COMPLEX_MEMBERS(KC_T) \
  typedef KC_T value_type; \
  KC_T __re_; \
  KC_T __im_; \
 \
  __host__ __device__ constexpr complex(const KC_T &re = KC_T(), const KC_T &im = KC_T()) : __re_(re), __im_(im) {} \
  template <class U> \
  __host__ __device__ constexpr complex(const complex<U> &z) : __re_(KC_T(z.real())), __im_(KC_T(z.imag())) {} \
 \
  __host__ __device__ constexpr KC_T real() const { return __re_; } \
  __host__ __device__ constexpr KC_T imag() const { return __im_; } \
  __host__ __device__ constexpr void real(KC_T re) { __re_ = re; } \
  __host__ __device__ constexpr void imag(KC_T im) { __im_ = im; } \
 \
  __host__ __device__ constexpr complex &operator=(const KC_T &re) { \
    __re_ = re; \
    __im_ = KC_T(); \
    return *this; \
  } \
  __host__ __device__ constexpr complex &operator+=(const KC_T &x) { \
    __re_ += x; \
    return *this; \
  } \
  __host__ __device__ constexpr complex &operator-=(const KC_T &x) { \
    __re_ -= x; \
    return *this; \
  } \
  __host__ __device__ constexpr complex &operator*=(const KC_T &x) { \
    __re_ *= x; \
    __im_ *= x; \
    return *this; \
  } \
  __host__ __device__ constexpr complex &operator/=(const KC_T &x) { \
    __re_ /= x; \
    __im_ /= x; \
    return *this; \
  } \
  __host__ __device__ constexpr complex &operator+=(const complex &z) { \
    __re_ += z.real(); \
    __im_ += z.imag(); \
    return *this; \
  } \
  __host__ __device__ constexpr complex &operator-=(const complex &z) { \
    __re_ -= z.real(); \
    __im_ -= z.imag(); \
    return *this; \
  } \
  __host__ __device__ complex &operator*=(const complex &z) { \
    *this = *this * z; \
    return *this; \
  } \
  __host__ __device__ complex &operator/=(const complex &z) { \
    *this = *this / z; \
    return *this; \
  }

template <class T> struct complex;
template <> struct alignas(8) complex<float> { __KC_COMPLEX_MEMBERS(float) };
template <> struct alignas(16) complex<double> { __KC_COMPLEX_MEMBERS(double) };
#undef __KC_COMPLEX_MEMBERS

template <class T> __host__ __device__ complex<T> operator+(const complex<T> &z, const complex<T> &w) {
  return complex<T>(z.real() + w.real(), z.imag() + w.imag());
}
template <class T> __host__ __device__ complex<T> operator+(const complex<T> &z, const T &x) {
  return complex<T>(z.real() + x, z.imag());
}
template <class T> __host__ __device__ complex<T> operator+(const T &x, const complex<T> &z) {
  return complex<T>(x + z.real(), z.imag());
}
template <class T> __host__ __device__ complex<T> operator-(const complex<T> &z, const complex<T> &w) {
  return complex<T>(z.real() - w.real(), z.imag() - w.imag());
}
template <class T> __host__ __device__ complex<T> operator-(const complex<T> &z, const T &x) {
  return complex<T>(z.real() - x, z.imag());
}
template <class T> __host__ __device__ complex<T> operator-(const T &x, const complex<T> &z) {
  return complex<T>(x - z.real(), -z.imag());
}
template <class T> __host__ __device__ complex<T> operator+(const complex<T> &z) { return z; }
template <class T> __host__ __device__ complex<T> operator-(const complex<T> &z) {
  return complex<T>(-z.real(), -z.imag());
}

// (a + bi)(c + di). Each of the four products is kept (unfused), so that
// the NaN case can test them for infinities.
template <class T> __host__ __device__ complex<T> operator*(const complex<T> &z, const complex<T> &w) {
  using namespace __kc_complex;
  T a = z.real(), b = z.imag(), c = w.real(), d = w.imag();
  T ac = product(a, c), bd = product(b, d), ad = product(a, d), bc = product(b, c);
  T x = ac - bd;
  T y = ad + bc;
  if (isnan(x) && isnan(y)) {
    bool again = false;
    if (isinf(a) || isinf(b)) {
      a = boxed(a);
      b = boxed(b);
      c = unnan(c);
      d = unnan(d);
      again = true;
    }
    if (isinf(c) || isinf(d)) {
      c = boxed(c);
      d = boxed(d);
      a = unnan(a);
      b = unnan(b);
      again = true;
    }
    if (!again && (isinf(ac) || isinf(bd) || isinf(ad) || isinf(bc))) {
      a = unnan(a);
      b = unnan(b);
      c = unnan(c);
      d = unnan(d);
      again = true;
    }
    if (again) {
      T inf = infinity_of(a);
      x = inf * (a * c - b * d);
      y = inf * (a * d + b * c);
    }
  }
  return complex<T>(x, y);
}
template <class T> __host__ __device__ complex<T> operator*(const complex<T> &z, const T &x) {
  return complex<T>(z.real() * x, z.imag() * x);
}
template <class T> __host__ __device__ complex<T> operator*(const T &x, const complex<T> &z) {
  return complex<T>(x * z.real(), x * z.imag());
}

// (a + bi) / (c + di), the divisor scaled by 2^-k first, k its larger
// part's exponent, and the quotient by 2^-k after.
template <class T> __host__ __device__ complex<T> operator/(const complex<T> &z, const complex<T> &w) {
  using namespace __kc_complex;
  T a = z.real(), b = z.imag(), c = w.real(), d = w.imag();
  int k = 0;
  T logbw = logb_of(larger_magnitude(c, d));
  if (isfinite(logbw)) {
    k = static_cast<int>(logbw);
    c = scaled(c, -k);
    d = scaled(d, -k);
  }
  T denom = c * c + d * d;
  T x = scaled((a * c + b * d) / denom, -k);
  T y = scaled((product(b, c) - product(a, d)) / denom, -k);
  if (isnan(x) && isnan(y)) {
    T inf = infinity_of(a);
    if (denom == T(0) && (!isnan(a) || !isnan(b))) {
      x = sign_of(inf, c) * a;
      y = sign_of(inf, c) * b;
    } else if ((isinf(a) || isinf(b)) && isfinite(c) && isfinite(d)) {
      a = boxed(a);
      b = boxed(b);
      x = inf * (a * c + b * d);
      y = inf * (b * c - a * d);
    } else if (isinf(logbw) && logbw > T(0) && isfinite(a) && isfinite(b)) {
      c = boxed(c);
      d = boxed(d);
      x = T(0) * (a * c + b * d);
      y = T(0) * (b * c - a * d);
    }
  }
  return complex<T>(x, y);
}
template <class T> __host__ __device__ complex<T> operator/(const complex<T> &z, const T &x) {
  return complex<T>(z.real() / x, z.imag() / x);
}
template <class T> __host__ __device__ complex<T> operator/(const T &x, const complex<T> &z) {
  return complex<T>(x) / z;
}

template <class T> __host__ __device__ constexpr bool operator==(const complex<T> &z, const complex<T> &w) {
  return z.real() == w.real() && z.imag() == w.imag();
}
template <class T> __host__ __device__ constexpr bool operator!=(const complex<T> &z, const complex<T> &w) {
  return !(z == w);
}

template <class T> __host__ __device__ constexpr T real(const complex<T> &z) { return z.real(); }
template <class T> __host__ __device__ constexpr T imag(const complex<T> &z) { return z.imag(); }
template <class T> __host__ __device__ T abs(const complex<T> &z) {
  return __kc_complex::hypot_of(z.real(), z.imag());
}
template <class T> __host__ __device__ T arg(const complex<T> &z) {
  return __kc_complex::atan2_of(z.imag(), z.real());
}
// |z|^2, written out as libcu++ writes it for finite parts.
template <class T> __host__ __device__ T norm(const complex<T> &z) {
  if (isinf(z.real())) return __kc_complex::magnitude(z.real());
  if (isinf(z.imag())) return __kc_complex::magnitude(z.imag());
  return z.real() * z.real() + z.imag() * z.imag();
}
template <class T> __host__ __device__ constexpr complex<T> conj(const complex<T> &z) {
  return complex<T>(z.real(), -z.imag());
}
} // namespace __4
} // namespace std
} // namespace cuda
