// Matrix transpose three ways (naive, shared-memory tile, padded tile),
// each timed and checked. Sample-style; the helper header is included
// relative to this file, so no -I is needed.

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "common/helper_cuda.h"

#define TILE_DIM 32
#define BLOCK_ROWS 8

// Each thread moves TILE_DIM / BLOCK_ROWS elements straight from in to out:
// reads are coalesced, writes are strided.
__global__ void transposeNaive(float *out, const float *in, int width, int height) {
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
    if (x < width && y + j < height)
      out[x * height + (y + j)] = in[(y + j) * width + x];
  }
}

// Stages a tile in shared memory so both the read and the write coalesce;
// the column reads of the tile conflict on the same bank.
__global__ void transposeShared(float *out, const float *in, int width, int height) {
  __shared__ float tile[TILE_DIM][TILE_DIM];
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < width && y + j < height)
      tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
  __syncthreads();

  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < height && y + j < width)
      out[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}

// Same as transposeShared with one padding column, which spreads a tile
// column over all 32 banks.
__global__ void transposePadded(float *out, const float *in, int width, int height) {
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < width && y + j < height)
      tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
  __syncthreads();

  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < height && y + j < width)
      out[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}

typedef void (*TransposeKernel)(float *, const float *, int, int);

struct Variant {
  const char *name;
  TransposeKernel kernel;
};

int main() {
  const int width = 1000, height = 731;
  const size_t bytes = sizeof(float) * width * height;
  findCudaDevice();

  std::vector<float> input(width * height), output(width * height);
  for (int i = 0; i < width * height; ++i) input[i] = static_cast<float>(i % 9973) * 0.5f;

  float *dIn, *dOut;
  checkCudaErrors(cudaMalloc(&dIn, bytes));
  checkCudaErrors(cudaMalloc(&dOut, bytes));
  checkCudaErrors(cudaMemcpy(dIn, input.data(), bytes, cudaMemcpyHostToDevice));

  dim3 block(TILE_DIM, BLOCK_ROWS);
  dim3 grid(iDivUp(width, TILE_DIM), iDivUp(height, TILE_DIM));
  const Variant variants[] = {{"naive", transposeNaive},
                              {"shared", transposeShared},
                              {"padded", transposePadded}};
  cudaEvent_t t0, t1;
  checkCudaErrors(cudaEventCreate(&t0));
  checkCudaErrors(cudaEventCreate(&t1));

  bool allOk = true;
  for (const Variant &v : variants) {
    checkCudaErrors(cudaMemset(dOut, 0, bytes));
    checkCudaErrors(cudaEventRecord(t0));
    v.kernel<<<grid, block>>>(dOut, dIn, width, height);
    checkCudaErrors(cudaEventRecord(t1));
    getLastCudaError(v.name);
    checkCudaErrors(cudaEventSynchronize(t1));
    float ms = 0;
    checkCudaErrors(cudaEventElapsedTime(&ms, t0, t1));
    checkCudaErrors(cudaMemcpy(output.data(), dOut, bytes, cudaMemcpyDeviceToHost));

    bool ok = true;
    for (int y = 0; y < height && ok; ++y)
      for (int x = 0; x < width; ++x)
        if (output[x * height + y] != input[y * width + x]) {
          printf("  %s: mismatch at (%d, %d)\n", v.name, x, y);
          ok = false;
          break;
        }
    printf("%-8s %8.3f ms  %6.1f GB/s  %s\n", v.name, ms,
           2.0 * bytes / (ms * 1e6), ok ? "ok" : "WRONG");
    allOk = allOk && ok;
  }

  checkCudaErrors(cudaEventDestroy(t0));
  checkCudaErrors(cudaEventDestroy(t1));
  checkCudaErrors(cudaFree(dIn));
  checkCudaErrors(cudaFree(dOut));
  return reportResult("transpose", allOk);
}
