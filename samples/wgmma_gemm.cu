// kernelc-target: sm_90a
// C = A * B for one 64 x 64 tile with Hopper's warpgroup MMA (wgmma), its
// A and B tiles loaded by TMA. wgmma exists on the architecture-specific
// target sm_90a only. One warpgroup (128 threads, 4 warps) issues
// wgmma.mma_async m64n64k16 four times along K = 64.
//
// The host describes the f16 matrices with two 2-D tensor maps
// (cuTensorMapEncodeTiled, no swizzle): `a_map` is A (64 x 64, M x K,
// row-major) and `bt_map` is B stored transposed (64 x 64, N x K), both
// with a box of 8 columns by 64 rows. Such a box is 64 rows of 16 bytes,
// which is exactly a column of the no-swizzle "core matrices" wgmma reads:
// 8 rows of 8 f16 make one contiguous 128-byte core matrix, and core
// matrices 8 rows apart are 128 bytes apart (the stride byte offset). So
// eight TMA loads per operand, one per 8 columns of K, each to the next
// 1024 bytes, lay out the whole tile, and the core matrices 8 columns
// apart along K are 1024 bytes apart (the leading byte offset). Both
// operands are K-major, so neither is transposed.
//
// Thread 0 initializes an mbarrier, says how many bytes the phase waits
// for (arrive_expect_tx) and starts the 16 loads; every thread waits for
// phase 0. wgmma reads the tiles through 64-bit shared-memory descriptors
// (kernelc_wgmma_desc: start address, leading and stride byte offsets,
// swizzle). TMA writes and wgmma reads through the async proxy, so no
// proxy fence is needed between them.
//
// The accumulator is a local float[32]: m64n64 gives each of the 128
// threads N / 2 = 32 floats. The loops over it are unrolled (#pragma
// unroll), so every index is a constant and kernelc keeps the array in
// registers; the K loop is unrolled too, so each MMA takes the previous
// one's registers as they are and ptxas need not wait between them.
// The interpreter and the emulator cannot run it (no tensor map, no
// wgmma); `kernelc run --engine gpu` does, with its run spec.
#include "kernelc.cuh"

#define TILE 64 // M = N = K
#define BOX 8   // columns (f16) per TMA box: 16 bytes

extern "C" __global__ void wgmma_gemm(const __grid_constant__ CUtensorMap a_map,
                                      const __grid_constant__ CUtensorMap bt_map, float *c) {
  // TMA wants its boxes 128-byte aligned; descriptors need 16 bytes.
  __shared__ __align__(128) unsigned short sa[TILE * TILE];
  __shared__ __align__(128) unsigned short sb[TILE * TILE];
  __shared__ unsigned long long bar;
  int t = threadIdx.x;
  if (t == 0) {
    kernelc_mbarrier_init(&bar, 1);
    // The async proxy (TMA) must see the initialized barrier.
    kernelc_fence_proxy_async();
  }
  __syncthreads();
  if (t == 0) {
    kernelc_mbarrier_arrive_expect_tx(&bar, 2 * TILE * TILE * 2);
    for (int k = 0; k < TILE; k += BOX) {
      // Columns k .. k + 7 of all 64 rows: 8 core matrices, 1024 bytes.
      kernelc_tma_load_2d(sa + k * TILE, &a_map, &bar, k, 0);
      kernelc_tma_load_2d(sb + k * TILE, &bt_map, &bar, k, 0);
    }
  }
  // Phase 0 completes when thread 0 has arrived and all bytes have landed.
  while (!kernelc_mbarrier_try_wait_parity(&bar, 0)) {
  }

  float acc[32];
#pragma unroll
  for (int i = 0; i < 32; i++)
    acc[i] = 0.0f;
  kernelc_wgmma_fence();
#pragma unroll
  for (int s = 0; s < 4; s++) {
    // K step s covers the boxes of columns 16s .. 16s + 15.
    unsigned long long da = kernelc_wgmma_desc(sa + s * 2 * BOX * TILE, 1024, 128, 0);
    unsigned long long db = kernelc_wgmma_desc(sb + s * 2 * BOX * TILE, 1024, 128, 0);
    // scale-d is 0 on the first step (D = A * B), 1 after (D += A * B).
    kernelc_wgmma_m64n64k16_f32_f16(acc, da, db, s > 0, 1, 1, 0, 0);
  }
  kernelc_wgmma_commit();
  kernelc_wgmma_wait(0);

  // Accumulator 4j + i of thread t (warp w = t / 32, lane l) is row
  // 16w + l / 4 (+ 8 for i >= 2), column 8j + 2 (l % 4) + i % 2.
  int w = t / 32, l = t % 32;
  float *c0 = c + (w * 16 + l / 4) * TILE + (l % 4) * 2;
  float *c8 = c0 + 8 * TILE;
#pragma unroll
  for (int j = 0; j < 8; j++) {
    c0[8 * j] = acc[4 * j];
    c0[8 * j + 1] = acc[4 * j + 1];
    c8[8 * j] = acc[4 * j + 2];
    c8[8 * j + 1] = acc[4 * j + 3];
  }
}
