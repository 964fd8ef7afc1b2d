// Assignment 5: inclusive scan within one block, two ways.
//   hillisSteele: O(n log n) work, double-buffered in shared memory
//   brentKung:    O(n) work, in place
// SECTION_SIZE elements per block; a device-side assert checks the launch
// configuration matches what the kernels assume.

#include <stdio.h>
#include <stdlib.h>
#include <assert.h>

#define SECTION_SIZE 1024
#define NUM_SECTIONS 37

#define CUDA_SAFE(call)                                                        \
  {                                                                            \
    cudaError_t status = (call);                                               \
    if (status != cudaSuccess) {                                               \
      fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(status));   \
      exit(1);                                                                 \
    }                                                                          \
  }

__global__ void hillisSteele(const float *X, float *Y, int n) {
  assert(blockDim.x == SECTION_SIZE);
  __shared__ float buf[2][SECTION_SIZE];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int in = 0;
  buf[0][threadIdx.x] = i < n ? X[i] : 0.0f;
  for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
    __syncthreads();
    int out = 1 - in;
    float v = buf[in][threadIdx.x];
    if (threadIdx.x >= stride) v += buf[in][threadIdx.x - stride];
    buf[out][threadIdx.x] = v;
    in = out;
  }
  if (i < n) Y[i] = buf[in][threadIdx.x];
}

// Each thread handles two elements, so blockDim.x == SECTION_SIZE / 2.
__global__ void brentKung(const float *X, float *Y, int n) {
  assert(blockDim.x * 2 == SECTION_SIZE);
  __shared__ float XY[SECTION_SIZE];
  int base = blockIdx.x * SECTION_SIZE;
  int t = threadIdx.x;
  XY[t] = base + t < n ? X[base + t] : 0.0f;
  XY[t + blockDim.x] = base + t + blockDim.x < n ? X[base + t + blockDim.x] : 0.0f;

  for (unsigned stride = 1; stride <= blockDim.x; stride *= 2) {
    __syncthreads();
    unsigned index = (t + 1) * 2 * stride - 1;
    if (index < SECTION_SIZE) XY[index] += XY[index - stride];
  }
  for (int stride = SECTION_SIZE / 4; stride > 0; stride /= 2) {
    __syncthreads();
    unsigned index = (t + 1) * 2 * stride - 1;
    if (index + stride < SECTION_SIZE) XY[index + stride] += XY[index];
  }
  __syncthreads();
  if (base + t < n) Y[base + t] = XY[t];
  if (base + t + blockDim.x < n) Y[base + t + blockDim.x] = XY[t + blockDim.x];
}

int check(const float *in, const float *out, int n, const char *name) {
  int errors = 0;
  for (int s = 0; s * SECTION_SIZE < n; s++) {
    float sum = 0;
    for (int j = s * SECTION_SIZE; j < n && j < (s + 1) * SECTION_SIZE; j++) {
      sum += in[j];
      if (out[j] != sum) errors++;
    }
  }
  printf("%s: %d errors\n", name, errors);
  return errors;
}

int main() {
  int n = NUM_SECTIONS * SECTION_SIZE - 100;
  float *h_in = (float *)malloc(n * sizeof(float));
  float *h_out = (float *)malloc(n * sizeof(float));
  // small integers keep the float sums exact, so the check can use ==
  for (int i = 0; i < n; i++) h_in[i] = (float)(i % 5);

  float *d_in, *d_out;
  CUDA_SAFE(cudaMalloc(&d_in, n * sizeof(float)));
  CUDA_SAFE(cudaMalloc(&d_out, n * sizeof(float)));
  CUDA_SAFE(cudaMemcpy(d_in, h_in, n * sizeof(float), cudaMemcpyHostToDevice));

  cudaEvent_t t0, t1;
  float ms;
  cudaEventCreate(&t0);
  cudaEventCreate(&t1);
  int errors = 0;

  cudaEventRecord(t0);
  hillisSteele<<<NUM_SECTIONS, SECTION_SIZE>>>(d_in, d_out, n);
  cudaEventRecord(t1);
  CUDA_SAFE(cudaDeviceSynchronize());
  cudaEventElapsedTime(&ms, t0, t1);
  printf("Hillis-Steele: %.4f ms\n", ms);
  CUDA_SAFE(cudaMemcpy(h_out, d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
  errors += check(h_in, h_out, n, "hillisSteele");

  CUDA_SAFE(cudaMemset(d_out, 0, n * sizeof(float)));
  cudaEventRecord(t0);
  brentKung<<<NUM_SECTIONS, SECTION_SIZE / 2>>>(d_in, d_out, n);
  cudaEventRecord(t1);
  CUDA_SAFE(cudaDeviceSynchronize());
  cudaEventElapsedTime(&ms, t0, t1);
  printf("Brent-Kung:    %.4f ms\n", ms);
  CUDA_SAFE(cudaMemcpy(h_out, d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
  errors += check(h_in, h_out, n, "brentKung");

  cudaFree(d_in);
  cudaFree(d_out);
  free(h_in);
  free(h_out);
  printf(errors ? "FAIL\n" : "PASS\n");
  return errors ? 1 : 0;
}
