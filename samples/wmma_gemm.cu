// C = A * B with the tensor cores' WMMA interface, one warp per 16 x 16
// tile of C (needs sm_80: kernelc emits the f16 forms for sm_75 too).
//
// A (m x k) and B (k x n) arrive as small integers (only the low 3 bits are
// used) and are turned into f16 bit patterns while being staged in shared
// memory, so every product and sum is exact and a CPU reference can check
// C bit for bit. A is staged row-major, B column-major, matching the
// `_row_col` mma. The fragments are plain local arrays: 8 registers of two
// f16 each for A and B, 8 floats for the accumulator.
#include "kernelc.cuh"

// The f16 bits of an integer 0 <= v < 2048, by hand: kernelc has no half type.
__device__ unsigned short f16_bits(int v) {
  if (v == 0)
    return 0;
  int e = 31 - __clz(v);
  return (unsigned short)(((e + 15) << 10) | ((v << (10 - e)) & 0x3ff));
}

extern "C" __global__ void wmma_gemm(const int *a, const int *b, float *c, int m, int n, int k) {
  __shared__ unsigned short ta[16 * 16];
  __shared__ unsigned short tb[16 * 16];
  int row0 = blockIdx.y * 16;
  int col0 = blockIdx.x * 16;
  int lane = threadIdx.x;
  unsigned fa[8];
  unsigned fb[8];
  float acc[8];
  for (int i = 0; i < 8; i++)
    acc[i] = 0.0f;
  for (int k0 = 0; k0 < k; k0 += 16) {
    // 32 lanes stage 256 elements of each tile: 8 each.
    for (int e = lane; e < 256; e += 32) {
      int r = e / 16, q = e % 16;
      ta[r * 16 + q] = f16_bits(a[(row0 + r) * k + k0 + q] & 7);
      // tb is column-major: element (kk, col) at tb[col * 16 + kk].
      tb[q * 16 + r] = f16_bits(b[(k0 + r) * n + col0 + q] & 7);
    }
    __syncwarp();
    kernelc_wmma_load_a_f16_row(fa, ta, 16);
    kernelc_wmma_load_b_f16_col(fb, tb, 16);
    kernelc_wmma_mma_f16_row_col(acc, fa, fb, acc);
    __syncwarp();
  }
  kernelc_wmma_store_d_f32_row(c + row0 * n + col0, acc, n);
}
