// A dense layer on the GPU: a column-major matrix product (the layout a
// cuBLAS-based program keeps), a kernel that adds the bias and applies a
// tanh GELU, and one that checks for non-finite values. Events time the
// layer.
//
// Kernels live in an `extern "C"` block so that a driver-API loader can
// find them by their plain names; the block sizes are macros that
// `__launch_bounds__` reads.
//
// nvcc-flags: -I tests/programs/common

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>
#include <helper_cuda.h>

#define BIAS_THREADS 256
#define CHECK_THREADS 128
#define MIN_BLOCKS_PER_SM 4
#define GELU_K0 0.7978845608f
#define GELU_K1 0.044715f

#define GEMM_TILE 16

extern "C" {

// C = alpha * A * B + beta * C, all column-major (lda = m, ldb = k, ldc = m).
__global__ void __launch_bounds__(GEMM_TILE * GEMM_TILE)
    sgemmColMajor(int m, int n, int k, float alpha, const float *A,
                  const float *B, float beta, float *C) {
  int row = blockIdx.x * GEMM_TILE + threadIdx.x;
  int col = blockIdx.y * GEMM_TILE + threadIdx.y;
  if (row >= m || col >= n) return;
  float acc = 0.0f;
  for (int i = 0; i < k; ++i) acc += A[i * m + row] * B[col * k + i];
  C[col * m + row] = alpha * acc + beta * C[col * m + row];
}

// Column-major output of the product: element (row, col) is at col * rows + row.
__global__ void __launch_bounds__(BIAS_THREADS, MIN_BLOCKS_PER_SM)
    addBiasGelu(float *out, const float *bias, int rows, int cols) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= rows * cols) return;
  float x = out[idx] + bias[idx % rows];
  float inner = GELU_K0 * (x + GELU_K1 * x * x * x);
  out[idx] = 0.5f * x * (1.0f + tanhf(inner));
}

// Counts the entries that are NaN or infinite.
__global__ void __launch_bounds__(CHECK_THREADS)
    countNonFinite(const float *data, int n, unsigned int *bad) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += gridDim.x * blockDim.x) {
    if (!isfinite(data[i])) atomicAdd(bad, 1u);
  }
}

}  // extern "C"

// Outside the block: an ordinary C++ kernel, mangled.
__global__ void scaleRows(float *m, const float *rowScale, int rows, int cols) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows && col < cols) m[col * rows + row] *= rowScale[row];
}

static float geluHost(float x) {
  return 0.5f * x * (1.0f + tanhf(GELU_K0 * (x + GELU_K1 * x * x * x)));
}

int main(int argc, char **argv) {
  const int m = 96, k = 64, n = 80;
  bool verbose = argc > 1 && strcmp(argv[1], "-v") == 0;
  std::vector<float> a(m * k), b(k * n), bias(m), out(m * n);
  for (int i = 0; i < m * k; ++i) a[i] = 0.01f * ((i * 7) % 23 - 11);
  for (int i = 0; i < k * n; ++i) b[i] = 0.02f * ((i * 5) % 17 - 8);
  for (int i = 0; i < m; ++i) bias[i] = 0.1f * (i % 5) - 0.2f;

  float *dA, *dB, *dC, *dBias;
  unsigned int *dBad;
  checkCudaErrors(cudaMalloc(&dA, a.size() * sizeof(float)));
  checkCudaErrors(cudaMalloc(&dB, b.size() * sizeof(float)));
  checkCudaErrors(cudaMalloc(&dC, out.size() * sizeof(float)));
  checkCudaErrors(cudaMalloc(&dBias, bias.size() * sizeof(float)));
  checkCudaErrors(cudaMalloc(&dBad, sizeof(unsigned int)));
  checkCudaErrors(cudaMemcpy(dA, a.data(), a.size() * sizeof(float),
                             cudaMemcpyHostToDevice));
  checkCudaErrors(cudaMemcpy(dB, b.data(), b.size() * sizeof(float),
                             cudaMemcpyHostToDevice));
  checkCudaErrors(cudaMemcpy(dBias, bias.data(), bias.size() * sizeof(float),
                             cudaMemcpyHostToDevice));
  checkCudaErrors(cudaMemset(dBad, 0, sizeof(unsigned int)));

  cudaEvent_t start, stop;
  checkCudaErrors(cudaEventCreate(&start));
  checkCudaErrors(cudaEventCreate(&stop));
  checkCudaErrors(cudaMemset(dC, 0, out.size() * sizeof(float)));
  checkCudaErrors(cudaEventRecord(start));
  dim3 gemmBlock(GEMM_TILE, GEMM_TILE);
  dim3 gemmGrid((m + GEMM_TILE - 1) / GEMM_TILE, (n + GEMM_TILE - 1) / GEMM_TILE);
  sgemmColMajor<<<gemmGrid, gemmBlock>>>(m, n, k, 1.0f, dA, dB, 0.0f, dC);
  getLastCudaError("sgemmColMajor");
  int total = m * n;
  addBiasGelu<<<(total + BIAS_THREADS - 1) / BIAS_THREADS, BIAS_THREADS>>>(
      dC, dBias, m, n);
  getLastCudaError("addBiasGelu");
  countNonFinite<<<8, CHECK_THREADS>>>(dC, total, dBad);
  getLastCudaError("countNonFinite");
  checkCudaErrors(cudaEventRecord(stop));
  checkCudaErrors(cudaEventSynchronize(stop));
  float ms = 0.0f;
  checkCudaErrors(cudaEventElapsedTime(&ms, start, stop));
  if (verbose) printf("layer: %.3f ms\n", ms);

  unsigned int bad = 0;
  checkCudaErrors(cudaMemcpy(out.data(), dC, out.size() * sizeof(float),
                             cudaMemcpyDeviceToHost));
  checkCudaErrors(cudaMemcpy(&bad, dBad, sizeof bad, cudaMemcpyDeviceToHost));

  int errors = 0;
  for (int col = 0; col < n; ++col) {
    for (int row = 0; row < m; ++row) {
      float acc = 0.0f;
      for (int i = 0; i < k; ++i) acc += a[i * m + row] * b[col * k + i];
      float want = geluHost(acc + bias[row]);
      if (fabsf(want - out[col * m + row]) > 1e-4f) ++errors;
    }
  }
  printf("dense layer %dx%dx%d: %d mismatches, %u non-finite\n", m, k, n,
         errors, bad);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaFree(dA);
  cudaFree(dB);
  cudaFree(dC);
  cudaFree(dBias);
  cudaFree(dBad);
  return errors == 0 && bad == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
