// Cooperative Groups tour in the style of the SDK samples: the same
// reductions written against groups rather than raw thread indices.
//
//   groupSums      - dynamic partitions: a block split into thread_group
//                    tiles of 16 with cg::tiled_partition(block, 16), each
//                    summed through shared memory by a function that takes
//                    a cg::thread_group and synchronizes it with cg::sync.
//   tileReduce     - thread_block_tile<32> shfl_down reduction, one atomic
//                    per tile; a generic tileSum template over any group.
//   tileScan       - block-wide inclusive scan: shfl_up within each tile of
//                    32, tile totals through shared memory by meta group.
//   voteStats      - tile.any / tile.all / tile.ballot over a predicate,
//                    and a tile of 8 cut from a tile of 32.
//
// nvcc-flags: -I tests/programs/common

#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include "helper_cuda.h"

namespace cg = cooperative_groups;

// Sum over the threads of g. x must hold g.size() ints reserved for g.
// Every thread of g returns the full sum.
__device__ int sumReduction(cg::thread_group g, int *x, int val) {
  int lane = g.thread_rank();
  for (int i = g.size() / 2; i > 0; i /= 2) {
    x[lane] = val;
    g.sync();
    if (lane < i) {
      val += x[lane + i];
    }
    g.sync();
  }
  if (g.thread_rank() == 0) {
    x[0] = val;
  }
  cg::sync(g);
  return x[0];
}

// Each partition of 16 threads sums its inputs and writes one value.
__global__ void groupSums(const int *input, int *partitionSums, int n) {
  extern __shared__ int workspace[];
  cg::thread_block block = cg::this_thread_block();
  unsigned int gid = block.group_index().x * block.size() + block.thread_rank();
  int value = gid < n ? input[gid] : 0;

  // the whole block first
  int blockSum = sumReduction(block, workspace, value);
  block.sync();

  // then tiles of 16: each tile uses its own slice of the workspace
  cg::thread_group tile16 = cg::tiled_partition(block, 16);
  int offset = block.thread_rank() - tile16.thread_rank();
  int tileSum = sumReduction(tile16, workspace + offset, value);

  if (tile16.thread_rank() == 0) {
    int partition = gid / 16;
    partitionSums[partition] = tileSum;
  }
  if (block.thread_rank() == 0) {
    partitionSums[(gridDim.x * block.size()) / 16 + blockIdx.x] = blockSum;
  }
}

template <typename Group, typename T>
__device__ T tileSum(const Group &g, T value) {
  for (int offset = g.size() / 2; offset > 0; offset /= 2) {
    value += g.shfl_down(value, offset);
  }
  return value; // valid in rank 0
}

// Grid-stride sum of squares, one atomicAdd per 32-thread tile.
__global__ void tileReduce(const float *data, float *result, size_t n) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  float acc = 0.0f;
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x) {
    float v = data[i];
    acc += v * v;
  }
  acc = tileSum(tile, acc);
  if (tile.thread_rank() == 0) {
    atomicAdd(result, acc);
  }
}

// Inclusive scan of each block's elements. blockDim.x <= 1024.
__global__ void tileScan(const int *in, int *out, int n) {
  __shared__ int tileTotals[32];
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  const int i = block.group_index().x * block.group_dim().x + block.thread_index().x;
  int value = i < n ? in[i] : 0;

  for (int delta = 1; delta < 32; delta *= 2) {
    int up = tile.shfl_up(value, delta);
    if (tile.thread_rank() >= delta) {
      value += up;
    }
  }
  if (tile.thread_rank() == tile.size() - 1) {
    tileTotals[tile.meta_group_rank()] = value;
  }
  block.sync();
  if (tile.meta_group_rank() == 0) {
    int total = tile.thread_rank() < tile.meta_group_size() ? tileTotals[tile.thread_rank()] : 0;
    for (int delta = 1; delta < 32; delta *= 2) {
      int up = tile.shfl_up(total, delta);
      if (tile.thread_rank() >= delta) {
        total += up;
      }
    }
    tileTotals[tile.thread_rank()] = total;
  }
  block.sync();
  if (tile.meta_group_rank() > 0) {
    value += tileTotals[tile.meta_group_rank() - 1];
  }
  if (i < n) {
    out[i] = value;
  }
}

// Per tile of 32: whether any, all, how many elements pass; per tile of 8
// cut from it: the count of passing elements.
__global__ void voteStats(const float *x, float threshold, unsigned *tileCounts,
                          unsigned *flags, unsigned *eighthCounts, int n) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile32 = cg::tiled_partition<32>(block);
  cg::thread_block_tile<8> tile8 = cg::tiled_partition<8>(tile32);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  bool pass = i < n && x[i] > threshold;

  unsigned mask = tile32.ballot(pass);
  int anyPass = tile32.any(pass);
  int allPass = tile32.all(pass);
  int globalTile = i / 32;
  if (tile32.thread_rank() == 0) {
    tileCounts[globalTile] = __popc(mask);
    flags[globalTile] = (anyPass ? 1u : 0u) | (allPass ? 2u : 0u);
  }
  unsigned eighth = tile8.ballot(pass);
  if (tile8.thread_rank() == 0) {
    eighthCounts[i / 8] = __popc(eighth);
  }
}

int main(int argc, char **argv) {
  int dev = findCudaDevice();
  cudaDeviceProp prop;
  checkCudaErrors(cudaGetDeviceProperties(&prop, dev));
  printf("device %d: %s\n", dev, prop.name);

  const int threads = 256;
  const int blocks = 8;
  const int n = threads * blocks;
  std::vector<int> input(n);
  for (int i = 0; i < n; i++) input[i] = (i * 37) % 101 - 50;
  std::vector<float> values(n);
  for (int i = 0; i < n; i++) values[i] = (float)((i * 13) % 29) / 29.0f;

  int *dInput, *dPartitions, *dScan;
  float *dValues, *dResult;
  unsigned *dCounts, *dFlags, *dEighths;
  const int partitions = n / 16 + blocks;
  checkCudaErrors(cudaMalloc(&dInput, n * sizeof(int)));
  checkCudaErrors(cudaMalloc(&dPartitions, partitions * sizeof(int)));
  checkCudaErrors(cudaMalloc(&dScan, n * sizeof(int)));
  checkCudaErrors(cudaMalloc(&dValues, n * sizeof(float)));
  checkCudaErrors(cudaMalloc(&dResult, sizeof(float)));
  checkCudaErrors(cudaMalloc(&dCounts, (n / 32) * sizeof(unsigned)));
  checkCudaErrors(cudaMalloc(&dFlags, (n / 32) * sizeof(unsigned)));
  checkCudaErrors(cudaMalloc(&dEighths, (n / 8) * sizeof(unsigned)));
  checkCudaErrors(cudaMemcpy(dInput, input.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  checkCudaErrors(cudaMemcpy(dValues, values.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  checkCudaErrors(cudaMemset(dResult, 0, sizeof(float)));

  groupSums<<<blocks, threads, threads * sizeof(int)>>>(dInput, dPartitions, n);
  getLastCudaError("groupSums");
  tileReduce<<<4, 128>>>(dValues, dResult, n);
  getLastCudaError("tileReduce");
  tileScan<<<blocks, threads>>>(dInput, dScan, n);
  getLastCudaError("tileScan");
  voteStats<<<blocks, threads>>>(dValues, 0.5f, dCounts, dFlags, dEighths, n);
  getLastCudaError("voteStats");
  checkCudaErrors(cudaDeviceSynchronize());

  std::vector<int> sums(partitions), scan(n);
  float squares = 0.0f;
  checkCudaErrors(cudaMemcpy(sums.data(), dPartitions, partitions * sizeof(int), cudaMemcpyDeviceToHost));
  checkCudaErrors(cudaMemcpy(scan.data(), dScan, n * sizeof(int), cudaMemcpyDeviceToHost));
  checkCudaErrors(cudaMemcpy(&squares, dResult, sizeof(float), cudaMemcpyDeviceToHost));

  bool ok = true;
  for (int p = 0; p < n / 16; p++) {
    int expect = 0;
    for (int k = 0; k < 16; k++) expect += input[p * 16 + k];
    ok = ok && sums[p] == expect;
  }
  for (int b = 0; b < blocks; b++) {
    int expect = 0;
    for (int k = 0; k < threads; k++) expect += input[b * threads + k];
    ok = ok && sums[n / 16 + b] == expect;
    int running = 0;
    for (int k = 0; k < threads; k++) {
      running += input[b * threads + k];
      ok = ok && scan[b * threads + k] == running;
    }
  }
  double expectSquares = 0.0;
  for (float v : values) expectSquares += v * v;
  ok = ok && nearlyEqual(squares, (float)expectSquares, 1e-3f);

  checkCudaErrors(cudaFree(dInput));
  checkCudaErrors(cudaFree(dPartitions));
  checkCudaErrors(cudaFree(dScan));
  checkCudaErrors(cudaFree(dValues));
  checkCudaErrors(cudaFree(dResult));
  checkCudaErrors(cudaFree(dCounts));
  checkCudaErrors(cudaFree(dFlags));
  checkCudaErrors(cudaFree(dEighths));
  return reportResult("cg_tile_groups", ok);
}
