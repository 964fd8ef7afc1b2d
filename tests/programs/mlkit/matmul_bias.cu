// Linear layer forward: out (BT, OC) = inp (BT, C) @ weight^T (OC, C) + bias.
// A register-blocked shared-memory GEMM: each block computes a
// BM x BN tile of out with (BM / TM) x (BN / TN) threads, each thread a
// TM x TN micro-tile; tiles of inp and weight are staged through shared
// memory with float4 loads. The tile shape is a template; the host picks
// one. BT, OC and C must be multiples of the tile sizes.

#include "mlkit.cuh"

template <int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__((BM / TM) * (BN / TN))
matmulForward(float *__restrict__ out, const float *__restrict__ inp,
              const float *__restrict__ weight, const float *__restrict__ bias, int C, int OC) {
  constexpr int THREADS = (BM / TM) * (BN / TN);
  static_assert(BK % 4 == 0, "BK must allow float4 loads");
  static_assert((BM * BK / 4) % THREADS == 0 && (BN * BK / 4) % THREADS == 0,
                "every thread loads the same number of float4s");
  __shared__ float sA[BK][BM]; // transposed: sA[k][m]
  __shared__ float sB[BK][BN]; // sB[k][n] = weight[n][k]

  const int tid = threadIdx.x;
  const int tileRow = tid / (BN / TN);
  const int tileCol = tid % (BN / TN);
  const float *A = inp + (size_t)blockIdx.y * BM * C;
  const float *W = weight + (size_t)blockIdx.x * BN * C;

  float acc[TM][TN] = {};
  for (int k0 = 0; k0 < C; k0 += BK) {
#pragma unroll
    for (int l = 0; l < BM * BK / 4 / THREADS; ++l) {
      int f = tid + l * THREADS;
      int m = f / (BK / 4), kq = (f % (BK / 4)) * 4;
      float4 a = *reinterpret_cast<const float4 *>(A + (size_t)m * C + k0 + kq);
      sA[kq + 0][m] = a.x; sA[kq + 1][m] = a.y; sA[kq + 2][m] = a.z; sA[kq + 3][m] = a.w;
    }
#pragma unroll
    for (int l = 0; l < BN * BK / 4 / THREADS; ++l) {
      int f = tid + l * THREADS;
      int n = f / (BK / 4), kq = (f % (BK / 4)) * 4;
      float4 w = *reinterpret_cast<const float4 *>(W + (size_t)n * C + k0 + kq);
      sB[kq + 0][n] = w.x; sB[kq + 1][n] = w.y; sB[kq + 2][n] = w.z; sB[kq + 3][n] = w.w;
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      float a[TM], b[TN];
#pragma unroll
      for (int i = 0; i < TM; ++i) a[i] = sA[k][tileRow * TM + i];
#pragma unroll
      for (int j = 0; j < TN; ++j) b[j] = sB[k][tileCol * TN + j];
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    __syncthreads();
  }

#pragma unroll
  for (int i = 0; i < TM; ++i) {
    int row = blockIdx.y * BM + tileRow * TM + i;
#pragma unroll
    for (int j = 0; j < TN; j += 4) {
      int col = blockIdx.x * BN + tileCol * TN + j;
      float4 b = bias ? *reinterpret_cast<const float4 *>(bias + col) : make_float4(0, 0, 0, 0);
      float4 r = make_float4(acc[i][j] + b.x, acc[i][j + 1] + b.y, acc[i][j + 2] + b.z,
                             acc[i][j + 3] + b.w);
      *reinterpret_cast<float4 *>(out + (size_t)row * OC + col) = r;
    }
  }
}

template <int BM, int BN, int BK, int TM, int TN>
static void launchMatmul(float *out, const float *inp, const float *weight, const float *bias,
                         int BT, int C, int OC) {
  dim3 grid(OC / BN, BT / BM);
  matmulForward<BM, BN, BK, TM, TN><<<grid, (BM / TM) * (BN / TN)>>>(out, inp, weight, bias, C, OC);
}

int main() {
  const int BT = 1024, C = 768, OC = 3 * 768;
  printf("matmul forward: (%d x %d) @ (%d x %d)^T\n", BT, C, OC, C);
  float *inp = makeRandomFloats((size_t)BT * C, 61);
  float *weight = makeRandomFloats((size_t)OC * C, 62, -0.05f, 0.05f);
  float *bias = makeRandomFloats(OC, 63);
  float *ref = (float *)malloc((size_t)BT * OC * sizeof(float));
  for (int r = 0; r < BT; ++r)
    for (int o = 0; o < OC; ++o) {
      double s = bias[o];
      for (int c = 0; c < C; ++c) s += (double)inp[(size_t)r * C + c] * weight[(size_t)o * C + c];
      ref[(size_t)r * OC + o] = (float)s;
    }

  float *d_inp = deviceCopyAs<float>(inp, (size_t)BT * C);
  float *d_weight = deviceCopyAs<float>(weight, (size_t)OC * C);
  float *d_bias = deviceCopyAs<float>(bias, OC);
  float *d_out;
  cudaCheck(cudaMalloc(&d_out, (size_t)BT * OC * sizeof(float)));

  bool ok = true;
  auto big = [&] { launchMatmul<128, 128, 8, 8, 8>(d_out, d_inp, d_weight, d_bias, BT, C, OC); };
  auto small = [&] { launchMatmul<64, 64, 16, 4, 4>(d_out, d_inp, d_weight, d_bias, BT, C, OC); };
  big();
  cudaCheck(cudaGetLastError());
  ok &= validateResult(d_out, ref, "128x128 tiles", (size_t)BT * OC, 1e-4f);
  cudaCheck(cudaMemset(d_out, 0, (size_t)BT * OC * sizeof(float)));
  small();
  cudaCheck(cudaGetLastError());
  ok &= validateResult(d_out, ref, "64x64 tiles", (size_t)BT * OC, 1e-4f);
  float msBig = benchmarkKernel(10, big), msSmall = benchmarkKernel(10, small);
  double flops = 2.0 * BT * C * OC;
  printf("128x128: %.3f ms (%.0f GFLOP/s); 64x64: %.3f ms (%.0f GFLOP/s)\n", msBig,
         flops / msBig * 1e-6, msSmall, flops / msSmall * 1e-6);

  cudaCheck(cudaFree(d_inp));
  cudaCheck(cudaFree(d_weight));
  cudaCheck(cudaFree(d_bias));
  cudaCheck(cudaFree(d_out));
  free(inp); free(weight); free(bias); free(ref);
  printf("%s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
