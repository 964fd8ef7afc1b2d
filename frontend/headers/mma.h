// <mma.h> for kernelc: the warp matrix functions of `nvcuda::wmma` for the
// 16x16x16 tile with `__half` or `__nv_bfloat16` A and B and a `float`
// accumulator, written for kernelc as classes and function overloads of
// CUDA source over its tensor-core built-ins (docs/tensor-cores.md).
//
// A fragment is CUDA's: a class with the public array `x` of
// `num_elements` elements, in the order the PTX instruction gives its
// registers (an f16 A or B fragment is 8 registers of two halves, so 16
// `__half`s; a bf16 one is 4 registers, so 8 `__nv_bfloat16`s; the
// accumulator is 8 floats), so element-wise loops over `x` mean what they
// mean under nvcc. The other shapes and types (32x8x16, 8x32x16, a `__half`
// accumulator, integers, tf32, double, sub-byte) are a located error at
// the fragment that names them (docs/language.md, "Tensor cores").
#pragma once

namespace nvcuda {
namespace wmma {

// The roles and layouts, as tags.
struct matrix_a {};
struct matrix_b {};
struct accumulator {};
struct row_major {};
struct col_major {};

// How an accumulator is laid out in memory, chosen at run time.
enum layout_t { mem_row_major, mem_col_major };

// Any fragment kernelc does not provide. `sizeof(T) == 0` is never true
// but depends on the template's arguments, so only a use fails.
template <typename Use, int m, int n, int k, typename T, typename Layout = void>
class fragment {
  static_assert(sizeof(T) == 0,
                "kernelc provides the wmma fragments of the 16x16x16 tile with __half or "
                "__nv_bfloat16 A and B and a float accumulator");
};

// The fragments kernelc provides. CUDA derives each from a base class
// template that holds `x`; kernelc spells the members out in each
// fragment, which code that uses fragments cannot tell apart.
#define __KERNELC_WMMA_AB(USE, T, LAYOUT, SIZE)                                             \
  template <> class fragment<USE, 16, 16, 16, T, LAYOUT> {                                \
  public:                                                                                 \
    enum { num_elements = SIZE };                                                         \
    typedef T element_type;                                                               \
    typedef T storage_element_type;                                                       \
    T x[SIZE];                                                                            \
  };
__KERNELC_WMMA_AB(matrix_a, __half, row_major, 16)
__KERNELC_WMMA_AB(matrix_a, __half, col_major, 16)
__KERNELC_WMMA_AB(matrix_b, __half, row_major, 16)
__KERNELC_WMMA_AB(matrix_b, __half, col_major, 16)
__KERNELC_WMMA_AB(matrix_a, __nv_bfloat16, row_major, 8)
__KERNELC_WMMA_AB(matrix_a, __nv_bfloat16, col_major, 8)
__KERNELC_WMMA_AB(matrix_b, __nv_bfloat16, row_major, 8)
__KERNELC_WMMA_AB(matrix_b, __nv_bfloat16, col_major, 8)
#undef __KERNELC_WMMA_AB

template <> class fragment<accumulator, 16, 16, 16, float> {
public:
  enum { num_elements = 8 };
  typedef float element_type;
  typedef float storage_element_type;
  float x[8];
};

// Every element of `f` set to `v`. (CUDA's takes the fragment as its base
// class template; a fragment's elements are the same either way.)
template <typename Frag, typename V>
__device__ __forceinline__ void fill_fragment(Frag &f, const V &v) {
#pragma unroll
  for (int i = 0; i < Frag::num_elements; i++) f.x[i] = v;
}

// A fragment's registers as the built-ins take them: written by a load or
// an mma, read by an mma or a store.
template <typename Frag>
__device__ __forceinline__ unsigned *__regs_out(Frag &f) {
  return reinterpret_cast<unsigned *>(f.x);
}
template <typename Frag>
__device__ __forceinline__ const unsigned *__regs_in(const Frag &f) {
  return reinterpret_cast<const unsigned *>(f.x);
}
__device__ __forceinline__ const unsigned short *__bits(const __half *p) {
  return reinterpret_cast<const unsigned short *>(p);
}
__device__ __forceinline__ const unsigned short *__bits(const __nv_bfloat16 *p) {
  return reinterpret_cast<const unsigned short *>(p);
}

// A and B tiles: one overload per role, element type and layout.
#define __KERNELC_WMMA_LOAD(USE, U, T, TY, LAYOUT, L)                                      \
  __device__ __forceinline__ void load_matrix_sync(                                       \
      fragment<USE, 16, 16, 16, T, LAYOUT> &f, const T *p, unsigned ldm) {                \
    kernelc_wmma_load_##U##_##TY##_##L(__regs_out(f), __bits(p), ldm);                        \
  }
__KERNELC_WMMA_LOAD(matrix_a, a, __half, f16, row_major, row)
__KERNELC_WMMA_LOAD(matrix_a, a, __half, f16, col_major, col)
__KERNELC_WMMA_LOAD(matrix_b, b, __half, f16, row_major, row)
__KERNELC_WMMA_LOAD(matrix_b, b, __half, f16, col_major, col)
__KERNELC_WMMA_LOAD(matrix_a, a, __nv_bfloat16, bf16, row_major, row)
__KERNELC_WMMA_LOAD(matrix_a, a, __nv_bfloat16, bf16, col_major, col)
__KERNELC_WMMA_LOAD(matrix_b, b, __nv_bfloat16, bf16, row_major, row)
__KERNELC_WMMA_LOAD(matrix_b, b, __nv_bfloat16, bf16, col_major, col)
#undef __KERNELC_WMMA_LOAD

// The accumulator, in either memory layout.
__device__ __forceinline__ void load_matrix_sync(fragment<accumulator, 16, 16, 16, float> &f,
                                                 const float *p, unsigned ldm, layout_t layout) {
  if (layout == mem_row_major)
    kernelc_wmma_load_c_f32_row(f.x, p, ldm);
  else
    kernelc_wmma_load_c_f32_col(f.x, p, ldm);
}

__device__ __forceinline__ void store_matrix_sync(float *p,
                                                  const fragment<accumulator, 16, 16, 16, float> &f,
                                                  unsigned ldm, layout_t layout) {
  if (layout == mem_row_major)
    kernelc_wmma_store_d_f32_row(p, f.x, ldm);
  else
    kernelc_wmma_store_d_f32_col(p, f.x, ldm);
}

// D = A * B + C, one overload per element type and pair of layouts.
#define __KERNELC_WMMA_MMA(T, TY, LA, A, LB, B)                                            \
  __device__ __forceinline__ void mma_sync(fragment<accumulator, 16, 16, 16, float> &d,     \
                                           const fragment<matrix_a, 16, 16, 16, T, LA> &a,  \
                                           const fragment<matrix_b, 16, 16, 16, T, LB> &b,  \
                                           const fragment<accumulator, 16, 16, 16, float> &c) { \
    kernelc_wmma_mma_##TY##_##A##_##B(d.x, __regs_in(a), __regs_in(b), c.x);                     \
  }
__KERNELC_WMMA_MMA(__half, f16, row_major, row, row_major, row)
__KERNELC_WMMA_MMA(__half, f16, row_major, row, col_major, col)
__KERNELC_WMMA_MMA(__half, f16, col_major, col, row_major, row)
__KERNELC_WMMA_MMA(__half, f16, col_major, col, col_major, col)
__KERNELC_WMMA_MMA(__nv_bfloat16, bf16, row_major, row, row_major, row)
__KERNELC_WMMA_MMA(__nv_bfloat16, bf16, row_major, row, col_major, col)
__KERNELC_WMMA_MMA(__nv_bfloat16, bf16, col_major, col, row_major, row)
__KERNELC_WMMA_MMA(__nv_bfloat16, bf16, col_major, col, col_major, col)
#undef __KERNELC_WMMA_MMA

} // namespace wmma
} // namespace nvcuda
