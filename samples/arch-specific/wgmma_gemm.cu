// kernelc-target: sm_90a
// C = A * B for one 64 x 64 tile with Hopper's warpgroup MMA (wgmma), so it
// needs the architecture-specific target sm_90a: one warpgroup (128
// threads, 4 warps) issues wgmma.mma_async m64n64k16 four times along K.
//
// wgmma reads A and B straight from shared memory, described by 64-bit
// matrix descriptors (kernelc_wgmma_desc: start address, leading and
// stride byte offsets, swizzle). TMA loads are added elsewhere; here the
// tiles are staged with plain loads and stores, each thread a share of the
// elements, into the no-swizzle "core matrix" layout wgmma expects: 8 rows
// of 16 bytes (8 f16) are one contiguous 128-byte core matrix; core
// matrices 8 rows apart are 128 bytes apart (the stride byte offset) and
// the ones 8 columns apart along K are 1024 bytes apart (the leading byte
// offset). Both A (64 x K, row-major) and B (stored transposed, N x K) are
// K-major, so neither operand is transposed. A fence.proxy.async makes the
// plain stores visible to wgmma, which reads through the async proxy.
//
// The accumulator is a local float[32]: m64n64 gives each of the 128
// threads N / 2 = 32 floats, which ptxas keeps in registers. Inputs are
// small integers turned into exact f16 values, so C is exact.
#include "kernelc.cuh"

// The f16 bits of an integer 0 <= v < 2048, by hand: kernelc has no half type.
__device__ unsigned short f16_bits(int v) {
  if (v == 0)
    return 0;
  int e = 31 - __clz(v);
  return (unsigned short)(((e + 15) << 10) | ((v << (10 - e)) & 0x3ff));
}

// Where element (row, k) of a 64 x 64 K-major tile goes in the no-swizzle
// layout: core matrix (row / 8, k / 8), row row % 8, column k % 8.
__device__ int core_index(int row, int k) {
  return ((k / 8) * 8 + row / 8) * 64 + (row % 8) * 8 + k % 8;
}

extern "C" __global__ void wgmma_gemm(const int *a, const int *b, float *c) {
  __shared__ uint4 sa_words[64 * 64 / 8];
  __shared__ uint4 sb_words[64 * 64 / 8];
  // Descriptors need 16-byte aligned tiles: uint4 storage gives that.
  unsigned short *sa = (unsigned short *)sa_words;
  unsigned short *sb = (unsigned short *)sb_words;
  int t = threadIdx.x;
  for (int e = t; e < 64 * 64; e += 128) {
    int r = e / 64, q = e % 64;
    sa[core_index(r, q)] = f16_bits(a[r * 64 + q] & 7);
    // b is K x N row-major: element (k = r, n = q) goes to row q of B^T.
    sb[core_index(q, r)] = f16_bits(b[r * 64 + q] & 7);
  }
  kernelc_fence_proxy_async();
  __syncthreads();

  // Every index into acc is a constant (kernelc does not unroll loops),
  // so ptxas keeps the whole array in registers.
  float acc[32];
#define ZERO4(j) acc[4 * j] = acc[4 * j + 1] = acc[4 * j + 2] = acc[4 * j + 3] = 0.0f
  ZERO4(0); ZERO4(1); ZERO4(2); ZERO4(3); ZERO4(4); ZERO4(5); ZERO4(6); ZERO4(7);
  kernelc_wgmma_fence();
  for (int s = 0; s < 4; s++) {
    // K step s covers core-matrix columns 2s and 2s + 1.
    unsigned long long da = kernelc_wgmma_desc(sa + s * 1024, 1024, 128, 0);
    unsigned long long db = kernelc_wgmma_desc(sb + s * 1024, 1024, 128, 0);
    // scale-d is 0 on the first step (D = A * B), 1 after (D += A * B).
    kernelc_wgmma_m64n64k16_f32_f16(acc, da, db, s > 0, 1, 1, 0, 0);
  }
  kernelc_wgmma_commit();
  kernelc_wgmma_wait(0);

  // Accumulator 4j + i of thread t (warp w = t / 32, lane l) is row
  // 16w + l / 4 (+ 8 for i >= 2), column 8j + 2 (l % 4) + i % 2.
  int w = t / 32, l = t % 32;
  float *c0 = c + (w * 16 + l / 4) * 64 + (l % 4) * 2;
  float *c8 = c0 + 8 * 64;
#define STORE4(j)                                                              \
  c0[8 * j] = acc[4 * j];                                                      \
  c0[8 * j + 1] = acc[4 * j + 1];                                              \
  c8[8 * j] = acc[4 * j + 2];                                                  \
  c8[8 * j + 1] = acc[4 * j + 3]
  STORE4(0); STORE4(1); STORE4(2); STORE4(3); STORE4(4); STORE4(5); STORE4(6); STORE4(7);
}
