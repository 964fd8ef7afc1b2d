// kernelc-target: sm_100a
// C = A * B for one 128 x 64 tile with Blackwell's fifth-generation tensor
// cores (tcgen05), so it needs an architecture-specific target (sm_100a or
// sm_103a). One CTA of 128 threads (4 warps):
//
//  1. All threads stage A (128 x 64) and B (64 x 64, stored transposed) in
//     shared memory with plain loads and stores, in the no-swizzle core-
//     matrix layout the shared-memory descriptors describe (8 rows of 16
//     bytes per 128-byte core matrix; 8-row groups 128 bytes apart, K
//     neighbours 2048 (A) or 1024 (B) bytes apart).
//  2. Warp 0 allocates 64 columns of tensor memory (TMEM); the hardware
//     writes their address into a shared variable. The accumulator D lives
//     there, not in registers: lane i of TMEM is row i of D.
//  3. Thread 0 issues four tcgen05.mma kind::f16 (K = 16 each) with an
//     instruction descriptor for f16 x f16 -> f32, M = 128, N = 64, both
//     operands K-major, then tcgen05.commit arrives at an mbarrier when
//     the MMAs are done.
//  4. Every warp waits on the mbarrier, then reads its 32 TMEM lanes
//     (warp w may only touch lanes 32w..32w+31) with tcgen05.ld 32x32b.x16,
//     16 columns at a time, and writes them to C.
//  5. Warp 0 frees the tensor memory.
//
// In kernelc a TMEM address is an `unsigned` in C and a ptr<tmem> in the IR,
// which can never be loaded, stored or cast to a generic pointer. Inputs
// are small integers turned into exact f16 values, so C is exact.
#include "kernelc.cuh"

// The f16 bits of an integer 0 <= v < 2048, by hand: kernelc has no half type.
__device__ unsigned short f16_bits(int v) {
  if (v == 0)
    return 0;
  int e = 31 - __clz(v);
  return (unsigned short)(((e + 15) << 10) | ((v << (10 - e)) & 0x3ff));
}

// Where element (row, k) of a `rows` x 64 K-major tile goes: core matrix
// (row / 8, k / 8), row row % 8, column k % 8.
__device__ int core_index(int row, int k, int rows) {
  return ((k / 8) * (rows / 8) + row / 8) * 64 + (row % 8) * 8 + k % 8;
}

// c receives the f32 results as bit patterns (tcgen05.ld gives 32-bit
// registers, and kernelc has no __uint_as_float yet).
extern "C" __global__ void tcgen05_gemm(const int *a, const int *b, unsigned *c) {
  __shared__ uint4 sa_words[128 * 64 / 8];
  __shared__ uint4 sb_words[64 * 64 / 8];
  // Descriptors need 16-byte aligned tiles: uint4 storage gives that.
  unsigned short *sa = (unsigned short *)sa_words;
  unsigned short *sb = (unsigned short *)sb_words;
  __shared__ unsigned tmem_slot;
  __shared__ unsigned long long done;
  int t = threadIdx.x;
  int warp = t / 32, lane = t % 32;
  for (int e = t; e < 128 * 64; e += 128) {
    int r = e / 64, q = e % 64;
    sa[core_index(r, q, 128)] = f16_bits(a[r * 64 + q] & 7);
  }
  for (int e = t; e < 64 * 64; e += 128) {
    int r = e / 64, q = e % 64;
    // b is K x N row-major: element (k = r, n = q) goes to row q of B^T.
    sb[core_index(q, r, 64)] = f16_bits(b[r * 64 + q] & 7);
  }
  kernelc_fence_proxy_async();
  if (warp == 0) {
    kernelc_tcgen05_alloc(&tmem_slot, 64);
    kernelc_tcgen05_relinquish_alloc_permit();
  }
  if (t == 0)
    kernelc_mbarrier_init(&done, 1);
  kernelc_tcgen05_fence_before_thread_sync();
  __syncthreads();
  kernelc_tcgen05_fence_after_thread_sync();
  unsigned tmem = tmem_slot;

  if (t == 0) {
    unsigned idesc = kernelc_tcgen05_idesc_f16(128, 64, 0, 0);
    for (int s = 0; s < 4; s++) {
      unsigned long long da = kernelc_tcgen05_smem_desc(sa + s * 2048, 2048, 128, 0);
      unsigned long long db = kernelc_tcgen05_smem_desc(sb + s * 1024, 1024, 128, 0);
      // The first MMA overwrites D; the others accumulate into it.
      kernelc_tcgen05_mma_f16(tmem, da, db, idesc, s > 0);
    }
    kernelc_tcgen05_commit(&done);
  }
  while (!kernelc_mbarrier_try_wait_parity(&done, 0)) {
  }
  kernelc_tcgen05_fence_after_thread_sync();

  // TMEM address: lane in the high 16 bits, column in the low 16.
  unsigned regs[16];
  for (int col = 0; col < 64; col += 16) {
    kernelc_tcgen05_ld_32x32b_x16(regs, tmem + ((unsigned)(warp * 32) << 16) + col);
    kernelc_tcgen05_wait_ld();
    // Constant indices keep regs in registers (kernelc does not unroll).
    unsigned *row = c + (warp * 32 + lane) * 64 + col;
#define PUT4(j)                                                                \
  row[j] = regs[j];                                                            \
  row[j + 1] = regs[j + 1];                                                    \
  row[j + 2] = regs[j + 2];                                                    \
  row[j + 3] = regs[j + 3]
    PUT4(0); PUT4(4); PUT4(8); PUT4(12);
  }
  kernelc_tcgen05_fence_before_thread_sync();
  __syncthreads();
  if (warp == 0)
    kernelc_tcgen05_dealloc(tmem, 64);
}
