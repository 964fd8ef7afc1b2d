// Homework 3: naive vs. tiled matrix multiplication.
// Square matrices of size WIDTH x WIDTH; WIDTH does not need to be a
// multiple of TILE_WIDTH. Reports the time of both kernels and the
// speedup, and checks both against a CPU product.

#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cassert>

#ifndef TILE_WIDTH
#define TILE_WIDTH 16
#endif
#define WIDTH 500

#define gpuErrchk(ans) { gpuAssert((ans), __FILE__, __LINE__); }
inline void gpuAssert(cudaError_t code, const char *file, int line, bool abort = true) {
  if (code != cudaSuccess) {
    fprintf(stderr, "GPUassert: %s %s %d\n", cudaGetErrorString(code), file, line);
    if (abort) exit(code);
  }
}

__global__ void matmulNaive(const float *M, const float *N, float *P, int width) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < width && col < width) {
    float value = 0;
    for (int k = 0; k < width; ++k) value += M[row * width + k] * N[k * width + col];
    P[row * width + col] = value;
  }
}

__global__ void matmulTiled(const float *M, const float *N, float *P, int width) {
  __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
  __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];
  int bx = blockIdx.x, by = blockIdx.y;
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = by * TILE_WIDTH + ty;
  int col = bx * TILE_WIDTH + tx;
  float value = 0;

  int phases = (width + TILE_WIDTH - 1) / TILE_WIDTH;
  for (int ph = 0; ph < phases; ++ph) {
    // load with boundary checks
    if (row < width && ph * TILE_WIDTH + tx < width)
      Mds[ty][tx] = M[row * width + ph * TILE_WIDTH + tx];
    else
      Mds[ty][tx] = 0;
    if (col < width && ph * TILE_WIDTH + ty < width)
      Nds[ty][tx] = N[(ph * TILE_WIDTH + ty) * width + col];
    else
      Nds[ty][tx] = 0;
    __syncthreads();
    for (int k = 0; k < TILE_WIDTH; ++k) value += Mds[ty][k] * Nds[k][tx];
    __syncthreads();
  }
  if (row < width && col < width) P[row * width + col] = value;
}

void matmulCPU(const float *M, const float *N, float *P, int width) {
  for (int i = 0; i < width; i++)
    for (int j = 0; j < width; j++) {
      float sum = 0;
      for (int k = 0; k < width; k++) sum += M[i * width + k] * N[k * width + j];
      P[i * width + j] = sum;
    }
}

bool compare(const float *a, const float *b, int n) {
  for (int i = 0; i < n; i++)
    if (fabs(a[i] - b[i]) > 1e-3 * fmax(1.0, fabs(b[i]))) {
      printf("mismatch at %d: %f vs %f\n", i, a[i], b[i]);
      return false;
    }
  return true;
}

int main() {
  int n = WIDTH * WIDTH;
  size_t bytes = n * sizeof(float);
  float *h_M = (float *)malloc(bytes), *h_N = (float *)malloc(bytes);
  float *h_P = (float *)malloc(bytes), *h_ref = (float *)malloc(bytes);
  assert(h_M && h_N && h_P && h_ref);
  srand(0);
  for (int i = 0; i < n; i++) {
    h_M[i] = rand() % 10 / 10.0f;
    h_N[i] = rand() % 10 / 10.0f;
  }

  float *d_M, *d_N, *d_P;
  gpuErrchk(cudaMalloc(&d_M, bytes));
  gpuErrchk(cudaMalloc(&d_N, bytes));
  gpuErrchk(cudaMalloc(&d_P, bytes));
  gpuErrchk(cudaMemcpy(d_M, h_M, bytes, cudaMemcpyHostToDevice));
  gpuErrchk(cudaMemcpy(d_N, h_N, bytes, cudaMemcpyHostToDevice));

  dim3 dimBlock(TILE_WIDTH, TILE_WIDTH);
  dim3 dimGrid((WIDTH + TILE_WIDTH - 1) / TILE_WIDTH, (WIDTH + TILE_WIDTH - 1) / TILE_WIDTH);
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  float naiveMs, tiledMs;

  matmulCPU(h_M, h_N, h_ref, WIDTH);

  cudaEventRecord(start);
  matmulNaive<<<dimGrid, dimBlock>>>(d_M, d_N, d_P, WIDTH);
  cudaEventRecord(stop);
  gpuErrchk(cudaPeekAtLastError());
  cudaEventSynchronize(stop);
  cudaEventElapsedTime(&naiveMs, start, stop);
  gpuErrchk(cudaMemcpy(h_P, d_P, bytes, cudaMemcpyDeviceToHost));
  bool okNaive = compare(h_P, h_ref, n);

  gpuErrchk(cudaMemset(d_P, 0, bytes));
  cudaEventRecord(start);
  matmulTiled<<<dimGrid, dimBlock>>>(d_M, d_N, d_P, WIDTH);
  cudaEventRecord(stop);
  gpuErrchk(cudaPeekAtLastError());
  cudaEventSynchronize(stop);
  cudaEventElapsedTime(&tiledMs, start, stop);
  gpuErrchk(cudaMemcpy(h_P, d_P, bytes, cudaMemcpyDeviceToHost));
  bool okTiled = compare(h_P, h_ref, n);

  printf("naive: %.3f ms (%s)\n", naiveMs, okNaive ? "correct" : "WRONG");
  printf("tiled: %.3f ms (%s), speedup %.2fx\n", tiledMs, okTiled ? "correct" : "WRONG",
         naiveMs / tiledMs);

  cudaFree(d_M);
  cudaFree(d_N);
  cudaFree(d_P);
  free(h_M);
  free(h_N);
  free(h_P);
  free(h_ref);
  return okNaive && okTiled ? 0 : 1;
}
