// CS homework 1: vector operations on the GPU.
//   Part A: c = a + b
//   Part B: y = alpha * x + y   (SAXPY)
//   Part C: dot product with a shared-memory reduction per block
// Each part is timed with cudaEvent and checked against the CPU.

#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <assert.h>

#define N (1 << 20)
#define BLOCK_SIZE 256

#define CHECK(call)                                                        \
  do {                                                                     \
    cudaError_t err = call;                                                \
    if (err != cudaSuccess) {                                              \
      printf("CUDA error %s at %s:%d\n", cudaGetErrorString(err), __FILE__, \
             __LINE__);                                                    \
      exit(1);                                                             \
    }                                                                      \
  } while (0)

__global__ void vecAdd(float *a, float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

__global__ void saxpy(float alpha, float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0) printf("saxpy: alpha = %f, n = %d, gridDim.x = %d\n", alpha, n, gridDim.x);
  if (i < n) y[i] = alpha * x[i] + y[i];
}

__global__ void dotProduct(float *a, float *b, float *partial, int n) {
  __shared__ float cache[BLOCK_SIZE];
  int tid = threadIdx.x + blockIdx.x * blockDim.x;
  float temp = 0;
  while (tid < n) {
    temp += a[tid] * b[tid];
    tid += blockDim.x * gridDim.x;
  }
  cache[threadIdx.x] = temp;
  __syncthreads();

  // blockDim.x must be a power of 2 for this
  int i = blockDim.x / 2;
  while (i != 0) {
    if (threadIdx.x < i) cache[threadIdx.x] += cache[threadIdx.x + i];
    __syncthreads();
    i /= 2;
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = cache[0];
}

float timeSince(cudaEvent_t start, cudaEvent_t stop) {
  float ms;
  CHECK(cudaEventRecord(stop));
  CHECK(cudaEventSynchronize(stop));
  CHECK(cudaEventElapsedTime(&ms, start, stop));
  return ms;
}

int main(void) {
  float *a, *b, *c, *partial;
  float *d_a, *d_b, *d_c, *d_partial;
  int size = N * sizeof(float);
  int blocks = (N + BLOCK_SIZE - 1) / BLOCK_SIZE;
  int dotBlocks = 64;
  assert((BLOCK_SIZE & (BLOCK_SIZE - 1)) == 0);

  a = (float *)malloc(size);
  b = (float *)malloc(size);
  c = (float *)malloc(size);
  partial = (float *)malloc(dotBlocks * sizeof(float));
  for (int i = 0; i < N; i++) {
    a[i] = sin(i) * sin(i);
    b[i] = cos(i) * cos(i);
  }

  CHECK(cudaMalloc((void **)&d_a, size));
  CHECK(cudaMalloc((void **)&d_b, size));
  CHECK(cudaMalloc((void **)&d_c, size));
  CHECK(cudaMalloc((void **)&d_partial, dotBlocks * sizeof(float)));
  CHECK(cudaMemcpy(d_a, a, size, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_b, b, size, cudaMemcpyHostToDevice));

  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));

  // Part A
  CHECK(cudaEventRecord(start));
  vecAdd<<<blocks, BLOCK_SIZE>>>(d_a, d_b, d_c, N);
  printf("Part A: %.3f ms\n", timeSince(start, stop));
  CHECK(cudaMemcpy(c, d_c, size, cudaMemcpyDeviceToHost));
  for (int i = 0; i < N; i++) {
    // sin^2 + cos^2 = 1
    if (fabs(c[i] - 1.0) > 1e-5) {
      printf("Part A wrong at %d: %f\n", i, c[i]);
      return 1;
    }
  }

  // Part B: y = 2 * a + b, computed in place in d_b
  CHECK(cudaEventRecord(start));
  saxpy<<<blocks, BLOCK_SIZE>>>(2.0f, d_a, d_b, N);
  printf("Part B: %.3f ms\n", timeSince(start, stop));
  CHECK(cudaMemcpy(c, d_b, size, cudaMemcpyDeviceToHost));
  for (int i = 0; i < N; i++) {
    if (fabs(c[i] - (2.0f * a[i] + b[i])) > 1e-5) {
      printf("Part B wrong at %d\n", i);
      return 1;
    }
  }

  // Part C: dot(a, a)
  CHECK(cudaEventRecord(start));
  dotProduct<<<dotBlocks, BLOCK_SIZE>>>(d_a, d_a, d_partial, N);
  printf("Part C: %.3f ms\n", timeSince(start, stop));
  CHECK(cudaMemcpy(partial, d_partial, dotBlocks * sizeof(float), cudaMemcpyDeviceToHost));
  double gpu = 0, cpu = 0;
  for (int i = 0; i < dotBlocks; i++) gpu += partial[i];
  for (int i = 0; i < N; i++) cpu += (double)a[i] * a[i];
  printf("dot: gpu %f cpu %f\n", gpu, cpu);
  if (fabs(gpu - cpu) / cpu > 1e-4) {
    printf("Part C wrong\n");
    return 1;
  }

  printf("All parts correct!\n");
  CHECK(cudaFree(d_a));
  CHECK(cudaFree(d_b));
  CHECK(cudaFree(d_c));
  CHECK(cudaFree(d_partial));
  free(a);
  free(b);
  free(c);
  free(partial);
  return 0;
}
