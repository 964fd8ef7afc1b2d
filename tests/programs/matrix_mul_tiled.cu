// Tiled single-precision GEMM (C = A * B, row-major, any sizes), with the
// tile width as a template parameter chosen on the host from the device's
// shared memory. Timed with CUDA events and checked against a host GEMM.
//
// nvcc-flags: -I tests/programs/common

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cmath>

#include <cuda_runtime.h>
#include <helper_cuda.h>

template <int TILE>
__global__ void gemmTiled(const float *A, const float *B, float *C, int M,
                          int N, int K) {
  __shared__ float tileA[TILE][TILE];
  __shared__ float tileB[TILE][TILE + 1]; // padded against bank conflicts

  const int row = blockIdx.y * TILE + threadIdx.y;
  const int col = blockIdx.x * TILE + threadIdx.x;
  float acc = 0.0f;

  for (int base = 0; base < K; base += TILE) {
    int ka = base + threadIdx.x;
    int kb = base + threadIdx.y;
    tileA[threadIdx.y][threadIdx.x] = (row < M && ka < K) ? A[row * K + ka] : 0.0f;
    tileB[threadIdx.y][threadIdx.x] = (kb < K && col < N) ? B[kb * N + col] : 0.0f;
    __syncthreads();

#pragma unroll
    for (int k = 0; k < TILE; ++k)
      acc += tileA[threadIdx.y][k] * tileB[k][threadIdx.x];
    __syncthreads();
  }

  if (row < M && col < N) C[row * N + col] = acc;
}

static void gemmHost(const float *A, const float *B, float *C, int M, int N, int K) {
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double sum = 0.0;
      for (int k = 0; k < K; ++k) sum += static_cast<double>(A[i * K + k]) * B[k * N + j];
      C[i * N + j] = static_cast<float>(sum);
    }
}

template <int TILE>
static float timeGemm(const float *dA, const float *dB, float *dC, int M, int N,
                      int K, int reps) {
  dim3 block(TILE, TILE);
  dim3 grid(iDivUp(N, TILE), iDivUp(M, TILE));
  gemmTiled<TILE><<<grid, block>>>(dA, dB, dC, M, N, K); // warm-up
  getLastCudaError("gemmTiled warm-up");

  cudaEvent_t begin, end;
  checkCudaErrors(cudaEventCreate(&begin));
  checkCudaErrors(cudaEventCreate(&end));
  checkCudaErrors(cudaEventRecord(begin));
  for (int r = 0; r < reps; ++r)
    gemmTiled<TILE><<<grid, block>>>(dA, dB, dC, M, N, K);
  checkCudaErrors(cudaEventRecord(end));
  checkCudaErrors(cudaEventSynchronize(end));
  float ms = 0.0f;
  checkCudaErrors(cudaEventElapsedTime(&ms, begin, end));
  checkCudaErrors(cudaEventDestroy(begin));
  checkCudaErrors(cudaEventDestroy(end));
  return ms / reps;
}

int main(int argc, char **argv) {
  int M = 300, N = 257, K = 190;
  for (int a = 1; a < argc; ++a) {
    if (!strncmp(argv[a], "--m=", 4)) M = atoi(argv[a] + 4);
    else if (!strncmp(argv[a], "--n=", 4)) N = atoi(argv[a] + 4);
    else if (!strncmp(argv[a], "--k=", 4)) K = atoi(argv[a] + 4);
  }
  int dev = findCudaDevice();
  cudaDeviceProp prop;
  checkCudaErrors(cudaGetDeviceProperties(&prop, dev));
  const bool bigTiles = prop.sharedMemPerBlock >= 2 * 32 * 33 * sizeof(float);

  float *hA = new float[M * K], *hB = new float[K * N];
  float *hC = new float[M * N], *ref = new float[M * N];
  fillRandom(hA, M * K, 1u, -1.0f, 1.0f);
  fillRandom(hB, K * N, 2u, -1.0f, 1.0f);

  float *dA, *dB, *dC;
  checkCudaErrors(cudaMalloc(&dA, sizeof(float) * M * K));
  checkCudaErrors(cudaMalloc(&dB, sizeof(float) * K * N));
  checkCudaErrors(cudaMalloc(&dC, sizeof(float) * M * N));
  checkCudaErrors(cudaMemcpy(dA, hA, sizeof(float) * M * K, cudaMemcpyHostToDevice));
  checkCudaErrors(cudaMemcpy(dB, hB, sizeof(float) * K * N, cudaMemcpyHostToDevice));

  float ms = bigTiles ? timeGemm<32>(dA, dB, dC, M, N, K, 20)
                      : timeGemm<16>(dA, dB, dC, M, N, K, 20);
  double gflops = 2.0 * M * N * K / (ms * 1e-3) / 1e9;
  printf("gemmTiled<%d> %dx%dx%d: %.3f ms, %.1f GFLOP/s\n", bigTiles ? 32 : 16,
         M, N, K, ms, gflops);

  checkCudaErrors(cudaMemcpy(hC, dC, sizeof(float) * M * N, cudaMemcpyDeviceToHost));
  gemmHost(hA, hB, ref, M, N, K);
  int bad = 0;
  for (int i = 0; i < M * N; ++i)
    if (!nearlyEqual(hC[i], ref[i], 1e-4f)) ++bad;
  printf("%d of %d entries differ from the host GEMM\n", bad, M * N);

  checkCudaErrors(cudaFree(dA));
  checkCudaErrors(cudaFree(dB));
  checkCudaErrors(cudaFree(dC));
  delete[] hA;
  delete[] hB;
  delete[] hC;
  delete[] ref;
  return reportResult("matrix_mul_tiled", bad == 0);
}
