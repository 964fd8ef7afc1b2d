// <cuda/std/tuple> for kernelc (written by scripts/cuda-std-tuple: edit
// that, not this): libcu++'s `tuple` of up to 8 elements in
// `cuda::std::__4` (nvcc's names: `N4cuda3std3__45tupleIJfffEEE`), with
// `get<I>`, `make_tuple`, `tie`, `ignore`, `tuple_size`, `tuple_element`,
// the comparisons and `apply`. Each arity is a
// partial specialization whose elements are public members in order, so a
// structured binding (`auto [s, lo, hi] = t;`) decomposes it as C++'s
// tuple protocol would.
#pragma once
#include <cuda/std/type_traits>
#include <cuda/std/utility>

namespace cuda {
namespace std {
inline namespace __4 {

template <class... Ts> struct tuple;

template <> struct tuple<> {
  __host__ __device__ constexpr tuple() {}
};

template <class A> struct tuple<A> {
  A __0;
  __host__ __device__ constexpr tuple() : __0() {}
  __host__ __device__ constexpr tuple(const A &v0) : __0(v0) {}
  template <class UA>
  __host__ __device__ constexpr tuple(const tuple<UA> &o) : __0(o.__0) {}
  template <class UA> __host__ __device__ constexpr tuple &operator=(const tuple<UA> &o) {
    __0 = o.__0;
    return *this;
  }
  template <size_t I> __host__ __device__ constexpr auto &__get() {
    return __0;
  }
  template <size_t I> __host__ __device__ constexpr const auto &__get() const {
    return __0;
  }
};

template <class A> __host__ __device__ constexpr tuple<A> make_tuple(A v0) {
  return tuple<A>(v0);
}

// What `tie` returns, one class a length: the addresses of the tied
// objects, which assigning a tuple of as many elements sets.
template <class A> struct __tied1 {
  A *__0;
  template <class UA> __host__ __device__ constexpr __tied1 &operator=(const tuple<UA> &o) {
    *__0 = o.__0;
    return *this;
  }
};
template <class A> __host__ __device__ constexpr __tied1<A> tie(A &v0) {
  return __tied1<A>{&v0};
}

template <class A, class B> struct tuple<A, B> {
  A __0;
  B __1;
  __host__ __device__ constexpr tuple() : __0(), __1() {}
  __host__ __device__ constexpr tuple(const A &v0, const B &v1) : __0(v0), __1(v1) {}
  template <class UA, class UB>
  __host__ __device__ constexpr tuple(const tuple<UA, UB> &o) : __0(o.__0), __1(o.__1) {}
  template <class UA, class UB> __host__ __device__ constexpr tuple &operator=(const tuple<UA, UB> &o) {
    __0 = o.__0;
    __1 = o.__1;
    return *this;
  }
  template <size_t I> __host__ __device__ constexpr auto &__get() {
    if constexpr (I == 0)
      return __0;
    else
      return __1;
  }
  template <size_t I> __host__ __device__ constexpr const auto &__get() const {
    if constexpr (I == 0)
      return __0;
    else
      return __1;
  }
};

template <class A, class B> __host__ __device__ constexpr tuple<A, B> make_tuple(A v0, B v1) {
  return tuple<A, B>(v0, v1);
}

template <class A, class B> struct __tied2 {
  A *__0;
  B *__1;
  template <class UA, class UB> __host__ __device__ constexpr __tied2 &operator=(const tuple<UA, UB> &o) {
    *__0 = o.__0;
    *__1 = o.__1;
    return *this;
  }
};
template <class A, class B> __host__ __device__ constexpr __tied2<A, B> tie(A &v0, B &v1) {
  return __tied2<A, B>{&v0, &v1};
}

template <class A, class B, class C> struct tuple<A, B, C> {
  A __0;
  B __1;
  C __2;
  __host__ __device__ constexpr tuple() : __0(), __1(), __2() {}
  __host__ __device__ constexpr tuple(const A &v0, const B &v1, const C &v2) : __0(v0), __1(v1), __2(v2) {}
  template <class UA, class UB, class UC>
  __host__ __device__ constexpr tuple(const tuple<UA, UB, UC> &o) : __0(o.__0), __1(o.__1), __2(o.__2) {}
  template <class UA, class UB, class UC> __host__ __device__ constexpr tuple &operator=(const tuple<UA, UB, UC> &o) {
    __0 = o.__0;
    __1 = o.__1;
    __2 = o.__2;
    return *this;
  }
  template <size_t I> __host__ __device__ constexpr auto &__get() {
    if constexpr (I == 0)
      return __0;
    else if constexpr (I == 1)
      return __1;
    else
      return __2;
  }
  template <size_t I> __host__ __device__ constexpr const auto &__get() const {
    if constexpr (I == 0)
      return __0;
    else if constexpr (I == 1)
      return __1;
    else
      return __2;
  }
};

template <class A, class B, class C> __host__ __device__ constexpr tuple<A, B, C> make_tuple(A v0, B v1, C v2) {
  return tuple<A, B, C>(v0, v1, v2);
}

template <class A, class B, class C> struct __tied3 {
  A *__0;
  B *__1;
  C *__2;
  template <class UA, class UB, class UC> __host__ __device__ constexpr __tied3 &operator=(const tuple<UA, UB, UC> &o) {
    *__0 = o.__0;
    *__1 = o.__1;
    *__2 = o.__2;
    return *this;
  }
};
template <class A, class B, class C> __host__ __device__ constexpr __tied3<A, B, C> tie(A &v0, B &v1, C &v2) {
  return __tied3<A, B, C>{&v0, &v1, &v2};
}

template <class A, class B, class C, class D> struct tuple<A, B, C, D> {
  A __0;
  B __1;
  C __2;
  D __3;
  __host__ __device__ constexpr tuple() : __0(), __1(), __2(), __3() {}
  __host__ __device__ constexpr tuple(const A &v0, const B &v1, const C &v2, const D &v3) : __0(v0), __1(v1), __2(v2), __3(v3) {}
  template <class UA, class UB, class UC, class UD>
  __host__ __device__ constexpr tuple(const tuple<UA, UB, UC, UD> &o) : __0(o.__0), __1(o.__1), __2(o.__2), __3(o.__3) {}
  template <class UA, class UB, class UC, class UD> __host__ __device__ constexpr tuple &operator=(const tuple<UA, UB, UC, UD> &o) {
    __0 = o.__0;
    __1 = o.__1;
    __2 = o.__2;
    __3 = o.__3;
    return *this;
  }
  template <size_t I> __host__ __device__ constexpr auto &__get() {
    if constexpr (I == 0)
      return __0;
    else if constexpr (I == 1)
      return __1;
    else if constexpr (I == 2)
      return __2;
    else
      return __3;
  }
  template <size_t I> __host__ __device__ constexpr const auto &__get() const {
    if constexpr (I == 0)
      return __0;
    else if constexpr (I == 1)
      return __1;
    else if constexpr (I == 2)
      return __2;
    else
      return __3;
  }
};

template <class A, class B, class C, class D> __host__ __device__ constexpr tuple<A, B, C, D> make_tuple(A v0, B v1, C v2, D v3) {
  return tuple<A, B, C, D>(v0, v1, v2, v3);
}

template <class A, class B, class C, class D> struct __tied4 {
  A *__0;
  B *__1;
  C *__2;
  D *__3;
  template <class UA, class UB, class UC, class UD> __host__ __device__ constexpr __tied4 &operator=(const tuple<UA, UB, UC, UD> &o) {
    *__0 = o.__0;
    *__1 = o.__1;
    *__2 = o.__2;
    *__3 = o.__3;
    return *this;
  }
};
template <class A, class B, class C, class D> __host__ __device__ constexpr __tied4<A, B, C, D> tie(A &v0, B &v1, C &v2, D &v3) {
  return __tied4<A, B, C, D>{&v0, &v1, &v2, &v3};
}

template <class A, class B, class C, class D, class E> struct tuple<A, B, C, D, E> {
  A __0;
  B __1;
  C __2;
  D __3;
  E __4;
  __host__ __device__ constexpr tuple() : __0(), __1(), __2(), __3(), __4() {}
  __host__ __device__ constexpr tuple(const A &v0, const B &v1, const C &v2, const D &v3, const E &v4) : __0(v0), __1(v1), __2(v2), __3(v3), __4(v4) {}
  template <class UA, class UB, class UC, class UD, class UE>
  __host__ __device__ constexpr tuple(const tuple<UA, UB, UC, UD, UE> &o) : __0(o.__0), __1(o.__1), __2(o.__2), __3(o.__3), __4(o.__4) {}
  template <class UA, class UB, class UC, class UD, class UE> __host__ __device__ constexpr tuple &operator=(const tuple<UA, UB, UC, UD, UE> &o) {
    __0 = o.__0;
    __1 = o.__1;
    __2 = o.__2;
    __3 = o.__3;
    __4 = o.__4;
    return *this;
  }
  template <size_t I> __host__ __device__ constexpr auto &__get() {
    if constexpr (I == 0)
      return __0;
    else if constexpr (I == 1)
      return __1;
    else if constexpr (I == 2)
      return __2;
    else if constexpr (I == 3)
      return __3;
    else
      return __4;
  }
  template <size_t I> __host__ __device__ constexpr const auto &__get() const {
    if constexpr (I == 0)
      return __0;
    else if constexpr (I == 1)
      return __1;
    else if constexpr (I == 2)
      return __2;
    else if constexpr (I == 3)
      return __3;
    else
      return __4;
  }
};

template <class A, class B, class C, class D, class E> __host__ __device__ constexpr tuple<A, B, C, D, E> make_tuple(A v0, B v1, C v2, D v3, E v4) {
  return tuple<A, B, C, D, E>(v0, v1, v2, v3, v4);
}

template <class A, class B, class C, class D, class E> struct __tied5 {
  A *__0;
  B *__1;
  C *__2;
  D *__3;
  E *__4;
  template <class UA, class UB, class UC, class UD, class UE> __host__ __device__ constexpr __tied5 &operator=(const tuple<UA, UB, UC, UD, UE> &o) {
    *__0 = o.__0;
    *__1 = o.__1;
    *__2 = o.__2;
    *__3 = o.__3;
    *__4 = o.__4;
    return *this;
  }
};
template <class A, class B, class C, class D, class E> __host__ __device__ constexpr __tied5<A, B, C, D, E> tie(A &v0, B &v1, C &v2, D &v3, E &v4) {
  return __tied5<A, B, C, D, E>{&v0, &v1, &v2, &v3, &v4};
}

template <class A, class B, class C, class D, class E, class F> struct tuple<A, B, C, D, E, F> {
  A __0;
  B __1;
  C __2;
  D __3;
  E __4;
  F __5;
  __host__ __device__ constexpr tuple() : __0(), __1(), __2(), __3(), __4(), __5() {}
  __host__ __device__ constexpr tuple(const A &v0, const B &v1, const C &v2, const D &v3, const E &v4, const F &v5) : __0(v0), __1(v1), __2(v2), __3(v3), __4(v4), __5(v5) {}
  template <class UA, class UB, class UC, class UD, class UE, class UF>
  __host__ __device__ constexpr tuple(const tuple<UA, UB, UC, UD, UE, UF> &o) : __0(o.__0), __1(o.__1), __2(o.__2), __3(o.__3), __4(o.__4), __5(o.__5) {}
  template <class UA, class UB, class UC, class UD, class UE, class UF> __host__ __device__ constexpr tuple &operator=(const tuple<UA, UB, UC, UD, UE, UF> &o) {
    __0 = o.__0;
    __1 = o.__1;
    __2 = o.__2;
    __3 = o.__3;
    __4 = o.__4;
    __5 = o.__5;
    return *this;
  }
  template <size_t I> __host__ __device__ constexpr auto &__get() {
    if constexpr (I == 0)
      return __0;
    else if constexpr (I == 1)
      return __1;
    else if constexpr (I == 2)
      return __2;
    else if constexpr (I == 3)
      return __3;
    else if constexpr (I == 4)
      return __4;
    else
      return __5;
  }
  template <size_t I> __host__ __device__ constexpr const auto &__get() const {
    if constexpr (I == 0)
      return __0;
    else if constexpr (I == 1)
      return __1;
    else if constexpr (I == 2)
      return __2;
    else if constexpr (I == 3)
      return __3;
    else if constexpr (I == 4)
      return __4;
    else
      return __5;
  }
};

template <class A, class B, class C, class D, class E, class F> __host__ __device__ constexpr tuple<A, B, C, D, E, F> make_tuple(A v0, B v1, C v2, D v3, E v4, F v5) {
  return tuple<A, B, C, D, E, F>(v0, v1, v2, v3, v4, v5);
}

template <class A, class B, class C, class D, class E, class F> struct __tied6 {
  A *__0;
  B *__1;
  C *__2;
  D *__3;
  E *__4;
  F *__5;
  template <class UA, class UB, class UC, class UD, class UE, class UF> __host__ __device__ constexpr __tied6 &operator=(const tuple<UA, UB, UC, UD, UE, UF> &o) {
    *__0 = o.__0;
    *__1 = o.__1;
    *__2 = o.__2;
    *__3 = o.__3;
    *__4 = o.__4;
    *__5 = o.__5;
    return *this;
  }
};
template <class A, class B, class C, class D, class E, class F> __host__ __device__ constexpr __tied6<A, B, C, D, E, F> tie(A &v0, B &v1, C &v2, D &v3, E &v4, F &v5) {
  return __tied6<A, B, C, D, E, F>{&v0, &v1, &v2, &v3, &v4, &v5};
}

template <class A, class B, class C, class D, class E, class F, class G> struct tuple<A, B, C, D, E, F, G> {
  A __0;
  B __1;
  C __2;
  D __3;
  E __4;
  F __5;
  G __6;
  __host__ __device__ constexpr tuple() : __0(), __1(), __2(), __3(), __4(), __5(), __6() {}
  __host__ __device__ constexpr tuple(const A &v0, const B &v1, const C &v2, const D &v3, const E &v4, const F &v5, const G &v6) : __0(v0), __1(v1), __2(v2), __3(v3), __4(v4), __5(v5), __6(v6) {}
  template <class UA, class UB, class UC, class UD, class UE, class UF, class UG>
  __host__ __device__ constexpr tuple(const tuple<UA, UB, UC, UD, UE, UF, UG> &o) : __0(o.__0), __1(o.__1), __2(o.__2), __3(o.__3), __4(o.__4), __5(o.__5), __6(o.__6) {}
  template <class UA, class UB, class UC, class UD, class UE, class UF, class UG> __host__ __device__ constexpr tuple &operator=(const tuple<UA, UB, UC, UD, UE, UF, UG> &o) {
    __0 = o.__0;
    __1 = o.__1;
    __2 = o.__2;
    __3 = o.__3;
    __4 = o.__4;
    __5 = o.__5;
    __6 = o.__6;
    return *this;
  }
  template <size_t I> __host__ __device__ constexpr auto &__get() {
    if constexpr (I == 0)
      return __0;
    else if constexpr (I == 1)
      return __1;
    else if constexpr (I == 2)
      return __2;
    else if constexpr (I == 3)
      return __3;
    else if constexpr (I == 4)
      return __4;
    else if constexpr (I == 5)
      return __5;
    else
      return __6;
  }
  template <size_t I> __host__ __device__ constexpr const auto &__get() const {
    if constexpr (I == 0)
      return __0;
    else if constexpr (I == 1)
      return __1;
    else if constexpr (I == 2)
      return __2;
    else if constexpr (I == 3)
      return __3;
    else if constexpr (I == 4)
      return __4;
    else if constexpr (I == 5)
      return __5;
    else
      return __6;
  }
};

template <class A, class B, class C, class D, class E, class F, class G> __host__ __device__ constexpr tuple<A, B, C, D, E, F, G> make_tuple(A v0, B v1, C v2, D v3, E v4, F v5, G v6) {
  return tuple<A, B, C, D, E, F, G>(v0, v1, v2, v3, v4, v5, v6);
}

template <class A, class B, class C, class D, class E, class F, class G> struct __tied7 {
  A *__0;
  B *__1;
  C *__2;
  D *__3;
  E *__4;
  F *__5;
  G *__6;
  template <class UA, class UB, class UC, class UD, class UE, class UF, class UG> __host__ __device__ constexpr __tied7 &operator=(const tuple<UA, UB, UC, UD, UE, UF, UG> &o) {
    *__0 = o.__0;
    *__1 = o.__1;
    *__2 = o.__2;
    *__3 = o.__3;
    *__4 = o.__4;
    *__5 = o.__5;
    *__6 = o.__6;
    return *this;
  }
};
template <class A, class B, class C, class D, class E, class F, class G> __host__ __device__ constexpr __tied7<A, B, C, D, E, F, G> tie(A &v0, B &v1, C &v2, D &v3, E &v4, F &v5, G &v6) {
  return __tied7<A, B, C, D, E, F, G>{&v0, &v1, &v2, &v3, &v4, &v5, &v6};
}

template <class A, class B, class C, class D, class E, class F, class G, class H> struct tuple<A, B, C, D, E, F, G, H> {
  A __0;
  B __1;
  C __2;
  D __3;
  E __4;
  F __5;
  G __6;
  H __7;
  __host__ __device__ constexpr tuple() : __0(), __1(), __2(), __3(), __4(), __5(), __6(), __7() {}
  __host__ __device__ constexpr tuple(const A &v0, const B &v1, const C &v2, const D &v3, const E &v4, const F &v5, const G &v6, const H &v7) : __0(v0), __1(v1), __2(v2), __3(v3), __4(v4), __5(v5), __6(v6), __7(v7) {}
  template <class UA, class UB, class UC, class UD, class UE, class UF, class UG, class UH>
  __host__ __device__ constexpr tuple(const tuple<UA, UB, UC, UD, UE, UF, UG, UH> &o) : __0(o.__0), __1(o.__1), __2(o.__2), __3(o.__3), __4(o.__4), __5(o.__5), __6(o.__6), __7(o.__7) {}
  template <class UA, class UB, class UC, class UD, class UE, class UF, class UG, class UH> __host__ __device__ constexpr tuple &operator=(const tuple<UA, UB, UC, UD, UE, UF, UG, UH> &o) {
    __0 = o.__0;
    __1 = o.__1;
    __2 = o.__2;
    __3 = o.__3;
    __4 = o.__4;
    __5 = o.__5;
    __6 = o.__6;
    __7 = o.__7;
    return *this;
  }
  template <size_t I> __host__ __device__ constexpr auto &__get() {
    if constexpr (I == 0)
      return __0;
    else if constexpr (I == 1)
      return __1;
    else if constexpr (I == 2)
      return __2;
    else if constexpr (I == 3)
      return __3;
    else if constexpr (I == 4)
      return __4;
    else if constexpr (I == 5)
      return __5;
    else if constexpr (I == 6)
      return __6;
    else
      return __7;
  }
  template <size_t I> __host__ __device__ constexpr const auto &__get() const {
    if constexpr (I == 0)
      return __0;
    else if constexpr (I == 1)
      return __1;
    else if constexpr (I == 2)
      return __2;
    else if constexpr (I == 3)
      return __3;
    else if constexpr (I == 4)
      return __4;
    else if constexpr (I == 5)
      return __5;
    else if constexpr (I == 6)
      return __6;
    else
      return __7;
  }
};

template <class A, class B, class C, class D, class E, class F, class G, class H> __host__ __device__ constexpr tuple<A, B, C, D, E, F, G, H> make_tuple(A v0, B v1, C v2, D v3, E v4, F v5, G v6, H v7) {
  return tuple<A, B, C, D, E, F, G, H>(v0, v1, v2, v3, v4, v5, v6, v7);
}

template <class A, class B, class C, class D, class E, class F, class G, class H> struct __tied8 {
  A *__0;
  B *__1;
  C *__2;
  D *__3;
  E *__4;
  F *__5;
  G *__6;
  H *__7;
  template <class UA, class UB, class UC, class UD, class UE, class UF, class UG, class UH> __host__ __device__ constexpr __tied8 &operator=(const tuple<UA, UB, UC, UD, UE, UF, UG, UH> &o) {
    *__0 = o.__0;
    *__1 = o.__1;
    *__2 = o.__2;
    *__3 = o.__3;
    *__4 = o.__4;
    *__5 = o.__5;
    *__6 = o.__6;
    *__7 = o.__7;
    return *this;
  }
};
template <class A, class B, class C, class D, class E, class F, class G, class H> __host__ __device__ constexpr __tied8<A, B, C, D, E, F, G, H> tie(A &v0, B &v1, C &v2, D &v3, E &v4, F &v5, G &v6, H &v7) {
  return __tied8<A, B, C, D, E, F, G, H>{&v0, &v1, &v2, &v3, &v4, &v5, &v6, &v7};
}

// Element I of a tuple (of an rvalue tuple too, alive to the end of the
// full expression).
template <size_t I, class Tuple> __host__ __device__ constexpr auto &get(Tuple &&t) {
  return t.template __get<I>();
}

// What a `tie` element that takes nothing is bound to.
struct __ignore_t {
  template <class T> __host__ __device__ constexpr const __ignore_t &operator=(const T &) const { return *this; }
};
__device__ const __ignore_t ignore{};

template <class T> struct tuple_size;
template <> struct tuple_size<tuple<>> : integral_constant<size_t, 0> {};
template <class A>
struct tuple_size<tuple<A>> : integral_constant<size_t, 1> {};
template <class A, class B>
struct tuple_size<tuple<A, B>> : integral_constant<size_t, 2> {};
template <class A, class B, class C>
struct tuple_size<tuple<A, B, C>> : integral_constant<size_t, 3> {};
template <class A, class B, class C, class D>
struct tuple_size<tuple<A, B, C, D>> : integral_constant<size_t, 4> {};
template <class A, class B, class C, class D, class E>
struct tuple_size<tuple<A, B, C, D, E>> : integral_constant<size_t, 5> {};
template <class A, class B, class C, class D, class E, class F>
struct tuple_size<tuple<A, B, C, D, E, F>> : integral_constant<size_t, 6> {};
template <class A, class B, class C, class D, class E, class F, class G>
struct tuple_size<tuple<A, B, C, D, E, F, G>> : integral_constant<size_t, 7> {};
template <class A, class B, class C, class D, class E, class F, class G, class H>
struct tuple_size<tuple<A, B, C, D, E, F, G, H>> : integral_constant<size_t, 8> {};

// The type of element I: one partial specialization an index and length.
template <size_t I, class T> struct tuple_element;
template <class A> struct tuple_element<0, tuple<A>> {
  typedef A type;
};
template <class A, class B> struct tuple_element<0, tuple<A, B>> {
  typedef A type;
};
template <class A, class B> struct tuple_element<1, tuple<A, B>> {
  typedef B type;
};
template <class A, class B, class C> struct tuple_element<0, tuple<A, B, C>> {
  typedef A type;
};
template <class A, class B, class C> struct tuple_element<1, tuple<A, B, C>> {
  typedef B type;
};
template <class A, class B, class C> struct tuple_element<2, tuple<A, B, C>> {
  typedef C type;
};
template <class A, class B, class C, class D> struct tuple_element<0, tuple<A, B, C, D>> {
  typedef A type;
};
template <class A, class B, class C, class D> struct tuple_element<1, tuple<A, B, C, D>> {
  typedef B type;
};
template <class A, class B, class C, class D> struct tuple_element<2, tuple<A, B, C, D>> {
  typedef C type;
};
template <class A, class B, class C, class D> struct tuple_element<3, tuple<A, B, C, D>> {
  typedef D type;
};
template <class A, class B, class C, class D, class E> struct tuple_element<0, tuple<A, B, C, D, E>> {
  typedef A type;
};
template <class A, class B, class C, class D, class E> struct tuple_element<1, tuple<A, B, C, D, E>> {
  typedef B type;
};
template <class A, class B, class C, class D, class E> struct tuple_element<2, tuple<A, B, C, D, E>> {
  typedef C type;
};
template <class A, class B, class C, class D, class E> struct tuple_element<3, tuple<A, B, C, D, E>> {
  typedef D type;
};
template <class A, class B, class C, class D, class E> struct tuple_element<4, tuple<A, B, C, D, E>> {
  typedef E type;
};
template <class A, class B, class C, class D, class E, class F> struct tuple_element<0, tuple<A, B, C, D, E, F>> {
  typedef A type;
};
template <class A, class B, class C, class D, class E, class F> struct tuple_element<1, tuple<A, B, C, D, E, F>> {
  typedef B type;
};
template <class A, class B, class C, class D, class E, class F> struct tuple_element<2, tuple<A, B, C, D, E, F>> {
  typedef C type;
};
template <class A, class B, class C, class D, class E, class F> struct tuple_element<3, tuple<A, B, C, D, E, F>> {
  typedef D type;
};
template <class A, class B, class C, class D, class E, class F> struct tuple_element<4, tuple<A, B, C, D, E, F>> {
  typedef E type;
};
template <class A, class B, class C, class D, class E, class F> struct tuple_element<5, tuple<A, B, C, D, E, F>> {
  typedef F type;
};
template <class A, class B, class C, class D, class E, class F, class G> struct tuple_element<0, tuple<A, B, C, D, E, F, G>> {
  typedef A type;
};
template <class A, class B, class C, class D, class E, class F, class G> struct tuple_element<1, tuple<A, B, C, D, E, F, G>> {
  typedef B type;
};
template <class A, class B, class C, class D, class E, class F, class G> struct tuple_element<2, tuple<A, B, C, D, E, F, G>> {
  typedef C type;
};
template <class A, class B, class C, class D, class E, class F, class G> struct tuple_element<3, tuple<A, B, C, D, E, F, G>> {
  typedef D type;
};
template <class A, class B, class C, class D, class E, class F, class G> struct tuple_element<4, tuple<A, B, C, D, E, F, G>> {
  typedef E type;
};
template <class A, class B, class C, class D, class E, class F, class G> struct tuple_element<5, tuple<A, B, C, D, E, F, G>> {
  typedef F type;
};
template <class A, class B, class C, class D, class E, class F, class G> struct tuple_element<6, tuple<A, B, C, D, E, F, G>> {
  typedef G type;
};
template <class A, class B, class C, class D, class E, class F, class G, class H> struct tuple_element<0, tuple<A, B, C, D, E, F, G, H>> {
  typedef A type;
};
template <class A, class B, class C, class D, class E, class F, class G, class H> struct tuple_element<1, tuple<A, B, C, D, E, F, G, H>> {
  typedef B type;
};
template <class A, class B, class C, class D, class E, class F, class G, class H> struct tuple_element<2, tuple<A, B, C, D, E, F, G, H>> {
  typedef C type;
};
template <class A, class B, class C, class D, class E, class F, class G, class H> struct tuple_element<3, tuple<A, B, C, D, E, F, G, H>> {
  typedef D type;
};
template <class A, class B, class C, class D, class E, class F, class G, class H> struct tuple_element<4, tuple<A, B, C, D, E, F, G, H>> {
  typedef E type;
};
template <class A, class B, class C, class D, class E, class F, class G, class H> struct tuple_element<5, tuple<A, B, C, D, E, F, G, H>> {
  typedef F type;
};
template <class A, class B, class C, class D, class E, class F, class G, class H> struct tuple_element<6, tuple<A, B, C, D, E, F, G, H>> {
  typedef G type;
};
template <class A, class B, class C, class D, class E, class F, class G, class H> struct tuple_element<7, tuple<A, B, C, D, E, F, G, H>> {
  typedef H type;
};
template <size_t I, class T> using tuple_element_t = typename tuple_element<I, T>::type;

// Tuples of one length compare element by element: `==` all equal, `<`
// lexicographically (by `<` alone, as C++'s), the others from those two.
__host__ __device__ constexpr bool operator==(const tuple<> &x, const tuple<> &y) {
  return true;
}
__host__ __device__ constexpr bool operator<(const tuple<> &x, const tuple<> &y) {
  return false;
}
__host__ __device__ constexpr bool operator!=(const tuple<> &x, const tuple<> &y) {
  return !(x == y);
}
__host__ __device__ constexpr bool operator>(const tuple<> &x, const tuple<> &y) {
  return y < x;
}
__host__ __device__ constexpr bool operator<=(const tuple<> &x, const tuple<> &y) {
  return !(y < x);
}
__host__ __device__ constexpr bool operator>=(const tuple<> &x, const tuple<> &y) {
  return !(x < y);
}
template <class A, class UA>
__host__ __device__ constexpr bool operator==(const tuple<A> &x, const tuple<UA> &y) {
  return x.__0 == y.__0;
}
template <class A, class UA>
__host__ __device__ constexpr bool operator<(const tuple<A> &x, const tuple<UA> &y) {
  return x.__0 < y.__0;
}
template <class A, class UA>
__host__ __device__ constexpr bool operator!=(const tuple<A> &x, const tuple<UA> &y) {
  return !(x == y);
}
template <class A, class UA>
__host__ __device__ constexpr bool operator>(const tuple<A> &x, const tuple<UA> &y) {
  return y < x;
}
template <class A, class UA>
__host__ __device__ constexpr bool operator<=(const tuple<A> &x, const tuple<UA> &y) {
  return !(y < x);
}
template <class A, class UA>
__host__ __device__ constexpr bool operator>=(const tuple<A> &x, const tuple<UA> &y) {
  return !(x < y);
}
template <class A, class B, class UA, class UB>
__host__ __device__ constexpr bool operator==(const tuple<A, B> &x, const tuple<UA, UB> &y) {
  return x.__0 == y.__0 && x.__1 == y.__1;
}
template <class A, class B, class UA, class UB>
__host__ __device__ constexpr bool operator<(const tuple<A, B> &x, const tuple<UA, UB> &y) {
  return x.__0 < y.__0 || (!(y.__0 < x.__0) && (x.__1 < y.__1));
}
template <class A, class B, class UA, class UB>
__host__ __device__ constexpr bool operator!=(const tuple<A, B> &x, const tuple<UA, UB> &y) {
  return !(x == y);
}
template <class A, class B, class UA, class UB>
__host__ __device__ constexpr bool operator>(const tuple<A, B> &x, const tuple<UA, UB> &y) {
  return y < x;
}
template <class A, class B, class UA, class UB>
__host__ __device__ constexpr bool operator<=(const tuple<A, B> &x, const tuple<UA, UB> &y) {
  return !(y < x);
}
template <class A, class B, class UA, class UB>
__host__ __device__ constexpr bool operator>=(const tuple<A, B> &x, const tuple<UA, UB> &y) {
  return !(x < y);
}
template <class A, class B, class C, class UA, class UB, class UC>
__host__ __device__ constexpr bool operator==(const tuple<A, B, C> &x, const tuple<UA, UB, UC> &y) {
  return x.__0 == y.__0 && x.__1 == y.__1 && x.__2 == y.__2;
}
template <class A, class B, class C, class UA, class UB, class UC>
__host__ __device__ constexpr bool operator<(const tuple<A, B, C> &x, const tuple<UA, UB, UC> &y) {
  return x.__0 < y.__0 || (!(y.__0 < x.__0) && (x.__1 < y.__1 || (!(y.__1 < x.__1) && (x.__2 < y.__2))));
}
template <class A, class B, class C, class UA, class UB, class UC>
__host__ __device__ constexpr bool operator!=(const tuple<A, B, C> &x, const tuple<UA, UB, UC> &y) {
  return !(x == y);
}
template <class A, class B, class C, class UA, class UB, class UC>
__host__ __device__ constexpr bool operator>(const tuple<A, B, C> &x, const tuple<UA, UB, UC> &y) {
  return y < x;
}
template <class A, class B, class C, class UA, class UB, class UC>
__host__ __device__ constexpr bool operator<=(const tuple<A, B, C> &x, const tuple<UA, UB, UC> &y) {
  return !(y < x);
}
template <class A, class B, class C, class UA, class UB, class UC>
__host__ __device__ constexpr bool operator>=(const tuple<A, B, C> &x, const tuple<UA, UB, UC> &y) {
  return !(x < y);
}
template <class A, class B, class C, class D, class UA, class UB, class UC, class UD>
__host__ __device__ constexpr bool operator==(const tuple<A, B, C, D> &x, const tuple<UA, UB, UC, UD> &y) {
  return x.__0 == y.__0 && x.__1 == y.__1 && x.__2 == y.__2 && x.__3 == y.__3;
}
template <class A, class B, class C, class D, class UA, class UB, class UC, class UD>
__host__ __device__ constexpr bool operator<(const tuple<A, B, C, D> &x, const tuple<UA, UB, UC, UD> &y) {
  return x.__0 < y.__0 || (!(y.__0 < x.__0) && (x.__1 < y.__1 || (!(y.__1 < x.__1) && (x.__2 < y.__2 || (!(y.__2 < x.__2) && (x.__3 < y.__3))))));
}
template <class A, class B, class C, class D, class UA, class UB, class UC, class UD>
__host__ __device__ constexpr bool operator!=(const tuple<A, B, C, D> &x, const tuple<UA, UB, UC, UD> &y) {
  return !(x == y);
}
template <class A, class B, class C, class D, class UA, class UB, class UC, class UD>
__host__ __device__ constexpr bool operator>(const tuple<A, B, C, D> &x, const tuple<UA, UB, UC, UD> &y) {
  return y < x;
}
template <class A, class B, class C, class D, class UA, class UB, class UC, class UD>
__host__ __device__ constexpr bool operator<=(const tuple<A, B, C, D> &x, const tuple<UA, UB, UC, UD> &y) {
  return !(y < x);
}
template <class A, class B, class C, class D, class UA, class UB, class UC, class UD>
__host__ __device__ constexpr bool operator>=(const tuple<A, B, C, D> &x, const tuple<UA, UB, UC, UD> &y) {
  return !(x < y);
}
template <class A, class B, class C, class D, class E, class UA, class UB, class UC, class UD, class UE>
__host__ __device__ constexpr bool operator==(const tuple<A, B, C, D, E> &x, const tuple<UA, UB, UC, UD, UE> &y) {
  return x.__0 == y.__0 && x.__1 == y.__1 && x.__2 == y.__2 && x.__3 == y.__3 && x.__4 == y.__4;
}
template <class A, class B, class C, class D, class E, class UA, class UB, class UC, class UD, class UE>
__host__ __device__ constexpr bool operator<(const tuple<A, B, C, D, E> &x, const tuple<UA, UB, UC, UD, UE> &y) {
  return x.__0 < y.__0 || (!(y.__0 < x.__0) && (x.__1 < y.__1 || (!(y.__1 < x.__1) && (x.__2 < y.__2 || (!(y.__2 < x.__2) && (x.__3 < y.__3 || (!(y.__3 < x.__3) && (x.__4 < y.__4))))))));
}
template <class A, class B, class C, class D, class E, class UA, class UB, class UC, class UD, class UE>
__host__ __device__ constexpr bool operator!=(const tuple<A, B, C, D, E> &x, const tuple<UA, UB, UC, UD, UE> &y) {
  return !(x == y);
}
template <class A, class B, class C, class D, class E, class UA, class UB, class UC, class UD, class UE>
__host__ __device__ constexpr bool operator>(const tuple<A, B, C, D, E> &x, const tuple<UA, UB, UC, UD, UE> &y) {
  return y < x;
}
template <class A, class B, class C, class D, class E, class UA, class UB, class UC, class UD, class UE>
__host__ __device__ constexpr bool operator<=(const tuple<A, B, C, D, E> &x, const tuple<UA, UB, UC, UD, UE> &y) {
  return !(y < x);
}
template <class A, class B, class C, class D, class E, class UA, class UB, class UC, class UD, class UE>
__host__ __device__ constexpr bool operator>=(const tuple<A, B, C, D, E> &x, const tuple<UA, UB, UC, UD, UE> &y) {
  return !(x < y);
}
template <class A, class B, class C, class D, class E, class F, class UA, class UB, class UC, class UD, class UE, class UF>
__host__ __device__ constexpr bool operator==(const tuple<A, B, C, D, E, F> &x, const tuple<UA, UB, UC, UD, UE, UF> &y) {
  return x.__0 == y.__0 && x.__1 == y.__1 && x.__2 == y.__2 && x.__3 == y.__3 && x.__4 == y.__4 && x.__5 == y.__5;
}
template <class A, class B, class C, class D, class E, class F, class UA, class UB, class UC, class UD, class UE, class UF>
__host__ __device__ constexpr bool operator<(const tuple<A, B, C, D, E, F> &x, const tuple<UA, UB, UC, UD, UE, UF> &y) {
  return x.__0 < y.__0 || (!(y.__0 < x.__0) && (x.__1 < y.__1 || (!(y.__1 < x.__1) && (x.__2 < y.__2 || (!(y.__2 < x.__2) && (x.__3 < y.__3 || (!(y.__3 < x.__3) && (x.__4 < y.__4 || (!(y.__4 < x.__4) && (x.__5 < y.__5))))))))));
}
template <class A, class B, class C, class D, class E, class F, class UA, class UB, class UC, class UD, class UE, class UF>
__host__ __device__ constexpr bool operator!=(const tuple<A, B, C, D, E, F> &x, const tuple<UA, UB, UC, UD, UE, UF> &y) {
  return !(x == y);
}
template <class A, class B, class C, class D, class E, class F, class UA, class UB, class UC, class UD, class UE, class UF>
__host__ __device__ constexpr bool operator>(const tuple<A, B, C, D, E, F> &x, const tuple<UA, UB, UC, UD, UE, UF> &y) {
  return y < x;
}
template <class A, class B, class C, class D, class E, class F, class UA, class UB, class UC, class UD, class UE, class UF>
__host__ __device__ constexpr bool operator<=(const tuple<A, B, C, D, E, F> &x, const tuple<UA, UB, UC, UD, UE, UF> &y) {
  return !(y < x);
}
template <class A, class B, class C, class D, class E, class F, class UA, class UB, class UC, class UD, class UE, class UF>
__host__ __device__ constexpr bool operator>=(const tuple<A, B, C, D, E, F> &x, const tuple<UA, UB, UC, UD, UE, UF> &y) {
  return !(x < y);
}
template <class A, class B, class C, class D, class E, class F, class G, class UA, class UB, class UC, class UD, class UE, class UF, class UG>
__host__ __device__ constexpr bool operator==(const tuple<A, B, C, D, E, F, G> &x, const tuple<UA, UB, UC, UD, UE, UF, UG> &y) {
  return x.__0 == y.__0 && x.__1 == y.__1 && x.__2 == y.__2 && x.__3 == y.__3 && x.__4 == y.__4 && x.__5 == y.__5 && x.__6 == y.__6;
}
template <class A, class B, class C, class D, class E, class F, class G, class UA, class UB, class UC, class UD, class UE, class UF, class UG>
__host__ __device__ constexpr bool operator<(const tuple<A, B, C, D, E, F, G> &x, const tuple<UA, UB, UC, UD, UE, UF, UG> &y) {
  return x.__0 < y.__0 || (!(y.__0 < x.__0) && (x.__1 < y.__1 || (!(y.__1 < x.__1) && (x.__2 < y.__2 || (!(y.__2 < x.__2) && (x.__3 < y.__3 || (!(y.__3 < x.__3) && (x.__4 < y.__4 || (!(y.__4 < x.__4) && (x.__5 < y.__5 || (!(y.__5 < x.__5) && (x.__6 < y.__6))))))))))));
}
template <class A, class B, class C, class D, class E, class F, class G, class UA, class UB, class UC, class UD, class UE, class UF, class UG>
__host__ __device__ constexpr bool operator!=(const tuple<A, B, C, D, E, F, G> &x, const tuple<UA, UB, UC, UD, UE, UF, UG> &y) {
  return !(x == y);
}
template <class A, class B, class C, class D, class E, class F, class G, class UA, class UB, class UC, class UD, class UE, class UF, class UG>
__host__ __device__ constexpr bool operator>(const tuple<A, B, C, D, E, F, G> &x, const tuple<UA, UB, UC, UD, UE, UF, UG> &y) {
  return y < x;
}
template <class A, class B, class C, class D, class E, class F, class G, class UA, class UB, class UC, class UD, class UE, class UF, class UG>
__host__ __device__ constexpr bool operator<=(const tuple<A, B, C, D, E, F, G> &x, const tuple<UA, UB, UC, UD, UE, UF, UG> &y) {
  return !(y < x);
}
template <class A, class B, class C, class D, class E, class F, class G, class UA, class UB, class UC, class UD, class UE, class UF, class UG>
__host__ __device__ constexpr bool operator>=(const tuple<A, B, C, D, E, F, G> &x, const tuple<UA, UB, UC, UD, UE, UF, UG> &y) {
  return !(x < y);
}
template <class A, class B, class C, class D, class E, class F, class G, class H, class UA, class UB, class UC, class UD, class UE, class UF, class UG, class UH>
__host__ __device__ constexpr bool operator==(const tuple<A, B, C, D, E, F, G, H> &x, const tuple<UA, UB, UC, UD, UE, UF, UG, UH> &y) {
  return x.__0 == y.__0 && x.__1 == y.__1 && x.__2 == y.__2 && x.__3 == y.__3 && x.__4 == y.__4 && x.__5 == y.__5 && x.__6 == y.__6 && x.__7 == y.__7;
}
template <class A, class B, class C, class D, class E, class F, class G, class H, class UA, class UB, class UC, class UD, class UE, class UF, class UG, class UH>
__host__ __device__ constexpr bool operator<(const tuple<A, B, C, D, E, F, G, H> &x, const tuple<UA, UB, UC, UD, UE, UF, UG, UH> &y) {
  return x.__0 < y.__0 || (!(y.__0 < x.__0) && (x.__1 < y.__1 || (!(y.__1 < x.__1) && (x.__2 < y.__2 || (!(y.__2 < x.__2) && (x.__3 < y.__3 || (!(y.__3 < x.__3) && (x.__4 < y.__4 || (!(y.__4 < x.__4) && (x.__5 < y.__5 || (!(y.__5 < x.__5) && (x.__6 < y.__6 || (!(y.__6 < x.__6) && (x.__7 < y.__7))))))))))))));
}
template <class A, class B, class C, class D, class E, class F, class G, class H, class UA, class UB, class UC, class UD, class UE, class UF, class UG, class UH>
__host__ __device__ constexpr bool operator!=(const tuple<A, B, C, D, E, F, G, H> &x, const tuple<UA, UB, UC, UD, UE, UF, UG, UH> &y) {
  return !(x == y);
}
template <class A, class B, class C, class D, class E, class F, class G, class H, class UA, class UB, class UC, class UD, class UE, class UF, class UG, class UH>
__host__ __device__ constexpr bool operator>(const tuple<A, B, C, D, E, F, G, H> &x, const tuple<UA, UB, UC, UD, UE, UF, UG, UH> &y) {
  return y < x;
}
template <class A, class B, class C, class D, class E, class F, class G, class H, class UA, class UB, class UC, class UD, class UE, class UF, class UG, class UH>
__host__ __device__ constexpr bool operator<=(const tuple<A, B, C, D, E, F, G, H> &x, const tuple<UA, UB, UC, UD, UE, UF, UG, UH> &y) {
  return !(y < x);
}
template <class A, class B, class C, class D, class E, class F, class G, class H, class UA, class UB, class UC, class UD, class UE, class UF, class UG, class UH>
__host__ __device__ constexpr bool operator>=(const tuple<A, B, C, D, E, F, G, H> &x, const tuple<UA, UB, UC, UD, UE, UF, UG, UH> &y) {
  return !(x < y);
}

// `f` called with the tuple's elements, as lvalues of the tuple.
template <class Fn>
__host__ __device__ constexpr auto apply(Fn &&f, tuple<> &t) -> decltype(f()) {
  return f();
}
template <class Fn>
__host__ __device__ constexpr auto apply(Fn &&f, const tuple<> &t) -> decltype(f()) {
  return f();
}
template <class Fn, class A>
__host__ __device__ constexpr auto apply(Fn &&f, tuple<A> &t) -> decltype(f(t.__0)) {
  return f(t.__0);
}
template <class Fn, class A>
__host__ __device__ constexpr auto apply(Fn &&f, const tuple<A> &t) -> decltype(f(t.__0)) {
  return f(t.__0);
}
template <class Fn, class A, class B>
__host__ __device__ constexpr auto apply(Fn &&f, tuple<A, B> &t) -> decltype(f(t.__0, t.__1)) {
  return f(t.__0, t.__1);
}
template <class Fn, class A, class B>
__host__ __device__ constexpr auto apply(Fn &&f, const tuple<A, B> &t) -> decltype(f(t.__0, t.__1)) {
  return f(t.__0, t.__1);
}
template <class Fn, class A, class B, class C>
__host__ __device__ constexpr auto apply(Fn &&f, tuple<A, B, C> &t) -> decltype(f(t.__0, t.__1, t.__2)) {
  return f(t.__0, t.__1, t.__2);
}
template <class Fn, class A, class B, class C>
__host__ __device__ constexpr auto apply(Fn &&f, const tuple<A, B, C> &t) -> decltype(f(t.__0, t.__1, t.__2)) {
  return f(t.__0, t.__1, t.__2);
}
template <class Fn, class A, class B, class C, class D>
__host__ __device__ constexpr auto apply(Fn &&f, tuple<A, B, C, D> &t) -> decltype(f(t.__0, t.__1, t.__2, t.__3)) {
  return f(t.__0, t.__1, t.__2, t.__3);
}
template <class Fn, class A, class B, class C, class D>
__host__ __device__ constexpr auto apply(Fn &&f, const tuple<A, B, C, D> &t) -> decltype(f(t.__0, t.__1, t.__2, t.__3)) {
  return f(t.__0, t.__1, t.__2, t.__3);
}
template <class Fn, class A, class B, class C, class D, class E>
__host__ __device__ constexpr auto apply(Fn &&f, tuple<A, B, C, D, E> &t) -> decltype(f(t.__0, t.__1, t.__2, t.__3, t.__4)) {
  return f(t.__0, t.__1, t.__2, t.__3, t.__4);
}
template <class Fn, class A, class B, class C, class D, class E>
__host__ __device__ constexpr auto apply(Fn &&f, const tuple<A, B, C, D, E> &t) -> decltype(f(t.__0, t.__1, t.__2, t.__3, t.__4)) {
  return f(t.__0, t.__1, t.__2, t.__3, t.__4);
}
template <class Fn, class A, class B, class C, class D, class E, class F>
__host__ __device__ constexpr auto apply(Fn &&f, tuple<A, B, C, D, E, F> &t) -> decltype(f(t.__0, t.__1, t.__2, t.__3, t.__4, t.__5)) {
  return f(t.__0, t.__1, t.__2, t.__3, t.__4, t.__5);
}
template <class Fn, class A, class B, class C, class D, class E, class F>
__host__ __device__ constexpr auto apply(Fn &&f, const tuple<A, B, C, D, E, F> &t) -> decltype(f(t.__0, t.__1, t.__2, t.__3, t.__4, t.__5)) {
  return f(t.__0, t.__1, t.__2, t.__3, t.__4, t.__5);
}
template <class Fn, class A, class B, class C, class D, class E, class F, class G>
__host__ __device__ constexpr auto apply(Fn &&f, tuple<A, B, C, D, E, F, G> &t) -> decltype(f(t.__0, t.__1, t.__2, t.__3, t.__4, t.__5, t.__6)) {
  return f(t.__0, t.__1, t.__2, t.__3, t.__4, t.__5, t.__6);
}
template <class Fn, class A, class B, class C, class D, class E, class F, class G>
__host__ __device__ constexpr auto apply(Fn &&f, const tuple<A, B, C, D, E, F, G> &t) -> decltype(f(t.__0, t.__1, t.__2, t.__3, t.__4, t.__5, t.__6)) {
  return f(t.__0, t.__1, t.__2, t.__3, t.__4, t.__5, t.__6);
}
template <class Fn, class A, class B, class C, class D, class E, class F, class G, class H>
__host__ __device__ constexpr auto apply(Fn &&f, tuple<A, B, C, D, E, F, G, H> &t) -> decltype(f(t.__0, t.__1, t.__2, t.__3, t.__4, t.__5, t.__6, t.__7)) {
  return f(t.__0, t.__1, t.__2, t.__3, t.__4, t.__5, t.__6, t.__7);
}
template <class Fn, class A, class B, class C, class D, class E, class F, class G, class H>
__host__ __device__ constexpr auto apply(Fn &&f, const tuple<A, B, C, D, E, F, G, H> &t) -> decltype(f(t.__0, t.__1, t.__2, t.__3, t.__4, t.__5, t.__6, t.__7)) {
  return f(t.__0, t.__1, t.__2, t.__3, t.__4, t.__5, t.__6, t.__7);
}

} // namespace __4
} // namespace std
} // namespace cuda
