// Homework: steady-state heat distribution on a plate by Jacobi iteration.
// Boundary: top edge held at 100 degrees, the rest at 0. Each sweep
// computes the new interior from the old one; every CHECK_EVERY sweeps
// the largest change is found with an atomicMax on the float's bits
// (valid because the changes are non-negative).

#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cstring>
#include <cassert>

#define NX 256
#define NY 256
#define BX 32
#define BY 8
#define MAX_ITERS 20000
#define CHECK_EVERY 100
#define TOLERANCE 1e-3f

#define CHECK(call)                                                                 \
  {                                                                                 \
    const cudaError_t error = call;                                                 \
    if (error != cudaSuccess) {                                                     \
      printf("Error: %s:%d, code:%d, reason: %s\n", __FILE__, __LINE__, error,      \
             cudaGetErrorString(error));                                            \
      exit(1);                                                                      \
    }                                                                               \
  }

__global__ void jacobiSweep(const float *told, float *tnew, unsigned int *maxDiffBits,
                            int trackDiff) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < 1 || i >= NX - 1 || j < 1 || j >= NY - 1) return;
  int idx = j * NX + i;
  float v = 0.25f * (told[idx - 1] + told[idx + 1] + told[idx - NX] + told[idx + NX]);
  tnew[idx] = v;
  if (trackDiff) {
    float d = fabsf(v - told[idx]);
    atomicMax(maxDiffBits, __float_as_uint(d));
  }
}

void initPlate(float *t) {
  for (int j = 0; j < NY; j++)
    for (int i = 0; i < NX; i++) t[j * NX + i] = (j == 0) ? 100.0f : 0.0f;
}

int main() {
  size_t bytes = NX * NY * sizeof(float);
  float *h_t = (float *)malloc(bytes);
  initPlate(h_t);

  float *d_a, *d_b;
  unsigned int *d_diff;
  CHECK(cudaMalloc(&d_a, bytes));
  CHECK(cudaMalloc(&d_b, bytes));
  CHECK(cudaMalloc(&d_diff, sizeof(unsigned int)));
  CHECK(cudaMemcpy(d_a, h_t, bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_b, h_t, bytes, cudaMemcpyHostToDevice)); // boundaries in both

  dim3 block(BX, BY);
  dim3 grid((NX + BX - 1) / BX, (NY + BY - 1) / BY);
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  CHECK(cudaEventRecord(start));

  int iter;
  float diff = 0;
  for (iter = 1; iter <= MAX_ITERS; iter++) {
    int track = (iter % CHECK_EVERY == 0);
    if (track) CHECK(cudaMemset(d_diff, 0, sizeof(unsigned int)));
    jacobiSweep<<<grid, block>>>(d_a, d_b, d_diff, track);
    float *t = d_a; d_a = d_b; d_b = t;
    if (track) {
      unsigned int bits;
      CHECK(cudaMemcpy(&bits, d_diff, sizeof(bits), cudaMemcpyDeviceToHost));
      memcpy(&diff, &bits, sizeof(diff));
      if (diff < TOLERANCE) break;
    }
  }
  CHECK(cudaEventRecord(stop));
  CHECK(cudaEventSynchronize(stop));
  float ms;
  CHECK(cudaEventElapsedTime(&ms, start, stop));
  CHECK(cudaMemcpy(h_t, d_a, bytes, cudaMemcpyDeviceToHost));
  printf("stopped after %d iterations (max change %g) in %.2f ms\n", iter, diff, ms);

  // Sanity checks: the plate's interior is between the boundary values,
  // symmetric about the vertical centre line, and hotter near the top.
  int ok = 1;
  for (int j = 1; j < NY - 1; j++)
    for (int i = 1; i < NX - 1; i++) {
      float v = h_t[j * NX + i];
      if (v < 0.0f || v > 100.0f) ok = 0;
      if (fabsf(v - h_t[j * NX + (NX - 1 - i)]) > 1e-2f) ok = 0;
    }
  if (!(h_t[1 * NX + NX / 2] > h_t[(NY / 2) * NX + NX / 2])) ok = 0;
  assert(iter <= MAX_ITERS + 1);
  printf("temperature at centre: %.3f\n", h_t[(NY / 2) * NX + NX / 2]);
  printf("%s\n", ok ? "PASSED" : "FAILED");

  cudaFree(d_a);
  cudaFree(d_b);
  cudaFree(d_diff);
  free(h_t);
  return ok ? 0 : 1;
}
