// Dynamic programming over a grid of weights: the cheapest path from the
// top row to each cell of the bottom row, moving down to one of the three
// cells below (down-left, down, down-right). Each launch advances ROWS_PER_LAUNCH
// rows with the current row kept in shared memory; a block computes a
// column strip wider than its output so that the halo it needs shrinks by
// one column per row (the "pyramid").
//
// usage: bench_pathfinder [cols] [rows]

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <climits>
#include <vector>

#include <cuda_runtime.h>

#define BLOCK 256
#define ROWS_PER_LAUNCH 16
#define HALO ROWS_PER_LAUNCH

#define CHECK(e)                                                               \
  do {                                                                         \
    cudaError_t s_ = (e);                                                      \
    if (s_ != cudaSuccess) {                                                   \
      fprintf(stderr, "%s: %s\n", #e, cudaGetErrorString(s_));                 \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

// Output columns per block: BLOCK - 2 * HALO. The block's threads cover
// columns [start - HALO, start + BLOCK - HALO).
__global__ void pathStep(const int *__restrict__ wall, const int *__restrict__ src,
                         int *__restrict__ dst, int cols, int startRow, int rowsThisLaunch) {
  __shared__ int prev[BLOCK];
  __shared__ int cur[BLOCK];
  const int outWidth = BLOCK - 2 * HALO;
  const int col = blockIdx.x * outWidth - HALO + threadIdx.x;
  const bool inGrid = col >= 0 && col < cols;
  prev[threadIdx.x] = inGrid ? src[col] : INT_MAX;
  __syncthreads();

  for (int r = 0; r < rowsThisLaunch; ++r) {
    // The strip's edge threads lack an outer neighbour, so after r + 1 rows
    // the r + 1 threads nearest each edge hold wrong sums; HALO rows per
    // launch keep those out of the output columns.
    int best = prev[threadIdx.x];
    if (threadIdx.x > 0) best = min(best, prev[threadIdx.x - 1]);
    if (threadIdx.x < BLOCK - 1) best = min(best, prev[threadIdx.x + 1]);
    int value = INT_MAX;
    if (inGrid && best != INT_MAX) value = best + wall[(size_t)(startRow + r) * cols + col];
    cur[threadIdx.x] = value;
    __syncthreads();
    prev[threadIdx.x] = cur[threadIdx.x];
    __syncthreads();
  }
  if (threadIdx.x >= HALO && threadIdx.x < BLOCK - HALO && inGrid) dst[col] = prev[threadIdx.x];
}

int main(int argc, char **argv) {
  int cols = argc > 1 ? atoi(argv[1]) : 100000;
  int rows = argc > 2 ? atoi(argv[2]) : 100;
  std::vector<int> wall((size_t)rows * cols);
  srand(9);
  for (auto &w : wall) w = rand() % 10;

  int *dWall, *dA, *dB;
  CHECK(cudaMalloc(&dWall, wall.size() * sizeof(int)));
  CHECK(cudaMalloc(&dA, cols * sizeof(int)));
  CHECK(cudaMalloc(&dB, cols * sizeof(int)));
  CHECK(cudaMemcpy(dWall, wall.data(), wall.size() * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dA, wall.data(), cols * sizeof(int), cudaMemcpyHostToDevice)); // row 0

  const int outWidth = BLOCK - 2 * HALO;
  const int blocks = (cols + outWidth - 1) / outWidth;
  for (int row = 1; row < rows; row += ROWS_PER_LAUNCH) {
    int n = rows - row < ROWS_PER_LAUNCH ? rows - row : ROWS_PER_LAUNCH;
    pathStep<<<blocks, BLOCK>>>(dWall, dA, dB, cols, row, n);
    int *t = dA; dA = dB; dB = t;
  }
  CHECK(cudaGetLastError());
  std::vector<int> gpu(cols);
  CHECK(cudaMemcpy(gpu.data(), dA, cols * sizeof(int), cudaMemcpyDeviceToHost));

  std::vector<int> cur(wall.begin(), wall.begin() + cols), next(cols);
  for (int r = 1; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      int best = cur[c];
      if (c > 0 && cur[c - 1] < best) best = cur[c - 1];
      if (c < cols - 1 && cur[c + 1] < best) best = cur[c + 1];
      next[c] = best + wall[(size_t)r * cols + c];
    }
    cur.swap(next);
  }
  int bad = 0;
  for (int c = 0; c < cols; ++c) bad += gpu[c] != cur[c];
  printf("%d x %d grid: cheapest bottom cell %d, %d mismatches\n", rows, cols,
         *std::min_element(cur.begin(), cur.end()), bad);
  cudaFree(dWall); cudaFree(dA); cudaFree(dB);
  printf("%s\n", bad == 0 ? "PASS" : "FAIL");
  return bad != 0;
}
