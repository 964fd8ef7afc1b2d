// RMSNorm in half precision, the way inference engines write it:
// activations and weights are __half, reads go through __half2 pairs, the
// sum of squares is accumulated in float, and the scale is applied with
// __hmul2. Hidden sizes must be even. One block per token.

#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#define CUDA_CHECK(expr)                                                          \
  do {                                                                            \
    cudaError_t _e = (expr);                                                      \
    if (_e != cudaSuccess) {                                                      \
      fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(_e), __FILE__, __LINE__); \
      std::exit(1);                                                               \
    }                                                                             \
  } while (0)

namespace {

template <int NUM_WARPS>
__device__ float blockSumSquares(float v) {
  __shared__ float shared[NUM_WARPS];
#pragma unroll
  for (int mask = 16; mask > 0; mask >>= 1) v += __shfl_xor_sync(0xffffffff, v, mask);
  if ((threadIdx.x & 31) == 0) shared[threadIdx.x >> 5] = v;
  __syncthreads();
  float total = 0.0f;
#pragma unroll
  for (int w = 0; w < NUM_WARPS; ++w) total += shared[w];
  return total;
}

} // namespace

template <int BLOCK>
__global__ void __launch_bounds__(BLOCK)
rmsnormHalf(__half *__restrict__ out, const __half *__restrict__ input,
            const __half *__restrict__ weight, float epsilon, int hidden) {
  const int pairs = hidden / 2;
  const __half2 *in2 = reinterpret_cast<const __half2 *>(input + (size_t)blockIdx.x * hidden);
  const __half2 *w2 = reinterpret_cast<const __half2 *>(weight);
  __half2 *out2 = reinterpret_cast<__half2 *>(out + (size_t)blockIdx.x * hidden);

  float sumSq = 0.0f;
  for (int i = threadIdx.x; i < pairs; i += BLOCK) {
    float2 f = __half22float2(in2[i]);
    sumSq += f.x * f.x + f.y * f.y;
  }
  float total = blockSumSquares<BLOCK / 32>(sumSq);
  const float inv = rsqrtf(total / hidden + epsilon);
  const __half2 scale = __float2half2_rn(inv);

  for (int i = threadIdx.x; i < pairs; i += BLOCK) out2[i] = __hmul2(__hmul2(in2[i], scale), w2[i]);
}

// Residual variant: x += residual first (in half), then normalize x.
template <int BLOCK>
__global__ void addRmsnormHalf(__half *__restrict__ x, const __half *__restrict__ residual,
                               __half *__restrict__ out, const __half *__restrict__ weight,
                               float epsilon, int hidden) {
  const size_t rowOff = (size_t)blockIdx.x * hidden;
  float sumSq = 0.0f;
  for (int i = threadIdx.x; i < hidden; i += BLOCK) {
    __half s = __hadd(x[rowOff + i], residual[rowOff + i]);
    x[rowOff + i] = s;
    float f = __half2float(s);
    sumSq += f * f;
  }
  float total = blockSumSquares<BLOCK / 32>(sumSq);
  float inv = rsqrtf(total / hidden + epsilon);
  for (int i = threadIdx.x; i < hidden; i += BLOCK)
    out[rowOff + i] = __float2half(__half2float(x[rowOff + i]) * inv * __half2float(weight[i]));
}

int main() {
  const int tokens = 512, hidden = 4096;
  const float eps = 1e-6f;
  const size_t n = (size_t)tokens * hidden;
  std::vector<__half> hIn(n), hRes(n), hW(hidden), hOut(n);
  for (size_t i = 0; i < n; ++i) {
    hIn[i] = __float2half(std::sin(0.001f * (float)i) * 2.0f);
    hRes[i] = __float2half(std::cos(0.003f * (float)i) * 0.5f);
  }
  for (int i = 0; i < hidden; ++i) hW[i] = __float2half(0.5f + (i % 7) * 0.1f);

  __half *dIn, *dRes, *dW, *dOut;
  CUDA_CHECK(cudaMalloc(&dIn, n * sizeof(__half)));
  CUDA_CHECK(cudaMalloc(&dRes, n * sizeof(__half)));
  CUDA_CHECK(cudaMalloc(&dW, hidden * sizeof(__half)));
  CUDA_CHECK(cudaMalloc(&dOut, n * sizeof(__half)));
  CUDA_CHECK(cudaMemcpy(dIn, hIn.data(), n * sizeof(__half), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dRes, hRes.data(), n * sizeof(__half), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dW, hW.data(), hidden * sizeof(__half), cudaMemcpyHostToDevice));

  rmsnormHalf<256><<<tokens, 256>>>(dOut, dIn, dW, eps, hidden);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(hOut.data(), dOut, n * sizeof(__half), cudaMemcpyDeviceToHost));

  int bad = 0;
  for (int t = 0; t < tokens; ++t) {
    double ss = 0;
    for (int i = 0; i < hidden; ++i) {
      double v = __half2float(hIn[(size_t)t * hidden + i]);
      ss += v * v;
    }
    double inv = 1.0 / std::sqrt(ss / hidden + eps);
    for (int i = 0; i < hidden; ++i) {
      double want = __half2float(hIn[(size_t)t * hidden + i]) * inv * __half2float(hW[i]);
      double got = __half2float(hOut[(size_t)t * hidden + i]);
      if (std::fabs(got - want) > 1e-2 + 5e-3 * std::fabs(want)) ++bad;
    }
  }
  printf("rmsnorm: %d bad values\n", bad);

  addRmsnormHalf<128><<<tokens, 128>>>(dIn, dRes, dOut, dW, eps, hidden);
  CUDA_CHECK(cudaGetLastError());
  std::vector<__half> hSum(n);
  CUDA_CHECK(cudaMemcpy(hSum.data(), dIn, n * sizeof(__half), cudaMemcpyDeviceToHost));
  int badSum = 0;
  for (size_t i = 0; i < n; ++i) {
    float want = __half2float(__float2half(__half2float(hIn[i]) + __half2float(hRes[i])));
    if (__half2float(hSum[i]) != want) ++badSum;
  }
  printf("residual add: %d bad values\n", badSum);

  CUDA_CHECK(cudaFree(dIn));
  CUDA_CHECK(cudaFree(dRes));
  CUDA_CHECK(cudaFree(dW));
  CUDA_CHECK(cudaFree(dOut));
  bool ok = bad == 0 && badSum == 0;
  printf("%s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
