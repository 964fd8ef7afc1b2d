// Fused bias + ReLU + dropout for training, with the dropout mask drawn
// from cuRAND's Philox generator: each thread skips to its own offset in
// one stream (curand_init(seed, 0, offset)), so the mask depends only on
// (seed, element), not on the launch shape. The mask is saved as bytes for
// the backward pass, which is checked to reuse it exactly.

#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>

#include <cuda_runtime.h>
#include <curand_kernel.h>

#define CHECK_CUDA(x)                                                             \
  do {                                                                            \
    cudaError_t err = (x);                                                        \
    if (err != cudaSuccess) {                                                     \
      fprintf(stderr, "error: %s (%s:%d)\n", cudaGetErrorString(err), __FILE__, __LINE__); \
      exit(EXIT_FAILURE);                                                         \
    }                                                                             \
  } while (0)

// Each thread handles four consecutive elements with one curand_uniform4.
__global__ void biasReluDropout(float *__restrict__ out, unsigned char *__restrict__ mask,
                                const float *__restrict__ in, const float *__restrict__ bias,
                                int rows, int cols, float keepProb, unsigned long long seed) {
  const long long n = (long long)rows * cols;
  const long long base = 4LL * (blockIdx.x * (long long)blockDim.x + threadIdx.x);
  if (base >= n) return;
  curandStatePhilox4_32_10_t state;
  curand_init(seed, 0ULL, (unsigned long long)base, &state);
  float4 r = curand_uniform4(&state);
  const float draws[4] = {r.x, r.y, r.z, r.w};
  const float scale = 1.0f / keepProb;
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    long long i = base + k;
    if (i < n) {
      float v = fmaxf(in[i] + bias[i % cols], 0.0f);
      bool keep = draws[k] < keepProb;
      mask[i] = keep;
      out[i] = keep ? v * scale : 0.0f;
    }
  }
}

__global__ void dropoutReluBackward(float *__restrict__ dx, const float *__restrict__ dout,
                                    const unsigned char *__restrict__ mask,
                                    const float *__restrict__ out, long long n, float keepProb) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    // ReLU's gradient passes where the output was positive, i.e. kept and > 0
    dx[i] = (mask[i] && out[i] > 0.0f) ? dout[i] / keepProb : 0.0f;
  }
}

int main() {
  const int rows = 777, cols = 1024;
  const long long n = (long long)rows * cols;
  const float keepProb = 0.9f;
  std::vector<float> in(n), bias(cols), dout(n);
  for (long long i = 0; i < n; ++i) in[i] = std::sin((float)i * 0.01f);
  for (int c = 0; c < cols; ++c) bias[c] = 0.1f * std::cos((float)c);
  for (long long i = 0; i < n; ++i) dout[i] = 1.0f;

  float *dIn, *dBias, *dOut, *dOut2, *dDout, *dDx;
  unsigned char *dMask, *dMask2;
  CHECK_CUDA(cudaMalloc(&dIn, n * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dBias, cols * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dOut, n * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dOut2, n * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dDout, n * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dDx, n * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dMask, n));
  CHECK_CUDA(cudaMalloc(&dMask2, n));
  CHECK_CUDA(cudaMemcpy(dIn, in.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(dBias, bias.data(), cols * sizeof(float), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(dDout, dout.data(), n * sizeof(float), cudaMemcpyHostToDevice));

  const unsigned long long seed = 0xC0FFEEull;
  long long threadsNeeded = (n + 3) / 4;
  biasReluDropout<<<(unsigned)((threadsNeeded + 255) / 256), 256>>>(dOut, dMask, dIn, dBias, rows, cols, keepProb, seed);
  // Same seed, different block size: the mask must not change.
  biasReluDropout<<<(unsigned)((threadsNeeded + 63) / 64), 64>>>(dOut2, dMask2, dIn, dBias, rows, cols, keepProb, seed);
  dropoutReluBackward<<<120, 256>>>(dDx, dDout, dMask, dOut, n, keepProb);
  CHECK_CUDA(cudaGetLastError());

  std::vector<float> out(n), out2(n), dx(n);
  std::vector<unsigned char> mask(n), mask2(n);
  CHECK_CUDA(cudaMemcpy(out.data(), dOut, n * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(out2.data(), dOut2, n * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(dx.data(), dDx, n * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(mask.data(), dMask, n, cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(mask2.data(), dMask2, n, cudaMemcpyDeviceToHost));

  long long kept = 0, wrong = 0;
  for (long long i = 0; i < n; ++i) {
    kept += mask[i];
    float v = std::fmax(in[i] + bias[i % cols], 0.0f);
    float want = mask[i] ? v / keepProb : 0.0f;
    if (std::fabs(out[i] - want) > 1e-6f * (1.0f + want)) ++wrong;
    if (mask[i] != mask2[i] || out[i] != out2[i]) ++wrong;
    float wantDx = (mask[i] && out[i] > 0.0f) ? 1.0f / keepProb : 0.0f;
    if (std::fabs(dx[i] - wantDx) > 1e-6f) ++wrong;
  }
  double keepRate = (double)kept / n;
  // Binomial standard deviation is about 0.0003 here; allow 6 of them.
  bool rateOk = std::fabs(keepRate - keepProb) < 6 * std::sqrt(keepProb * (1 - keepProb) / n);
  printf("kept %.4f of elements (target %.2f), %lld wrong\n", keepRate, keepProb, wrong);

  cudaFree(dIn); cudaFree(dBias); cudaFree(dOut); cudaFree(dOut2);
  cudaFree(dDout); cudaFree(dDx); cudaFree(dMask); cudaFree(dMask2);
  bool ok = rateOk && wrong == 0;
  printf("%s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
