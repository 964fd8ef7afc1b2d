// <type_traits> for kernelc: the traits device code uses, written for
// kernelc as class templates (frontend/src/parser/class_templates.rs).
// `cuda::std::` names the same templates (<cuda/std/type_traits>).
#pragma once

namespace std {

// The base of a program's own traits (`struct is_half<__half> :
// std::true_type {};`). Its functions are constexpr host functions, as the
// host compiler's: device code may call them (`is_half<T>()`, `trait{}()`)
// only under --expt-relaxed-constexpr; `::value` is a constant anywhere.
template <class T, T v> struct integral_constant {
  static constexpr T value = v;
  typedef T value_type;
  typedef integral_constant type;
  constexpr operator value_type() const { return value; }
  constexpr value_type operator()() const { return value; }
};
typedef integral_constant<bool, true> true_type;
typedef integral_constant<bool, false> false_type;
template <bool B> using bool_constant = integral_constant<bool, B>;

template <class T, class U> struct is_same { static constexpr bool value = false; };
template <class T> struct is_same<T, T> { static constexpr bool value = true; };

template <class T> struct is_integral { static constexpr bool value = false; };
template <> struct is_integral<bool> { static constexpr bool value = true; };
template <> struct is_integral<char> { static constexpr bool value = true; };
template <> struct is_integral<signed char> { static constexpr bool value = true; };
template <> struct is_integral<unsigned char> { static constexpr bool value = true; };
template <> struct is_integral<short> { static constexpr bool value = true; };
template <> struct is_integral<unsigned short> { static constexpr bool value = true; };
template <> struct is_integral<int> { static constexpr bool value = true; };
template <> struct is_integral<unsigned int> { static constexpr bool value = true; };
template <> struct is_integral<long> { static constexpr bool value = true; };
template <> struct is_integral<unsigned long> { static constexpr bool value = true; };
template <> struct is_integral<long long> { static constexpr bool value = true; };
template <> struct is_integral<unsigned long long> { static constexpr bool value = true; };

template <class T> struct is_floating_point { static constexpr bool value = false; };
template <> struct is_floating_point<float> { static constexpr bool value = true; };
template <> struct is_floating_point<double> { static constexpr bool value = true; };

template <class T> struct is_arithmetic {
  static constexpr bool value = is_integral<T>::value || is_floating_point<T>::value;
};

template <class T> struct is_signed { static constexpr bool value = false; };
template <> struct is_signed<signed char> { static constexpr bool value = true; };
template <> struct is_signed<char> { static constexpr bool value = true; };
template <> struct is_signed<short> { static constexpr bool value = true; };
template <> struct is_signed<int> { static constexpr bool value = true; };
template <> struct is_signed<long> { static constexpr bool value = true; };
template <> struct is_signed<long long> { static constexpr bool value = true; };
template <> struct is_signed<float> { static constexpr bool value = true; };
template <> struct is_signed<double> { static constexpr bool value = true; };

template <class T> struct is_unsigned {
  static constexpr bool value = is_integral<T>::value && !is_signed<T>::value;
};

template <class T> struct is_pointer { static constexpr bool value = false; };
template <class T> struct is_pointer<T *> { static constexpr bool value = true; };
template <class T> struct is_pointer<T *const> { static constexpr bool value = true; };

template <class T> struct is_const { static constexpr bool value = false; };
template <class T> struct is_const<const T> { static constexpr bool value = true; };

template <class T> struct remove_const { typedef T type; };
template <class T> struct remove_const<const T> { typedef T type; };
template <class T> struct remove_volatile { typedef T type; };
template <class T> struct remove_volatile<volatile T> { typedef T type; };
template <class T> struct remove_cv { typedef T type; };
template <class T> struct remove_cv<const T> { typedef T type; };
template <class T> struct remove_cv<volatile T> { typedef T type; };
template <class T> struct remove_cv<const volatile T> { typedef T type; };
template <class T> struct remove_pointer { typedef T type; };
template <class T> struct remove_pointer<T *> { typedef T type; };
// References: kernelc's template arguments are lvalue references at most
// (`float &`; an rvalue reference type is no argument it takes).
template <class T> struct is_reference { static constexpr bool value = false; };
template <class T> struct is_reference<T &> { static constexpr bool value = true; };
template <class T> struct is_lvalue_reference { static constexpr bool value = false; };
template <class T> struct is_lvalue_reference<T &> { static constexpr bool value = true; };
template <class T> struct remove_reference { typedef T type; };
template <class T> struct remove_reference<T &> { typedef T type; };
template <class T> struct remove_cvref { typedef typename remove_cv<T>::type type; };
template <class T> struct remove_cvref<T &> { typedef typename remove_cv<T>::type type; };
// `decay` of an object or reference type (arrays and functions, which
// decay to pointers, are left as they are).
template <class T> struct decay { typedef typename remove_cvref<T>::type type; };
template <class T> struct add_const { typedef const T type; };
template <class T> struct add_pointer { typedef T *type; };

template <bool B, class T = void> struct enable_if {};
template <class T> struct enable_if<true, T> { typedef T type; };

template <bool B, class T, class F> struct conditional { typedef T type; };
template <class T, class F> struct conditional<false, T, F> { typedef F type; };

// The C++17 `_v` variable templates (kernelc reads a variable template's
// use as its initializer with the arguments bound).
template <class T, class U> inline constexpr bool is_same_v = is_same<T, U>::value;
template <class T> inline constexpr bool is_integral_v = is_integral<T>::value;
template <class T> inline constexpr bool is_floating_point_v = is_floating_point<T>::value;
template <class T> inline constexpr bool is_arithmetic_v = is_arithmetic<T>::value;
template <class T> inline constexpr bool is_signed_v = is_signed<T>::value;
template <class T> inline constexpr bool is_unsigned_v = is_unsigned<T>::value;
template <class T> inline constexpr bool is_pointer_v = is_pointer<T>::value;
template <class T> inline constexpr bool is_const_v = is_const<T>::value;
template <class T> inline constexpr bool is_reference_v = is_reference<T>::value;
template <class T> inline constexpr bool is_lvalue_reference_v = is_lvalue_reference<T>::value;

template <class T> using remove_const_t = typename remove_const<T>::type;
template <class T> using remove_cv_t = typename remove_cv<T>::type;
template <class T> using remove_pointer_t = typename remove_pointer<T>::type;
template <class T> using remove_reference_t = typename remove_reference<T>::type;
template <class T> using remove_cvref_t = typename remove_cvref<T>::type;
template <class T> using decay_t = typename decay<T>::type;
template <bool B, class T = void> using enable_if_t = typename enable_if<B, T>::type;
template <bool B, class T, class F> using conditional_t = typename conditional<B, T, F>::type;

} // namespace std

namespace cuda {
namespace std {
using namespace ::std;
} // namespace std
} // namespace cuda
