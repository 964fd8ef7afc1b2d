// Gaussian elimination without pivoting on a diagonally dominant system
// A x = b, two kernels per elimination step:
//   computeMultipliers: m[i] = A[i][k] / A[k][k] for the rows below k
//   eliminate:          A[i][j] -= m[i] * A[k][j], b[i] -= m[i] * b[k]
//                       on a 2-D grid over the trailing submatrix
// then back substitution on the host. The residual |A x - b| is the check.
//
// usage: bench_gaussian [size]

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#define BLOCK_1D 256
#define BLOCK_2D 16

#define CU(call)                                                                 \
  {                                                                              \
    cudaError_t e = (call);                                                      \
    if (e != cudaSuccess) {                                                      \
      printf("CUDA error %d (%s) at %s:%d\n", (int)e, cudaGetErrorString(e), __FILE__, __LINE__); \
      exit(1);                                                                   \
    }                                                                            \
  }

__global__ void computeMultipliers(const float *a, float *m, int size, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x + k + 1;
  if (i < size) m[i] = a[i * size + k] / a[k * size + k];
}

__global__ void eliminate(float *a, float *b, const float *m, int size, int k) {
  int i = blockIdx.y * blockDim.y + threadIdx.y + k + 1; // row
  int j = blockIdx.x * blockDim.x + threadIdx.x + k;     // column, including k
  if (i >= size || j >= size) return;
  a[i * size + j] -= m[i] * a[k * size + j];
  if (j == k) b[i] -= m[i] * b[k];
}

int main(int argc, char **argv) {
  int size = argc > 1 ? atoi(argv[1]) : 512;
  std::vector<float> a((size_t)size * size), b(size), a0, b0;
  for (int i = 0; i < size; ++i) {
    float rowSum = 0;
    for (int j = 0; j < size; ++j) {
      float v = (float)(((i + 1) * (j + 3)) % 17) / 17.0f - 0.5f;
      a[(size_t)i * size + j] = v;
      rowSum += fabsf(v);
    }
    a[(size_t)i * size + i] = rowSum + 1.0f; // strictly diagonally dominant
    b[i] = (float)(i % 5) - 2.0f;
  }
  a0 = a;
  b0 = b;

  float *dA, *dB, *dM;
  CU(cudaMalloc(&dA, a.size() * sizeof(float)));
  CU(cudaMalloc(&dB, size * sizeof(float)));
  CU(cudaMalloc(&dM, size * sizeof(float)));
  CU(cudaMemcpy(dA, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice));
  CU(cudaMemcpy(dB, b.data(), size * sizeof(float), cudaMemcpyHostToDevice));

  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  cudaEventRecord(start);
  for (int k = 0; k < size - 1; ++k) {
    int rows = size - k - 1;
    computeMultipliers<<<(rows + BLOCK_1D - 1) / BLOCK_1D, BLOCK_1D>>>(dA, dM, size, k);
    dim3 block(BLOCK_2D, BLOCK_2D);
    dim3 grid((size - k + BLOCK_2D - 1) / BLOCK_2D, (rows + BLOCK_2D - 1) / BLOCK_2D);
    eliminate<<<grid, block>>>(dA, dB, dM, size, k);
  }
  cudaEventRecord(stop);
  CU(cudaGetLastError());
  cudaEventSynchronize(stop);
  float ms;
  cudaEventElapsedTime(&ms, start, stop);
  CU(cudaMemcpy(a.data(), dA, a.size() * sizeof(float), cudaMemcpyDeviceToHost));
  CU(cudaMemcpy(b.data(), dB, size * sizeof(float), cudaMemcpyDeviceToHost));

  std::vector<double> x(size);
  for (int i = size - 1; i >= 0; --i) {
    double s = b[i];
    for (int j = i + 1; j < size; ++j) s -= a[(size_t)i * size + j] * x[j];
    x[i] = s / a[(size_t)i * size + i];
  }
  double maxResidual = 0;
  for (int i = 0; i < size; ++i) {
    double r = -b0[i];
    for (int j = 0; j < size; ++j) r += a0[(size_t)i * size + j] * x[j];
    maxResidual = fmax(maxResidual, fabs(r));
  }
  printf("size %d: elimination %.3f ms, max residual %.3e\n", size, ms, maxResidual);
  cudaFree(dA); cudaFree(dB); cudaFree(dM);
  bool ok = maxResidual < 1e-3;
  printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
