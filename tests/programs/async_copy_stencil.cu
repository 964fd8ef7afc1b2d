// Asynchronous global-to-shared copies (sm_80 and later), the way
// modern samples stage tiles:
//   - `cg::memcpy_async(block, dst, src, bytes)` followed by
//     `cg::wait(block)` for a 1-D stencil's halo tile
//     (<cooperative_groups/memcpy_async.h>);
//   - `cg::inclusive_scan` and `cg::exclusive_scan` over a warp tile
//     (<cooperative_groups/scan.h>) for per-block run offsets;
//   - the pipeline primitives of <cuda_pipeline.h>
//     (`__pipeline_memcpy_async`, `__pipeline_commit`,
//     `__pipeline_wait_prior`) double-buffering tiles of a matrix-vector
//     product: copy of tile k+1 in flight while tile k is used.
// The host computes all three on the CPU and compares.
//
// nvcc-flags: -I tests/programs/common

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cooperative_groups/scan.h>
#include <cuda_pipeline.h>
#include <cuda_runtime.h>
#include <helper_cuda.h>

namespace cg = cooperative_groups;

constexpr int kRadius = 3;
constexpr int kBlock = 256;

__constant__ float c_weights[2 * kRadius + 1];

// out[i] = sum_k w[k] * in[i + k - R], with in padded by R on both sides
// (in has n + 2R elements).
__global__ void stencilAsync(const float *__restrict__ in, float *__restrict__ out, int n) {
  __shared__ float tile[kBlock + 2 * kRadius];
  cg::thread_block block = cg::this_thread_block();
  const int base = blockIdx.x * kBlock;
  const int count = min(kBlock, n - base) + 2 * kRadius;
  cg::memcpy_async(block, tile, in + base, sizeof(float) * count);
  cg::wait(block);
  const int i = base + threadIdx.x;
  if (i < n) {
    float acc = 0.0f;
#pragma unroll
    for (int k = 0; k <= 2 * kRadius; ++k) acc += c_weights[k] * tile[threadIdx.x + k];
    out[i] = acc;
  }
}

// Stream compaction offsets: flags[i] in {0,1}; offsets[i] = number of set
// flags before i within its block; blockCounts[b] = the block's total.
__global__ void blockOffsets(const int *flags, int *offsets, int *blockCounts, int n) {
  __shared__ int warpTotals[kBlock / 32];
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int f = i < n ? flags[i] : 0;
  const int inclusive = cg::inclusive_scan(warp, f);
  if (warp.thread_rank() == 31) warpTotals[warp.meta_group_rank()] = inclusive;
  block.sync();
  if (warp.meta_group_rank() == 0) {
    const int t = warp.thread_rank() < kBlock / 32 ? warpTotals[warp.thread_rank()] : 0;
    const int before = cg::exclusive_scan(warp, t, cg::plus<int>());
    if (warp.thread_rank() < kBlock / 32) warpTotals[warp.thread_rank()] = before;
    if (warp.thread_rank() == kBlock / 32 - 1) blockCounts[blockIdx.x] = before + t;
  }
  block.sync();
  if (i < n) offsets[i] = warpTotals[warp.meta_group_rank()] + inclusive - f;
}

constexpr int kTileCols = 128;

// y[row] = A[row, :] . x with one block per row; the row streams through
// two shared buffers with the pipeline primitives (cols % kTileCols == 0).
__global__ void gemvPipelined(const float *__restrict__ A, const float *__restrict__ x,
                              float *__restrict__ y, int cols) {
  __shared__ float buf[2][kTileCols];
  __shared__ float partial[kTileCols / 32];
  const int row = blockIdx.x;
  const int tiles = cols / kTileCols;
  const float *rowPtr = A + static_cast<size_t>(row) * cols;
  float acc = 0.0f;

  __pipeline_memcpy_async(&buf[0][threadIdx.x], rowPtr + threadIdx.x, sizeof(float));
  __pipeline_commit();
  for (int t = 0; t < tiles; ++t) {
    if (t + 1 < tiles) {
      __pipeline_memcpy_async(&buf[(t + 1) & 1][threadIdx.x], rowPtr + (t + 1) * kTileCols + threadIdx.x,
                              sizeof(float));
    }
    __pipeline_commit();
    __pipeline_wait_prior(1);
    __syncthreads();
    acc += buf[t & 1][threadIdx.x] * x[t * kTileCols + threadIdx.x];
    __syncthreads();
  }
  for (int o = 16; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
  if ((threadIdx.x & 31) == 0) partial[threadIdx.x / 32] = acc;
  __syncthreads();
  if (threadIdx.x == 0) {
    float s = 0.0f;
    for (int w = 0; w < kTileCols / 32; ++w) s += partial[w];
    y[row] = s;
  }
}

int main(int argc, char **argv) {
  findCudaDevice();
  int bad = 0;

  // Stencil.
  {
    const int n = 5000;
    std::vector<float> in(n + 2 * kRadius), w(2 * kRadius + 1), out(n);
    fillRandom(in.data(), in.size(), 3, -1.0f, 1.0f);
    for (int k = 0; k <= 2 * kRadius; ++k) w[k] = 1.0f / (1 + std::abs(k - kRadius));
    checkCudaErrors(cudaMemcpyToSymbol(c_weights, w.data(), w.size() * sizeof(float)));
    float *dIn, *dOut;
    checkCudaErrors(cudaMalloc(&dIn, in.size() * sizeof(float)));
    checkCudaErrors(cudaMalloc(&dOut, n * sizeof(float)));
    checkCudaErrors(cudaMemcpy(dIn, in.data(), in.size() * sizeof(float), cudaMemcpyHostToDevice));
    stencilAsync<<<iDivUp(n, kBlock), kBlock>>>(dIn, dOut, n);
    getLastCudaError("stencilAsync");
    checkCudaErrors(cudaMemcpy(out.data(), dOut, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) {
      float want = 0.0f;
      for (int k = 0; k <= 2 * kRadius; ++k) want += w[k] * in[i + k];
      bad += !nearlyEqual(out[i], want, 1e-5f);
    }
    checkCudaErrors(cudaFree(dIn));
    checkCudaErrors(cudaFree(dOut));
  }

  // Offsets.
  {
    const int n = 3000, blocks = iDivUp(n, kBlock);
    std::vector<int> flags(n), offsets(n), counts(blocks);
    for (int i = 0; i < n; ++i) flags[i] = (i * 2654435761u >> 7) % 3 == 0;
    int *dFlags, *dOffsets, *dCounts;
    checkCudaErrors(cudaMalloc(&dFlags, n * sizeof(int)));
    checkCudaErrors(cudaMalloc(&dOffsets, n * sizeof(int)));
    checkCudaErrors(cudaMalloc(&dCounts, blocks * sizeof(int)));
    checkCudaErrors(cudaMemcpy(dFlags, flags.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    blockOffsets<<<blocks, kBlock>>>(dFlags, dOffsets, dCounts, n);
    getLastCudaError("blockOffsets");
    checkCudaErrors(cudaMemcpy(offsets.data(), dOffsets, n * sizeof(int), cudaMemcpyDeviceToHost));
    checkCudaErrors(cudaMemcpy(counts.data(), dCounts, blocks * sizeof(int), cudaMemcpyDeviceToHost));
    for (int b = 0; b < blocks; ++b) {
      int run = 0;
      for (int i = b * kBlock; i < std::min(n, (b + 1) * kBlock); ++i) {
        bad += offsets[i] != run;
        run += flags[i];
      }
      bad += counts[b] != run;
    }
    checkCudaErrors(cudaFree(dFlags));
    checkCudaErrors(cudaFree(dOffsets));
    checkCudaErrors(cudaFree(dCounts));
  }

  // GEMV.
  {
    const int rows = 64, cols = 1024;
    std::vector<float> A(rows * cols), x(cols), y(rows);
    fillRandom(A.data(), A.size(), 5, -1.0f, 1.0f);
    fillRandom(x.data(), x.size(), 6, -1.0f, 1.0f);
    float *dA, *dx, *dy;
    checkCudaErrors(cudaMalloc(&dA, A.size() * sizeof(float)));
    checkCudaErrors(cudaMalloc(&dx, cols * sizeof(float)));
    checkCudaErrors(cudaMalloc(&dy, rows * sizeof(float)));
    checkCudaErrors(cudaMemcpy(dA, A.data(), A.size() * sizeof(float), cudaMemcpyHostToDevice));
    checkCudaErrors(cudaMemcpy(dx, x.data(), cols * sizeof(float), cudaMemcpyHostToDevice));
    gemvPipelined<<<rows, kTileCols>>>(dA, dx, dy, cols);
    getLastCudaError("gemvPipelined");
    checkCudaErrors(cudaMemcpy(y.data(), dy, rows * sizeof(float), cudaMemcpyDeviceToHost));
    for (int r = 0; r < rows; ++r) {
      double want = 0;
      for (int c = 0; c < cols; ++c) want += static_cast<double>(A[r * cols + c]) * x[c];
      bad += !nearlyEqual(y[r], static_cast<float>(want), 1e-4f);
    }
    checkCudaErrors(cudaFree(dA));
    checkCudaErrors(cudaFree(dx));
    checkCudaErrors(cudaFree(dy));
  }
  return reportResult(argc > 0 ? argv[0] : "async_copy_stencil", bad == 0);
}
