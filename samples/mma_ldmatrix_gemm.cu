// C (16 x 8) tiles of A * B with mma.sync.m16n8k16 (sm_80), fed by
// ldmatrix: one warp per tile of C. A (16 x 16 per k-step) is staged
// row-major in shared memory; ldmatrix.x4 gives each lane exactly the four
// registers of the mma's A fragment when lane l points at row (l % 16),
// column 8 * (l / 16). B is staged as its transpose (n-major, "col"), and
// ldmatrix.x2 gives the two registers of the B fragment when lanes 0-15
// point at row (l % 8), column 8 * (l / 8) of that transpose.
// Inputs are small integers turned into f16 bits, so C is exact.
#include "kernelc.cuh"

__device__ unsigned short f16_bits(int v) {
  if (v == 0)
    return 0;
  int e = 31 - __clz(v);
  return (unsigned short)(((e + 15) << 10) | ((v << (10 - e)) & 0x3ff));
}

extern "C" __global__ void mma_gemm(const int *a, const int *b, float *c, int n, int k) {
  __shared__ unsigned short ta[16 * 16];
  __shared__ unsigned short tb[8 * 16];
  int row0 = blockIdx.y * 16;
  int col0 = blockIdx.x * 8;
  int lane = threadIdx.x;
  unsigned fa[4];
  unsigned fb[2];
  float acc[4];
  for (int i = 0; i < 4; i++)
    acc[i] = 0.0f;
  for (int k0 = 0; k0 < k; k0 += 16) {
    for (int e = lane; e < 256; e += 32) {
      int r = e / 16, q = e % 16;
      ta[r * 16 + q] = f16_bits(a[(row0 + r) * k + k0 + q] & 7);
    }
    for (int e = lane; e < 128; e += 32) {
      int kk = e / 8, col = e % 8;
      tb[col * 16 + kk] = f16_bits(b[(k0 + kk) * n + col0 + col] & 7);
    }
    __syncwarp();
    kernelc_ldmatrix_x4(fa, &ta[(lane % 16) * 16 + 8 * (lane / 16)]);
    kernelc_ldmatrix_x2(fb, &tb[(lane % 8) * 16 + 8 * ((lane / 8) % 2)]);
    kernelc_mma_m16n8k16_f16(acc, fa, fb, acc);
    __syncwarp();
  }
  // The C fragment: lane l holds row l/4 (and l/4 + 8), columns 2(l%4), +1.
  int r = row0 + lane / 4, q = col0 + 2 * (lane % 4);
  c[r * n + q] = acc[0];
  c[r * n + q + 1] = acc[1];
  c[(r + 8) * n + q] = acc[2];
  c[(r + 8) * n + q + 1] = acc[3];
}
