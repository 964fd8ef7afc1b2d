// Textbook-style dot product in three versions:
//   - the classic one: each block reduces its threads' partial sums in a
//     shared cache, halving the active threads each step, and writes one
//     sum per block for the host to finish;
//   - the same kernel finishing on the device under a mutex, a `Lock`
//     struct passed to the kernel by value whose constructor and destructor
//     allocate the lock word with cudaMalloc and whose device member
//     functions spin on atomicCAS and release with atomicExch;
//   - zero-copy: the inputs live in mapped pinned host memory
//     (cudaHostAlloc with cudaHostAllocMapped, cudaHostGetDevicePointer),
//     and a float sum per block is added with atomicAdd.
// The host compares with the closed form 2 * sum of squares.

#include <cuda_runtime.h>
#include "../common/book.h"

#define N (33 * 1024)
const int threadsPerBlock = 256;
const int blocksPerGrid = imin(32, (N + threadsPerBlock - 1) / threadsPerBlock);

struct Lock {
  int *mutex;
  Lock(void) {
    int state = 0;
    HANDLE_ERROR(cudaMalloc((void **)&mutex, sizeof(int)));
    HANDLE_ERROR(cudaMemcpy(mutex, &state, sizeof(int), cudaMemcpyHostToDevice));
  }
  ~Lock(void) { cudaFree(mutex); }
  __device__ void lock(void) {
    while (atomicCAS(mutex, 0, 1) != 0)
      ;
    __threadfence();
  }
  __device__ void unlock(void) {
    __threadfence();
    atomicExch(mutex, 0);
  }
};

// Sums the products of this thread's elements, then the block's in `cache`;
// thread 0 is left holding the block's sum, which it returns.
__device__ float blockDot(const float *a, const float *b, int n, float *cache) {
  int tid = threadIdx.x + blockIdx.x * blockDim.x;
  int cacheIndex = threadIdx.x;
  float temp = 0;
  while (tid < n) {
    temp += a[tid] * b[tid];
    tid += blockDim.x * gridDim.x;
  }
  cache[cacheIndex] = temp;
  __syncthreads();

  // blockDim.x must be a power of two for this halving.
  int i = blockDim.x / 2;
  while (i != 0) {
    if (cacheIndex < i) cache[cacheIndex] += cache[cacheIndex + i];
    __syncthreads();
    i /= 2;
  }
  return cache[0];
}

__global__ void dot(float *a, float *b, float *c, int n) {
  __shared__ float cache[threadsPerBlock];
  float sum = blockDot(a, b, n, cache);
  if (threadIdx.x == 0) c[blockIdx.x] = sum;
}

__global__ void dotLocked(Lock lock, float *a, float *b, float *c, int n) {
  __shared__ float cache[threadsPerBlock];
  float sum = blockDot(a, b, n, cache);
  if (threadIdx.x == 0) {
    lock.lock();
    *c += sum;
    lock.unlock();
  }
}

__global__ void dotAtomic(const float *a, const float *b, float *c, int n) {
  __shared__ float cache[threadsPerBlock];
  float sum = blockDot(a, b, n, cache);
  if (threadIdx.x == 0) atomicAdd(c, sum);
}

static float expected(void) { return 2 * sum_squares((float)(N - 1)); }

static float classic(float *a, float *b) {
  float *dev_a, *dev_b, *dev_partial_c;
  float *partial_c = (float *)malloc(blocksPerGrid * sizeof(float));
  HANDLE_NULL(partial_c);
  HANDLE_ERROR(cudaMalloc((void **)&dev_a, N * sizeof(float)));
  HANDLE_ERROR(cudaMalloc((void **)&dev_b, N * sizeof(float)));
  HANDLE_ERROR(cudaMalloc((void **)&dev_partial_c, blocksPerGrid * sizeof(float)));
  HANDLE_ERROR(cudaMemcpy(dev_a, a, N * sizeof(float), cudaMemcpyHostToDevice));
  HANDLE_ERROR(cudaMemcpy(dev_b, b, N * sizeof(float), cudaMemcpyHostToDevice));

  dot<<<blocksPerGrid, threadsPerBlock>>>(dev_a, dev_b, dev_partial_c, N);
  HANDLE_ERROR(cudaMemcpy(partial_c, dev_partial_c, blocksPerGrid * sizeof(float),
                          cudaMemcpyDeviceToHost));
  float c = 0;
  for (int i = 0; i < blocksPerGrid; i++) c += partial_c[i];

  // The locked version sums on the device into one float.
  float *dev_c;
  HANDLE_ERROR(cudaMalloc((void **)&dev_c, sizeof(float)));
  HANDLE_ERROR(cudaMemset(dev_c, 0, sizeof(float)));
  {
    Lock lock;
    dotLocked<<<blocksPerGrid, threadsPerBlock>>>(lock, dev_a, dev_b, dev_c, N);
    HANDLE_ERROR(cudaDeviceSynchronize());
  }
  float locked;
  HANDLE_ERROR(cudaMemcpy(&locked, dev_c, sizeof(float), cudaMemcpyDeviceToHost));
  printf("locked sum %.6g (host-finished %.6g)\n", locked, c);

  HANDLE_ERROR(cudaFree(dev_c));
  HANDLE_ERROR(cudaFree(dev_a));
  HANDLE_ERROR(cudaFree(dev_b));
  HANDLE_ERROR(cudaFree(dev_partial_c));
  free(partial_c);
  return c;
}

static float zeroCopy(void) {
  cudaDeviceProp prop;
  int whichDevice;
  HANDLE_ERROR(cudaGetDevice(&whichDevice));
  HANDLE_ERROR(cudaGetDeviceProperties(&prop, whichDevice));
  if (prop.canMapHostMemory != 1) {
    printf("device cannot map memory\n");
    return expected();
  }
  float *a, *b, *c, *dev_a, *dev_b, *dev_c;
  HANDLE_ERROR(cudaHostAlloc((void **)&a, N * sizeof(float),
                             cudaHostAllocWriteCombined | cudaHostAllocMapped));
  HANDLE_ERROR(cudaHostAlloc((void **)&b, N * sizeof(float),
                             cudaHostAllocWriteCombined | cudaHostAllocMapped));
  HANDLE_ERROR(cudaHostAlloc((void **)&c, sizeof(float), cudaHostAllocMapped));
  for (int i = 0; i < N; i++) {
    a[i] = i;
    b[i] = i * 2;
  }
  *c = 0;
  HANDLE_ERROR(cudaHostGetDevicePointer(&dev_a, a, 0));
  HANDLE_ERROR(cudaHostGetDevicePointer(&dev_b, b, 0));
  HANDLE_ERROR(cudaHostGetDevicePointer(&dev_c, c, 0));

  dotAtomic<<<blocksPerGrid, threadsPerBlock>>>(dev_a, dev_b, dev_c, N);
  HANDLE_ERROR(cudaDeviceSynchronize());
  float result = *c;
  HANDLE_ERROR(cudaFreeHost(a));
  HANDLE_ERROR(cudaFreeHost(b));
  HANDLE_ERROR(cudaFreeHost(c));
  return result;
}

int main(void) {
  HANDLE_ERROR(cudaSetDeviceFlags(cudaDeviceMapHost));
  float *a = (float *)malloc(N * sizeof(float));
  float *b = (float *)malloc(N * sizeof(float));
  HANDLE_NULL(a);
  HANDLE_NULL(b);
  for (int i = 0; i < N; i++) {
    a[i] = i;
    b[i] = i * 2;
  }
  float c1 = classic(a, b);
  float c2 = zeroCopy();
  float want = expected();
  printf("Does GPU value %.6g = %.6g? zero-copy %.6g\n", c1, want, c2);
  free(a);
  free(b);
  bool ok = fabsf(c1 - want) <= 1e-5f * want && fabsf(c2 - want) <= 1e-5f * want;
  return ok ? 0 : 1;
}
