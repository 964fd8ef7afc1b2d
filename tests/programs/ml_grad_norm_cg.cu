// Global gradient-norm clipping across several parameter tensors, with
// cooperative groups:
//   1. squaredNormPartial: grid-stride sum of squares, reduced per block
//      with cg::reduce over 32-thread tiles, one partial per block per tensor
//   2. finalizeNorm: a single block sums the partials, computes the clip
//      coefficient min(1, maxNorm / (norm + 1e-6))
//   3. scaleGrads: multiplies every gradient by the coefficient
// Tensors are described by a small struct array in __constant__ memory.

#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

#define CHECK(call)                                                                \
  do {                                                                             \
    cudaError_t e = (call);                                                        \
    if (e != cudaSuccess) {                                                        \
      printf("CUDA error: %s at %s:%d\n", cudaGetErrorString(e), __FILE__, __LINE__); \
      exit(1);                                                                     \
    }                                                                              \
  } while (0)

constexpr int kMaxTensors = 8;
constexpr int kBlocksPerTensor = 64;
constexpr int kThreads = 256;

struct TensorRef {
  float *data;
  long long count;
};

__constant__ TensorRef c_tensors[kMaxTensors];

__global__ void squaredNormPartial(float *partials) {
  auto block = cg::this_thread_block();
  auto tile = cg::tiled_partition<32>(block);
  __shared__ float tileSums[kThreads / 32];

  const TensorRef t = c_tensors[blockIdx.y];
  float sum = 0.0f;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < t.count;
       i += (long long)gridDim.x * blockDim.x) {
    float g = t.data[i];
    sum += g * g;
  }
  sum = cg::reduce(tile, sum, cg::plus<float>());
  if (tile.thread_rank() == 0) tileSums[tile.meta_group_rank()] = sum;
  block.sync();
  if (block.thread_rank() == 0) {
    float total = 0.0f;
    for (int w = 0; w < kThreads / 32; ++w) total += tileSums[w];
    partials[blockIdx.y * gridDim.x + blockIdx.x] = total;
  }
}

__global__ void finalizeNorm(const float *partials, int count, float maxNorm, float *norm,
                             float *coef) {
  auto block = cg::this_thread_block();
  auto tile = cg::tiled_partition<32>(block);
  __shared__ float tileSums[32];
  float sum = 0.0f;
  for (int i = block.thread_rank(); i < count; i += block.size()) sum += partials[i];
  sum = cg::reduce(tile, sum, cg::plus<float>());
  if (tile.thread_rank() == 0) tileSums[tile.meta_group_rank()] = sum;
  block.sync();
  if (tile.meta_group_rank() == 0) {
    float v = tile.thread_rank() < tile.meta_group_size() ? tileSums[tile.thread_rank()] : 0.0f;
    v = cg::reduce(tile, v, cg::plus<float>());
    if (tile.thread_rank() == 0) {
      float n = sqrtf(v);
      *norm = n;
      *coef = fminf(1.0f, maxNorm / (n + 1e-6f));
    }
  }
}

__global__ void scaleGrads(const float *coef) {
  const TensorRef t = c_tensors[blockIdx.y];
  const float c = *coef;
  if (c == 1.0f) return;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < t.count;
       i += (long long)gridDim.x * blockDim.x)
    t.data[i] *= c;
}

int main() {
  const std::vector<long long> sizes = {768 * 2304, 2304, 768 * 768, 768, 50257LL * 768 / 8};
  const int numTensors = (int)sizes.size();
  const float maxNorm = 1.0f;
  std::vector<std::vector<float>> host(numTensors);
  TensorRef refs[kMaxTensors] = {};
  double sumSq = 0;
  for (int t = 0; t < numTensors; ++t) {
    host[t].resize(sizes[t]);
    for (long long i = 0; i < sizes[t]; ++i) {
      host[t][i] = 0.01f * std::sin(0.5f * (float)i + t);
      sumSq += (double)host[t][i] * host[t][i];
    }
    CHECK(cudaMalloc(&refs[t].data, sizes[t] * sizeof(float)));
    CHECK(cudaMemcpy(refs[t].data, host[t].data(), sizes[t] * sizeof(float), cudaMemcpyHostToDevice));
    refs[t].count = sizes[t];
  }
  CHECK(cudaMemcpyToSymbol(c_tensors, refs, sizeof(refs)));

  float *dPartials, *dNorm, *dCoef;
  CHECK(cudaMalloc(&dPartials, numTensors * kBlocksPerTensor * sizeof(float)));
  CHECK(cudaMalloc(&dNorm, sizeof(float)));
  CHECK(cudaMalloc(&dCoef, sizeof(float)));
  dim3 grid(kBlocksPerTensor, numTensors);
  squaredNormPartial<<<grid, kThreads>>>(dPartials);
  finalizeNorm<<<1, 1024>>>(dPartials, numTensors * kBlocksPerTensor, maxNorm, dNorm, dCoef);
  scaleGrads<<<grid, kThreads>>>(dCoef);
  CHECK(cudaGetLastError());

  float norm, coef;
  CHECK(cudaMemcpy(&norm, dNorm, sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&coef, dCoef, sizeof(float), cudaMemcpyDeviceToHost));
  double refNorm = std::sqrt(sumSq);
  double refCoef = std::fmin(1.0, maxNorm / (refNorm + 1e-6));
  bool ok = std::fabs(norm - refNorm) < 1e-4 * refNorm && std::fabs(coef - refCoef) < 1e-4;
  for (int t = 0; t < numTensors; ++t) {
    std::vector<float> back(sizes[t]);
    CHECK(cudaMemcpy(back.data(), refs[t].data, sizes[t] * sizeof(float), cudaMemcpyDeviceToHost));
    for (long long i = 0; i < sizes[t]; i += 97)
      if (std::fabs(back[i] - host[t][i] * coef) > 1e-7f) ok = false;
    CHECK(cudaFree(refs[t].data));
  }
  printf("grad norm %.6f (ref %.6f), clip coefficient %.6f\n", norm, refNorm, coef);
  cudaFree(dPartials); cudaFree(dNorm); cudaFree(dCoef);
  printf("%s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
