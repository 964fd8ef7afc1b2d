// Sum of squares with cooperative groups: thread_block_tile<32> shuffles
// through cg::reduce, a block-level combine in shared memory, and a
// grid-stride loop sized from the occupancy API. Sample-style.
//
// nvcc-flags: -I tests/programs/common

#include <cstdio>
#include <cstdlib>
#include <cmath>

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_runtime.h>
#include <helper_cuda.h>

namespace cg = cooperative_groups;

__device__ double warpSum(cg::thread_block_tile<32> warp, double v) {
  return cg::reduce(warp, v, cg::plus<double>());
}

__global__ void sumSquares(const float *__restrict__ x, double *__restrict__ blockResults,
                           size_t n) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  __shared__ double warpTotals[32];

  double local = 0.0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)blockDim.x * gridDim.x) {
    double v = x[i];
    local += v * v;
  }

  double w = warpSum(warp, local);
  if (warp.thread_rank() == 0) warpTotals[warp.meta_group_rank()] = w;
  block.sync();

  if (warp.meta_group_rank() == 0) {
    double v = warp.thread_rank() < warp.meta_group_size() ? warpTotals[warp.thread_rank()] : 0.0;
    v = warpSum(warp, v);
    if (warp.thread_rank() == 0) blockResults[blockIdx.x] = v;
  }
}

// Second pass: one block folds the per-block results.
__global__ void finishSum(const double *blockResults, int count, double *out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  double v = 0.0;
  for (int i = threadIdx.x; i < count; i += 32) v += blockResults[i];
  v = warpSum(warp, v);
  if (threadIdx.x == 0) *out = v;
}

int main() {
  const size_t n = 10000019;
  const int threads = 256;
  int dev = findCudaDevice();
  cudaDeviceProp prop;
  checkCudaErrors(cudaGetDeviceProperties(&prop, dev));

  int blocksPerSm = 0;
  checkCudaErrors(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocksPerSm, sumSquares,
                                                                threads, 0));
  int blocks = blocksPerSm * prop.multiProcessorCount;
  printf("%d blocks per SM, %d blocks\n", blocksPerSm, blocks);

  float *hx = static_cast<float *>(malloc(n * sizeof(float)));
  double ref = 0.0;
  for (size_t i = 0; i < n; ++i) {
    hx[i] = static_cast<float>((i % 1000) - 500) / 250.0f;
    ref += static_cast<double>(hx[i]) * hx[i];
  }

  float *dx;
  double *dPartial, *dOut, result = 0.0;
  checkCudaErrors(cudaMalloc(&dx, n * sizeof(float)));
  checkCudaErrors(cudaMalloc(&dPartial, blocks * sizeof(double)));
  checkCudaErrors(cudaMalloc(&dOut, sizeof(double)));
  checkCudaErrors(cudaMemcpy(dx, hx, n * sizeof(float), cudaMemcpyHostToDevice));

  sumSquares<<<blocks, threads>>>(dx, dPartial, n);
  getLastCudaError("sumSquares");
  finishSum<<<1, 32>>>(dPartial, blocks, dOut);
  getLastCudaError("finishSum");
  checkCudaErrors(cudaMemcpy(&result, dOut, sizeof(double), cudaMemcpyDeviceToHost));

  double rel = fabs(result - ref) / ref;
  printf("GPU %.6f, host %.6f, relative difference %.2e\n", result, ref, rel);
  checkCudaErrors(cudaFree(dx));
  checkCudaErrors(cudaFree(dPartial));
  checkCudaErrors(cudaFree(dOut));
  free(hx);
  return reportResult("cg_grid_reduce", rel < 1e-10);
}
