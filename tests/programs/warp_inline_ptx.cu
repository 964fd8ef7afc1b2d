// Warp-level utilities as public kernels write them with inline PTX: the
// lane id and SM id from special registers, a non-coherent global load,
// a bit-field extract, beside the intrinsic spellings (`__ldg`,
// `__shfl_xor_sync`) and atomics on double and half precision.
//
// nvcc-flags: -I tests/programs/common

#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <helper_cuda.h>

__device__ __forceinline__ unsigned laneId() {
  unsigned id;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(id));
  return id;
}

__device__ __forceinline__ unsigned smId() {
  unsigned id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

__device__ __forceinline__ float loadNonCoherent(const float *p) {
  float v;
  asm volatile("ld.global.nc.f32 %0, [%1];" : "=f"(v) : "l"(p));
  return v;
}

__device__ __forceinline__ unsigned bitField(unsigned x, unsigned pos,
                                             unsigned len) {
  unsigned r;
  asm("bfe.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(pos), "r"(len));
  return r;
}

// Sums `in` into one double with a butterfly per warp and one atomic per
// warp; lane ids come from the special register.
__global__ void sumToDouble(const float *in, double *total, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? loadNonCoherent(in + i) : 0.0f;
  for (int mask = 16; mask > 0; mask >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, mask);
  if (laneId() == 0) atomicAdd(total, (double)v);
}

// Histogram of 4-bit fields into half-precision counters (atomics on
// __half and __half2 need sm_70 and sm_60).
__global__ void nibbleHistogram(const unsigned *words, int n, __half *bins,
                                __half2 *pairBins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned w = __ldg(words + i);
  unsigned lo = bitField(w, 0, 4), hi = bitField(w, 4, 4);
  atomicAdd(&bins[lo], __float2half(1.0f));
  atomicAdd(&pairBins[hi & 7], __floats2half2_rn(1.0f, 0.5f));
}

// Records which SM ran each block (for occupancy experiments).
__global__ void whereDidBlocksRun(unsigned *smOfBlock) {
  if (threadIdx.x == 0) smOfBlock[blockIdx.x] = smId();
}

int main() {
  const int n = 1 << 14;
  std::vector<float> h(n);
  std::vector<unsigned> words(n);
  double want = 0.0;
  for (int i = 0; i < n; ++i) {
    h[i] = 0.001f * (i % 1000);
    want += h[i];
    words[i] = i * 2654435761u;
  }
  float *dIn;
  double *dTotal;
  unsigned *dWords, *dSm;
  __half *dBins;
  __half2 *dPairs;
  checkCudaErrors(cudaMalloc(&dIn, n * sizeof(float)));
  checkCudaErrors(cudaMalloc(&dTotal, sizeof(double)));
  checkCudaErrors(cudaMalloc(&dWords, n * sizeof(unsigned)));
  checkCudaErrors(cudaMalloc(&dSm, 64 * sizeof(unsigned)));
  checkCudaErrors(cudaMalloc(&dBins, 16 * sizeof(__half)));
  checkCudaErrors(cudaMalloc(&dPairs, 8 * sizeof(__half2)));
  checkCudaErrors(cudaMemcpy(dIn, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  checkCudaErrors(cudaMemcpy(dWords, words.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
  checkCudaErrors(cudaMemset(dTotal, 0, sizeof(double)));
  checkCudaErrors(cudaMemset(dBins, 0, 16 * sizeof(__half)));
  checkCudaErrors(cudaMemset(dPairs, 0, 8 * sizeof(__half2)));
  sumToDouble<<<n / 256, 256>>>(dIn, dTotal, n);
  nibbleHistogram<<<n / 256, 256>>>(dWords, n, dBins, dPairs);
  whereDidBlocksRun<<<64, 32>>>(dSm);
  getLastCudaError("kernels");
  double got = 0.0;
  checkCudaErrors(cudaMemcpy(&got, dTotal, sizeof got, cudaMemcpyDeviceToHost));
  bool ok = fabs(got - want) < 1e-3 * want;
  printf("sum %.4f (want %.4f): %s\n", got, want, ok ? "PASSED" : "FAILED");
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
