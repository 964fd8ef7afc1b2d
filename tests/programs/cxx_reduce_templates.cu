// Parallel sum reduction written once as a template over the element type,
// the block size and whether the input length is a power of two. A host
// function template turns the run-time block size into a compile-time one
// with a switch, and main runs it for int, float and double, so the program
// holds one kernel per (type, block size, power-of-two) combination.
//
// Dynamic shared memory cannot be declared with a template type directly
// (every instantiation would redeclare the same extern array with a
// different type), hence the SharedMemory<T> proxy with one extern array
// per type, and a specialization for double.
//
// nvcc-flags: -I tests/programs/common

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <type_traits>
#include <vector>

#include <cuda_runtime.h>
#include <helper_cuda.h>

template <class T>
struct SharedMemory {
  __device__ inline operator T *() {
    extern __shared__ int __smem[];
    return (T *)__smem;
  }
  __device__ inline operator const T *() const {
    extern __shared__ int __smem[];
    return (T *)__smem;
  }
};

// int-aligned storage would misalign doubles: give them their own array.
template <>
struct SharedMemory<double> {
  __device__ inline operator double *() {
    extern __shared__ double __smem_d[];
    return (double *)__smem_d;
  }
  __device__ inline operator const double *() const {
    extern __shared__ double __smem_d[];
    return (double *)__smem_d;
  }
};

template <class T>
__device__ __forceinline__ T warpReduceSum(unsigned mask, T sum) {
  for (int offset = warpSize / 2; offset > 0; offset /= 2)
    sum += __shfl_down_sync(mask, sum, offset);
  return sum;
}

// Each thread first sums many elements (grid-stride, two per step), then
// the block combines its partial sums through shared memory and the last
// warp finishes with shuffles. One partial sum per block is written out.
template <class T, unsigned int blockSize, bool nIsPow2>
__global__ void reduceSum(const T *__restrict__ g_idata, T *__restrict__ g_odata, unsigned int n) {
  T *sdata = SharedMemory<T>();

  unsigned int tid = threadIdx.x;
  unsigned int gridSize = blockSize * 2 * gridDim.x;
  T mySum = 0;

  if (nIsPow2) {
    unsigned int i = blockIdx.x * blockSize * 2 + threadIdx.x;
    while (i < n) {
      mySum += g_idata[i];
      // A power-of-two length is a multiple of the step: no bounds check.
      mySum += g_idata[i + blockSize];
      i += gridSize;
    }
  } else {
    unsigned int i = blockIdx.x * blockSize + threadIdx.x;
    gridSize = blockSize * gridDim.x;
    while (i < n) {
      mySum += g_idata[i];
      i += gridSize;
    }
  }
  sdata[tid] = mySum;
  __syncthreads();

  if (blockSize >= 512 && tid < 256) sdata[tid] = mySum = mySum + sdata[tid + 256];
  __syncthreads();
  if (blockSize >= 256 && tid < 128) sdata[tid] = mySum = mySum + sdata[tid + 128];
  __syncthreads();
  if (blockSize >= 128 && tid < 64) sdata[tid] = mySum = mySum + sdata[tid + 64];
  __syncthreads();

  if (tid < 32) {
    if (blockSize >= 64) mySum += sdata[tid + 32];
    unsigned mask = __ballot_sync(0xffffffffu, tid < blockSize);
    mySum = warpReduceSum<T>(mask, mySum);
  }
  if (tid == 0) g_odata[blockIdx.x] = mySum;
}

static bool isPow2(unsigned int x) { return (x & (x - 1)) == 0; }

// The run-time block size becomes a template argument here.
template <class T>
void reduce(int size, int threads, int blocks, const T *d_idata, T *d_odata) {
  dim3 dimBlock(threads, 1, 1);
  dim3 dimGrid(blocks, 1, 1);
  // At least two warps' worth, so the last warp never reads past the end.
  int smemSize = (threads <= 32) ? 2 * threads * sizeof(T) : threads * sizeof(T);

  if (isPow2(size)) {
    switch (threads) {
      case 512: reduceSum<T, 512, true><<<dimGrid, dimBlock, smemSize>>>(d_idata, d_odata, size); break;
      case 256: reduceSum<T, 256, true><<<dimGrid, dimBlock, smemSize>>>(d_idata, d_odata, size); break;
      case 128: reduceSum<T, 128, true><<<dimGrid, dimBlock, smemSize>>>(d_idata, d_odata, size); break;
      case 64: reduceSum<T, 64, true><<<dimGrid, dimBlock, smemSize>>>(d_idata, d_odata, size); break;
      case 32: reduceSum<T, 32, true><<<dimGrid, dimBlock, smemSize>>>(d_idata, d_odata, size); break;
      case 16: reduceSum<T, 16, true><<<dimGrid, dimBlock, smemSize>>>(d_idata, d_odata, size); break;
      case 8: reduceSum<T, 8, true><<<dimGrid, dimBlock, smemSize>>>(d_idata, d_odata, size); break;
      case 4: reduceSum<T, 4, true><<<dimGrid, dimBlock, smemSize>>>(d_idata, d_odata, size); break;
      case 2: reduceSum<T, 2, true><<<dimGrid, dimBlock, smemSize>>>(d_idata, d_odata, size); break;
      case 1: reduceSum<T, 1, true><<<dimGrid, dimBlock, smemSize>>>(d_idata, d_odata, size); break;
    }
  } else {
    switch (threads) {
      case 512: reduceSum<T, 512, false><<<dimGrid, dimBlock, smemSize>>>(d_idata, d_odata, size); break;
      case 256: reduceSum<T, 256, false><<<dimGrid, dimBlock, smemSize>>>(d_idata, d_odata, size); break;
      case 128: reduceSum<T, 128, false><<<dimGrid, dimBlock, smemSize>>>(d_idata, d_odata, size); break;
      case 64: reduceSum<T, 64, false><<<dimGrid, dimBlock, smemSize>>>(d_idata, d_odata, size); break;
      case 32: reduceSum<T, 32, false><<<dimGrid, dimBlock, smemSize>>>(d_idata, d_odata, size); break;
      case 16: reduceSum<T, 16, false><<<dimGrid, dimBlock, smemSize>>>(d_idata, d_odata, size); break;
      case 8: reduceSum<T, 8, false><<<dimGrid, dimBlock, smemSize>>>(d_idata, d_odata, size); break;
      case 4: reduceSum<T, 4, false><<<dimGrid, dimBlock, smemSize>>>(d_idata, d_odata, size); break;
      case 2: reduceSum<T, 2, false><<<dimGrid, dimBlock, smemSize>>>(d_idata, d_odata, size); break;
      case 1: reduceSum<T, 1, false><<<dimGrid, dimBlock, smemSize>>>(d_idata, d_odata, size); break;
    }
  }
}

template <class T>
static const char *typeName() {
  if (std::is_same<T, int>::value) return "int";
  if (std::is_same<T, float>::value) return "float";
  return "double";
}

template <class T>
static bool runTest(int n, int threads, int maxBlocks) {
  std::vector<T> h(n);
  double expected = 0.0;
  for (int i = 0; i < n; ++i) {
    h[i] = std::is_integral<T>::value ? T(rand() & 0xff) : T((rand() & 0xff) / 256.0);
    expected += double(h[i]);
  }
  int blocks = std::min((n + threads * 2 - 1) / (threads * 2), maxBlocks);

  T *dIn = nullptr, *dOut = nullptr;
  checkCudaErrors(cudaMalloc(&dIn, n * sizeof(T)));
  checkCudaErrors(cudaMalloc(&dOut, blocks * sizeof(T)));
  checkCudaErrors(cudaMemcpy(dIn, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));

  auto t0 = std::chrono::steady_clock::now();
  reduce<T>(n, threads, blocks, dIn, dOut);
  getLastCudaError("reduceSum");
  checkCudaErrors(cudaDeviceSynchronize());
  auto t1 = std::chrono::steady_clock::now();

  std::vector<T> partial(blocks);
  checkCudaErrors(cudaMemcpy(partial.data(), dOut, blocks * sizeof(T), cudaMemcpyDeviceToHost));
  double got = 0.0;
  for (T p : partial) got += double(p);
  checkCudaErrors(cudaFree(dIn));
  checkCudaErrors(cudaFree(dOut));

  double tol = std::is_integral<T>::value ? 0.0 : 1e-5 * expected;
  bool ok = std::abs(got - expected) <= tol;
  std::cout << typeName<T>() << " n=" << n << " threads=" << threads << ": " << got << " (expected "
            << expected << ") in "
            << std::chrono::duration<double, std::micro>(t1 - t0).count() << " us\n";
  return ok;
}

int main(int argc, char **argv) {
  std::string type = argc > 1 ? argv[1] : "all";
  int n = argc > 2 ? atoi(argv[2]) : (1 << 20) + 3;
  const int maxBlocks = 64;
  bool ok = true;
  for (int threads = 512; threads >= 32; threads /= 2) {
    if (type == "all" || type == "int") ok &= runTest<int>(n, threads, maxBlocks);
    if (type == "all" || type == "float") ok &= runTest<float>(n, threads, maxBlocks);
    if (type == "all" || type == "double") ok &= runTest<double>(n, threads, maxBlocks);
  }
  return reportResult("reduceSum", ok);
}
