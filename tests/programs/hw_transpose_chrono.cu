// Homework: matrix transpose, measured. Six kernels over a square or
// rectangular float matrix with TILE_DIM x TILE_DIM tiles handled by
// TILE_DIM x BLOCK_ROWS threads (each thread moves TILE_DIM / BLOCK_ROWS
// elements): a plain copy as the bandwidth ceiling, a naive transpose,
// a coalesced one through a shared tile, the same with a padded tile to
// avoid bank conflicts, one that walks the blocks in diagonal order to
// spread partition traffic, and an in-place transpose of a square matrix
// that swaps tile pairs across the diagonal. Each kernel is timed with
// events over NUM_REPS launches; the CPU reference with std::chrono. The
// report prints effective bandwidth in GB/s, and every result is checked.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#define TILE_DIM 32
#define BLOCK_ROWS 8
#define NUM_REPS 20

#define CHECK(call)                                                                   \
  do {                                                                                \
    const cudaError_t error_code = call;                                              \
    if (error_code != cudaSuccess) {                                                  \
      printf("CUDA Error:\n");                                                        \
      printf("    File:       %s\n", __FILE__);                                       \
      printf("    Line:       %d\n", __LINE__);                                       \
      printf("    Error code: %d\n", error_code);                                     \
      printf("    Error text: %s\n", cudaGetErrorString(error_code));                 \
      exit(1);                                                                        \
    }                                                                                 \
  } while (0)

__global__ void copyMatrix(float *odata, const float *idata, int width, int height) {
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < width && y + j < height) odata[(y + j) * width + x] = idata[(y + j) * width + x];
}

__global__ void transposeNaiveRows(float *odata, const float *idata, int width, int height) {
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < width && y + j < height) odata[x * height + (y + j)] = idata[(y + j) * width + x];
}

__global__ void transposeCoalesced(float *odata, const float *idata, int width, int height) {
  __shared__ float tile[TILE_DIM][TILE_DIM];
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < width && y + j < height) tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x];
  __syncthreads();
  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < height && y + j < width) odata[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}

__global__ void transposeNoBankConflicts(float *odata, const float *idata, int width,
                                         int height) {
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < width && y + j < height) tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x];
  __syncthreads();
  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < height && y + j < width) odata[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}

// Square grids only: block (bx, by) takes tile ((bx + by) % n, bx), so
// consecutive blocks touch different column partitions.
__global__ void transposeDiagonal(float *odata, const float *idata, int width, int height) {
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];
  int blockIdx_y = blockIdx.x;
  int blockIdx_x = (blockIdx.x + blockIdx.y) % gridDim.x;

  int xIndex = blockIdx_x * TILE_DIM + threadIdx.x;
  int yIndex = blockIdx_y * TILE_DIM + threadIdx.y;
  int index_in = xIndex + yIndex * width;
  for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS)
    tile[threadIdx.y + i][threadIdx.x] = idata[index_in + i * width];
  __syncthreads();

  xIndex = blockIdx_y * TILE_DIM + threadIdx.x;
  yIndex = blockIdx_x * TILE_DIM + threadIdx.y;
  int index_out = xIndex + yIndex * height;
  for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS)
    odata[index_out + i * height] = tile[threadIdx.x][threadIdx.y + i];
}

// In place, n x n: blocks above the diagonal swap their tile with the mirror
// tile; blocks on the diagonal transpose their own tile; the rest return.
__global__ void transposeInPlace(float *data, int n) {
  __shared__ float upper[TILE_DIM][TILE_DIM + 1];
  __shared__ float lower[TILE_DIM][TILE_DIM + 1];
  const int bx = blockIdx.x, by = blockIdx.y;
  if (bx < by) return;
  const int tx = threadIdx.x;
  for (int j = threadIdx.y; j < TILE_DIM; j += BLOCK_ROWS) {
    upper[j][tx] = data[(by * TILE_DIM + j) * n + bx * TILE_DIM + tx];
    if (bx != by) lower[j][tx] = data[(bx * TILE_DIM + j) * n + by * TILE_DIM + tx];
  }
  __syncthreads();
  for (int j = threadIdx.y; j < TILE_DIM; j += BLOCK_ROWS) {
    data[(bx * TILE_DIM + j) * n + by * TILE_DIM + tx] = upper[tx][j];
    if (bx != by) data[(by * TILE_DIM + j) * n + bx * TILE_DIM + tx] = lower[tx][j];
  }
}

static void transposeHost(std::vector<float> &out, const std::vector<float> &in, int w, int h) {
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) out[x * h + y] = in[y * w + x];
}

static bool sameAs(const std::vector<float> &got, const std::vector<float> &want) {
  return std::equal(got.begin(), got.end(), want.begin());
}

struct Timing {
  std::string name;
  float ms;
  bool ok;
};

int main(int argc, char **argv) {
  const int n = argc > 1 ? std::max(TILE_DIM, atoi(argv[1]) / TILE_DIM * TILE_DIM) : 1024;
  const size_t bytes = size_t(n) * n * sizeof(float);
  printf("matrix %d x %d, tile %d x %d, %d reps\n", n, n, TILE_DIM, BLOCK_ROWS, NUM_REPS);

  std::vector<float> h_in(size_t(n) * n), h_ref(h_in.size()), h_out(h_in.size());
  for (size_t i = 0; i < h_in.size(); ++i) h_in[i] = float(i % 9973);

  auto t0 = std::chrono::high_resolution_clock::now();
  transposeHost(h_ref, h_in, n, n);
  auto t1 = std::chrono::high_resolution_clock::now();
  double cpu_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
  printf("%-26s %8.3f ms\n", "cpu", cpu_ms);

  float *d_in, *d_out;
  CHECK(cudaMalloc(&d_in, bytes));
  CHECK(cudaMalloc(&d_out, bytes));
  CHECK(cudaMemcpy(d_in, h_in.data(), bytes, cudaMemcpyHostToDevice));

  dim3 grid(n / TILE_DIM, n / TILE_DIM), block(TILE_DIM, BLOCK_ROWS);
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));

  auto timeIt = [&](const char *name, const std::vector<float> &want,
                    const std::function<void()> &launch) {
    CHECK(cudaMemset(d_out, 0, bytes));
    launch();  // warm-up, and the result checked below
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(h_out.data(), d_out, bytes, cudaMemcpyDeviceToHost));
    bool ok = sameAs(h_out, want);
    CHECK(cudaEventRecord(start, 0));
    for (int r = 0; r < NUM_REPS; ++r) launch();
    CHECK(cudaEventRecord(stop, 0));
    CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    return Timing{name, ms / NUM_REPS, ok};
  };

  std::vector<Timing> results;
  results.push_back(timeIt("copy", h_in, [&] { copyMatrix<<<grid, block>>>(d_out, d_in, n, n); }));
  results.push_back(timeIt("naive", h_ref, [&] {
    transposeNaiveRows<<<grid, block>>>(d_out, d_in, n, n);
  }));
  results.push_back(timeIt("coalesced", h_ref, [&] {
    transposeCoalesced<<<grid, block>>>(d_out, d_in, n, n);
  }));
  results.push_back(timeIt("no bank conflicts", h_ref, [&] {
    transposeNoBankConflicts<<<grid, block>>>(d_out, d_in, n, n);
  }));
  results.push_back(timeIt("diagonal", h_ref, [&] {
    transposeDiagonal<<<grid, block>>>(d_out, d_in, n, n);
  }));

  // In place: an even number of transposes gives back the input.
  CHECK(cudaMemcpy(d_out, d_in, bytes, cudaMemcpyDeviceToDevice));
  transposeInPlace<<<grid, block>>>(d_out, n);
  CHECK(cudaMemcpy(h_out.data(), d_out, bytes, cudaMemcpyDeviceToHost));
  results.push_back(Timing{"in place (once)", 0.0f, sameAs(h_out, h_ref)});

  int failures = 0;
  for (const Timing &t : results) {
    double gbs = t.ms > 0 ? 2.0 * bytes * 1e-6 / t.ms : 0.0;
    printf("%-26s %8.3f ms %8.1f GB/s %s\n", t.name.c_str(), t.ms, gbs, t.ok ? "ok" : "FAILED");
    failures += !t.ok;
  }

  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  CHECK(cudaFree(d_in));
  CHECK(cudaFree(d_out));
  return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
