// A cooperative launch in the style of the CUDA samples: one kernel sums a
// vector in two phases separated by a grid-wide barrier (per-block partial
// sums, then block 0 folds them), and a second one runs a 1-D heat
// diffusion for several steps, with a grid barrier between steps instead
// of one launch per step. The host checks the device supports cooperative
// launches, sizes the grid from the occupancy API so every block is
// resident, and launches with cudaLaunchCooperativeKernel.
//
// nvcc-flags: -I tests/programs/common

#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>

#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <helper_cuda.h>

namespace cg = cooperative_groups;

#define THREADS 256

// Phase 1: a grid-stride loop and a shared-memory tree per block; phase 2,
// after the grid barrier: block 0 folds the partial sums.
__global__ void gridSum(const float *in, float *partial, float *total, int n) {
  cg::grid_group grid = cg::this_grid();
  cg::thread_block block = cg::this_thread_block();
  __shared__ float cache[THREADS];

  float acc = 0.0f;
  for (unsigned long long i = grid.thread_rank(); i < (unsigned long long)n; i += grid.size())
    acc += in[i];
  cache[block.thread_rank()] = acc;
  block.sync();
  for (unsigned int stride = block.size() / 2; stride > 0; stride >>= 1) {
    if (block.thread_rank() < stride) cache[block.thread_rank()] += cache[block.thread_rank() + stride];
    block.sync();
  }
  if (block.thread_rank() == 0) partial[grid.block_rank()] = cache[0];

  grid.sync();

  if (grid.block_rank() == 0) {
    float s = 0.0f;
    for (unsigned long long b = block.thread_rank(); b < grid.num_blocks(); b += block.size())
      s += partial[b];
    cache[block.thread_rank()] = s;
    block.sync();
    for (unsigned int stride = block.size() / 2; stride > 0; stride >>= 1) {
      if (block.thread_rank() < stride) cache[block.thread_rank()] += cache[block.thread_rank() + stride];
      block.sync();
    }
    if (block.thread_rank() == 0) *total = cache[0];
  }
}

// `steps` explicit steps of u' = alpha * u'' on a rod with fixed ends, the
// two buffers swapping roles each step; the grid barrier makes every
// step's writes visible before the next step reads them.
__global__ void heatSteps(float *a, float *b, int n, float alpha, int steps) {
  cg::grid_group grid = cg::this_grid();
  float *from = a;
  float *to = b;
  for (int step = 0; step < steps; ++step) {
    for (unsigned long long i = grid.thread_rank(); i < (unsigned long long)n; i += grid.size()) {
      if (i == 0 || i == (unsigned long long)n - 1)
        to[i] = from[i];
      else
        to[i] = from[i] + alpha * (from[i - 1] - 2.0f * from[i] + from[i + 1]);
    }
    cg::sync(grid);
    float *t = from;
    from = to;
    to = t;
  }
}

int main() {
  int dev = findCudaDevice();
  int cooperative = 0;
  checkCudaErrors(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, dev));
  if (!cooperative) {
    printf("device %d does not support cooperative launches; waiving\n", dev);
    return 0;
  }
  cudaDeviceProp prop;
  checkCudaErrors(cudaGetDeviceProperties(&prop, dev));
  int perSm = 0;
  checkCudaErrors(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, gridSum, THREADS, 0));
  int blocks = perSm * prop.multiProcessorCount;

  const int n = 1 << 20;
  std::vector<float> h(n);
  double ref = 0.0;
  for (int i = 0; i < n; ++i) {
    h[i] = (float)((i % 17) - 8) / 8.0f;
    ref += h[i];
  }
  float *dIn, *dPartial, *dTotal;
  checkCudaErrors(cudaMalloc(&dIn, n * sizeof(float)));
  checkCudaErrors(cudaMalloc(&dPartial, blocks * sizeof(float)));
  checkCudaErrors(cudaMalloc(&dTotal, sizeof(float)));
  checkCudaErrors(cudaMemcpy(dIn, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  int count = n;
  void *sumArgs[] = {&dIn, &dPartial, &dTotal, &count};
  checkCudaErrors(cudaLaunchCooperativeKernel((void *)gridSum, blocks, THREADS, sumArgs));
  float total = 0.0f;
  checkCudaErrors(cudaMemcpy(&total, dTotal, sizeof(float), cudaMemcpyDeviceToHost));
  printf("sum %f (host %f) over %d blocks\n", total, ref, blocks);
  bool ok = std::fabs(total - ref) < 1e-2 * (1.0 + std::fabs(ref));

  float *dA, *dB;
  checkCudaErrors(cudaMalloc(&dA, n * sizeof(float)));
  checkCudaErrors(cudaMalloc(&dB, n * sizeof(float)));
  checkCudaErrors(cudaMemcpy(dA, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  float alpha = 0.25f;
  int steps = 10;
  void *heatArgs[] = {&dA, &dB, &count, &alpha, &steps};
  checkCudaErrors(cudaLaunchCooperativeKernel((void *)heatSteps, blocks, THREADS, heatArgs));
  checkCudaErrors(cudaDeviceSynchronize());

  cudaFree(dIn);
  cudaFree(dPartial);
  cudaFree(dTotal);
  cudaFree(dA);
  cudaFree(dB);
  printf("%s\n", ok ? "PASSED" : "FAILED");
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
