// The body of kernelc's <limits> and <cuda/std/limits>: numeric_limits for
// every arithmetic type, with the values of nvcc's host compiler (x86-64:
// `char` is signed, `long` has 64 bits). Included twice by limits.h, once
// in `std` and once in `cuda::std`, with __KERNELC_LIMITS_FN the execution
// space of the functions. No #pragma once, on purpose.

template <class T> struct numeric_limits {
  static constexpr bool is_specialized = false;
  static constexpr bool is_signed = false;
  static constexpr bool is_integer = false;
  static constexpr bool is_exact = false;
  static constexpr bool has_infinity = false;
  static constexpr bool has_quiet_NaN = false;
  static constexpr int digits = 0;
  static constexpr int digits10 = 0;
  static constexpr int radix = 0;
  __KERNELC_LIMITS_FN static constexpr T min() noexcept { return T(); }
  __KERNELC_LIMITS_FN static constexpr T max() noexcept { return T(); }
  __KERNELC_LIMITS_FN static constexpr T lowest() noexcept { return T(); }
  __KERNELC_LIMITS_FN static constexpr T epsilon() noexcept { return T(); }
};

// An integer type of `BITS` bits: its digits exclude the sign bit.
#define __KERNELC_INTEGER_LIMITS(T, SIGNED, DIGITS, DIGITS10, MIN, MAX)         \
  template <> struct numeric_limits<T> {                                        \
    static constexpr bool is_specialized = true;                                \
    static constexpr bool is_signed = SIGNED;                                   \
    static constexpr bool is_integer = true;                                    \
    static constexpr bool is_exact = true;                                      \
    static constexpr bool has_infinity = false;                                 \
    static constexpr bool has_quiet_NaN = false;                                \
    static constexpr int digits = DIGITS;                                       \
    static constexpr int digits10 = DIGITS10;                                   \
    static constexpr int radix = 2;                                             \
    __KERNELC_LIMITS_FN static constexpr T min() noexcept { return MIN; }       \
    __KERNELC_LIMITS_FN static constexpr T max() noexcept { return MAX; }       \
    __KERNELC_LIMITS_FN static constexpr T lowest() noexcept { return MIN; }    \
    __KERNELC_LIMITS_FN static constexpr T epsilon() noexcept { return 0; }     \
  };

__KERNELC_INTEGER_LIMITS(bool, false, 1, 0, false, true)
__KERNELC_INTEGER_LIMITS(char, true, 7, 2, -128, 127)
__KERNELC_INTEGER_LIMITS(signed char, true, 7, 2, -128, 127)
__KERNELC_INTEGER_LIMITS(unsigned char, false, 8, 2, 0, 255)
__KERNELC_INTEGER_LIMITS(short, true, 15, 4, -32768, 32767)
__KERNELC_INTEGER_LIMITS(unsigned short, false, 16, 4, 0, 65535)
__KERNELC_INTEGER_LIMITS(int, true, 31, 9, -2147483647 - 1, 2147483647)
__KERNELC_INTEGER_LIMITS(unsigned int, false, 32, 9, 0u, 4294967295u)
__KERNELC_INTEGER_LIMITS(long, true, 63, 18, -9223372036854775807l - 1, 9223372036854775807l)
__KERNELC_INTEGER_LIMITS(unsigned long, false, 64, 19, 0ul, 18446744073709551615ul)
__KERNELC_INTEGER_LIMITS(long long, true, 63, 18, -9223372036854775807ll - 1, 9223372036854775807ll)
__KERNELC_INTEGER_LIMITS(unsigned long long, false, 64, 19, 0ull, 18446744073709551615ull)

#undef __KERNELC_INTEGER_LIMITS

template <> struct numeric_limits<float> {
  static constexpr bool is_specialized = true;
  static constexpr bool is_signed = true;
  static constexpr bool is_integer = false;
  static constexpr bool is_exact = false;
  static constexpr bool has_infinity = true;
  static constexpr bool has_quiet_NaN = true;
  static constexpr int digits = 24;
  static constexpr int digits10 = 6;
  static constexpr int radix = 2;
  __KERNELC_LIMITS_FN static constexpr float min() noexcept { return 1.17549435082228750797e-38f; }
  __KERNELC_LIMITS_FN static constexpr float max() noexcept { return 3.40282346638528859812e+38f; }
  __KERNELC_LIMITS_FN static constexpr float lowest() noexcept { return -3.40282346638528859812e+38f; }
  __KERNELC_LIMITS_FN static constexpr float epsilon() noexcept { return 1.19209289550781250000e-7f; }
  __KERNELC_LIMITS_FN static constexpr float round_error() noexcept { return 0.5f; }
  __KERNELC_LIMITS_FN static constexpr float infinity() noexcept { return __builtin_huge_valf(); }
  __KERNELC_LIMITS_FN static constexpr float quiet_NaN() noexcept { return __builtin_nanf(""); }
  __KERNELC_LIMITS_FN static constexpr float denorm_min() noexcept { return 1.40129846432481707092e-45f; }
};

template <> struct numeric_limits<double> {
  static constexpr bool is_specialized = true;
  static constexpr bool is_signed = true;
  static constexpr bool is_integer = false;
  static constexpr bool is_exact = false;
  static constexpr bool has_infinity = true;
  static constexpr bool has_quiet_NaN = true;
  static constexpr int digits = 53;
  static constexpr int digits10 = 15;
  static constexpr int radix = 2;
  __KERNELC_LIMITS_FN static constexpr double min() noexcept { return 2.22507385850720138309e-308; }
  __KERNELC_LIMITS_FN static constexpr double max() noexcept { return 1.79769313486231570815e+308; }
  __KERNELC_LIMITS_FN static constexpr double lowest() noexcept { return -1.79769313486231570815e+308; }
  __KERNELC_LIMITS_FN static constexpr double epsilon() noexcept { return 2.22044604925031308085e-16; }
  __KERNELC_LIMITS_FN static constexpr double round_error() noexcept { return 0.5; }
  __KERNELC_LIMITS_FN static constexpr double infinity() noexcept { return __builtin_huge_val(); }
  __KERNELC_LIMITS_FN static constexpr double quiet_NaN() noexcept { return __builtin_nan(""); }
  __KERNELC_LIMITS_FN static constexpr double denorm_min() noexcept { return 4.94065645841246544177e-324; }
};
