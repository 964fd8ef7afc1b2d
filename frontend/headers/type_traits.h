// The body of kernelc's <type_traits> and <cuda/std/type_traits>: the
// traits device code uses, written for kernelc as class templates
// (frontend/src/parser/class_templates.rs). Read twice by
// type_traits_namespaces.h, once in `std` and once in libcu++'s
// `cuda::std::__4`, with __KERNELC_TRAITS_FN the execution space of
// `integral_constant`'s functions. No #pragma once, on purpose.

// The base of every trait here and of a program's own (`struct
// is_half<__half> : std::true_type {};`). In `std` its functions are
// constexpr host functions, as the host compiler's: device code may call
// them (`is_half<T>()`, `trait{}()`) only under --expt-relaxed-constexpr;
// libcu++'s are __host__ __device__. `::value` is a constant anywhere.
template <class T, T v> struct integral_constant {
  static constexpr T value = v;
  typedef T value_type;
  typedef integral_constant type;
  __KERNELC_TRAITS_FN constexpr operator value_type() const noexcept { return value; }
  __KERNELC_TRAITS_FN constexpr value_type operator()() const noexcept { return value; }
};
typedef integral_constant<bool, true> true_type;
typedef integral_constant<bool, false> false_type;
template <bool B> using bool_constant = integral_constant<bool, B>;

template <class T, class U> struct is_same : false_type {};
template <class T> struct is_same<T, T> : true_type {};

template <class T> struct is_integral : false_type {};
template <> struct is_integral<bool> : true_type {};
template <> struct is_integral<char> : true_type {};
template <> struct is_integral<signed char> : true_type {};
template <> struct is_integral<unsigned char> : true_type {};
template <> struct is_integral<short> : true_type {};
template <> struct is_integral<unsigned short> : true_type {};
template <> struct is_integral<int> : true_type {};
template <> struct is_integral<unsigned int> : true_type {};
template <> struct is_integral<long> : true_type {};
template <> struct is_integral<unsigned long> : true_type {};
template <> struct is_integral<long long> : true_type {};
template <> struct is_integral<unsigned long long> : true_type {};

template <class T> struct is_floating_point : false_type {};
template <> struct is_floating_point<float> : true_type {};
template <> struct is_floating_point<double> : true_type {};

template <class T>
struct is_arithmetic : bool_constant<is_integral<T>::value || is_floating_point<T>::value> {};

template <class T> struct is_signed : false_type {};
template <> struct is_signed<signed char> : true_type {};
template <> struct is_signed<char> : true_type {};
template <> struct is_signed<short> : true_type {};
template <> struct is_signed<int> : true_type {};
template <> struct is_signed<long> : true_type {};
template <> struct is_signed<long long> : true_type {};
template <> struct is_signed<float> : true_type {};
template <> struct is_signed<double> : true_type {};

template <class T>
struct is_unsigned : bool_constant<is_integral<T>::value && !is_signed<T>::value> {};

template <class T> struct is_pointer : false_type {};
template <class T> struct is_pointer<T *> : true_type {};
template <class T> struct is_pointer<T *const> : true_type {};

template <class T> struct is_const : false_type {};
template <class T> struct is_const<const T> : true_type {};

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
template <class T> struct is_reference : false_type {};
template <class T> struct is_reference<T &> : true_type {};
template <class T> struct is_lvalue_reference : false_type {};
template <class T> struct is_lvalue_reference<T &> : true_type {};
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
