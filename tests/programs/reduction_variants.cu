// Parallel sum reduction in four steps of refinement, from interleaved
// addressing to a warp-unrolled, multi-element-per-thread kernel. The
// last variant is a template over the block size. Sample-style.
//
// nvcc-flags: -I tests/programs/common

#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>
#include <helper_cuda.h>

// 1: interleaved addressing with a modulo test (divergent warps).
__global__ void reduceInterleaved(const int *in, int *partial, unsigned n) {
  extern __shared__ int sdata[];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = (i < n) ? in[i] : 0;
  __syncthreads();
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    if (tid % (2 * s) == 0) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) partial[blockIdx.x] = sdata[0];
}

// 2: sequential addressing: the active threads stay contiguous.
__global__ void reduceSequential(const int *in, int *partial, unsigned n) {
  extern __shared__ int sdata[];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = (i < n) ? in[i] : 0;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) partial[blockIdx.x] = sdata[0];
}

// 3: each thread adds two elements while loading.
__global__ void reduceFirstAdd(const int *in, int *partial, unsigned n) {
  extern __shared__ int sdata[];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
  int sum = (i < n) ? in[i] : 0;
  if (i + blockDim.x < n) sum += in[i + blockDim.x];
  sdata[tid] = sum;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] = sum = sum + sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) partial[blockIdx.x] = sum;
}

// 4: grid-stride loads, shared-memory tree down to one warp, then shuffles.
template <unsigned BLOCK>
__global__ void reduceUnrolled(const int *__restrict__ in, int *__restrict__ partial,
                               unsigned n) {
  static_assert(BLOCK >= 64 && (BLOCK & (BLOCK - 1)) == 0, "power of two >= 64");
  __shared__ int sdata[BLOCK];
  unsigned tid = threadIdx.x;
  unsigned stride = BLOCK * 2 * gridDim.x;
  int sum = 0;
  for (unsigned i = blockIdx.x * BLOCK * 2 + tid; i < n; i += stride) {
    sum += in[i];
    if (i + BLOCK < n) sum += in[i + BLOCK];
  }
  sdata[tid] = sum;
  __syncthreads();

#pragma unroll
  for (unsigned s = BLOCK / 2; s >= 32; s >>= 1) {
    if (tid < s) sdata[tid] = sum = sum + sdata[tid + s];
    __syncthreads();
  }
  if (tid < 32) {
    for (int offset = 16; offset > 0; offset /= 2)
      sum += __shfl_down_sync(0xffffffffu, sum, offset);
  }
  if (tid == 0) partial[blockIdx.x] = sum;
}

static long long sumOnHost(const int *partial, int count) {
  long long total = 0;
  for (int i = 0; i < count; ++i) total += partial[i];
  return total;
}

int main() {
  const unsigned n = 1u << 22;
  const int threads = 256;
  findCudaDevice();

  int *hIn = static_cast<int *>(malloc(n * sizeof(int)));
  long long expected = 0;
  for (unsigned i = 0; i < n; ++i) {
    hIn[i] = static_cast<int>((i * 2654435761u) >> 24) - 128;
    expected += hIn[i];
  }

  const int maxBlocks = (n + threads - 1) / threads;
  int *dIn, *dPartial;
  int *hPartial = static_cast<int *>(malloc(maxBlocks * sizeof(int)));
  checkCudaErrors(cudaMalloc(&dIn, n * sizeof(int)));
  checkCudaErrors(cudaMalloc(&dPartial, maxBlocks * sizeof(int)));
  checkCudaErrors(cudaMemcpy(dIn, hIn, n * sizeof(int), cudaMemcpyHostToDevice));

  bool ok = true;
  const size_t smem = threads * sizeof(int);
  for (int variant = 1; variant <= 4; ++variant) {
    int blocks = maxBlocks;
    switch (variant) {
    case 1: reduceInterleaved<<<blocks, threads, smem>>>(dIn, dPartial, n); break;
    case 2: reduceSequential<<<blocks, threads, smem>>>(dIn, dPartial, n); break;
    case 3:
      blocks = (n + threads * 2 - 1) / (threads * 2);
      reduceFirstAdd<<<blocks, threads, smem>>>(dIn, dPartial, n);
      break;
    default:
      blocks = 120;
      reduceUnrolled<threads><<<blocks, threads>>>(dIn, dPartial, n);
      break;
    }
    getLastCudaError("reduction kernel");
    checkCudaErrors(cudaMemcpy(hPartial, dPartial, blocks * sizeof(int),
                               cudaMemcpyDeviceToHost));
    long long got = sumOnHost(hPartial, blocks);
    printf("variant %d: %d blocks, sum %lld (expected %lld)\n", variant, blocks,
           got, expected);
    ok = ok && got == expected;
  }

  checkCudaErrors(cudaFree(dIn));
  checkCudaErrors(cudaFree(dPartial));
  free(hIn);
  free(hPartial);
  return reportResult("reduction", ok);
}
