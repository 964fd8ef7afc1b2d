// Dynamic shared memory typed per instantiation: every kernel template
// declares the same unsized byte array and views it as its own element type.
#pragma once

template <typename T>
struct DynamicSmem {
  __device__ __forceinline__ T *get() {
    extern __shared__ __align__(16) unsigned char occ_dynamic_smem[];
    return reinterpret_cast<T *>(occ_dynamic_smem);
  }
};

#define OCC_MAX_TAPS 32
