// Single-pass reduction in the style of the SDK's threadFenceReduction
// sample: every block writes its partial sum, issues __threadfence(), and
// takes a ticket from a __device__ counter with atomicInc; the block that
// draws the last ticket sums the partials and resets the counter. The
// kernel also reports, with __syncthreads_or / __syncthreads_and, whether
// any input was negative and whether all were finite. The host sizes the
// launch from the device properties, asks for the kernel's attributes and
// prefers shared memory for it.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define checkCuda(call)                                                      \
  do {                                                                       \
    cudaError_t err__ = (call);                                              \
    if (err__ != cudaSuccess) {                                              \
      fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,   \
              cudaGetErrorString(err__));                                    \
      exit(EXIT_FAILURE);                                                    \
    }                                                                        \
  } while (0)

__device__ unsigned int retirementCount = 0;

struct Flags {
  int anyNegative;
  int allFinite;
};

// The last warp's steps, separated by __syncwarp: since Volta the lanes of
// a warp are not guaranteed to run in lockstep, so each step reads into a
// register, waits for the warp, then writes.
template <unsigned int blockSize>
__device__ void warpReduce(volatile float *sdata, unsigned int tid) {
  float v = sdata[tid];
#pragma unroll
  for (unsigned int offset = 32; offset > 0; offset >>= 1) {
    if (blockSize >= 2 * offset) v += sdata[tid + offset];
    __syncwarp();
    sdata[tid] = v;
    __syncwarp();
  }
}

template <unsigned int blockSize>
__device__ float reduceBlock(float *sdata, float mySum) {
  unsigned int tid = threadIdx.x;
  sdata[tid] = mySum;
  __syncthreads();
  if (blockSize >= 512) {
    if (tid < 256) sdata[tid] += sdata[tid + 256];
    __syncthreads();
  }
  if (blockSize >= 256) {
    if (tid < 128) sdata[tid] += sdata[tid + 128];
    __syncthreads();
  }
  if (blockSize >= 128) {
    if (tid < 64) sdata[tid] += sdata[tid + 64];
    __syncthreads();
  }
  if (tid < 32) warpReduce<blockSize>(sdata, tid);
  __syncthreads();
  return sdata[0];
}

template <unsigned int blockSize>
__global__ void reduceSinglePass(const float *g_idata, float *g_partial,
                                 float *g_result, Flags *flags,
                                 unsigned int n) {
  __shared__ float sdata[blockSize];
  __shared__ bool amLast;
  float sum = 0.f;
  bool negative = false, finite = true;
  for (unsigned int i = blockIdx.x * blockSize + threadIdx.x; i < n;
       i += blockSize * gridDim.x) {
    float v = g_idata[i];
    negative |= v < 0.f;
    finite &= isfinite(v);
    sum += v;
  }
  int blockNeg = __syncthreads_or(negative);
  int blockFinite = __syncthreads_and(finite);
  float blockSum = reduceBlock<blockSize>(sdata, sum);

  if (threadIdx.x == 0) {
    g_partial[blockIdx.x] = blockSum;
    if (blockNeg) atomicOr(&flags->anyNegative, 1);
    if (!blockFinite) atomicAnd(&flags->allFinite, 0);
    // Make the partial visible to the last block before taking a ticket.
    __threadfence();
    unsigned int ticket = atomicInc(&retirementCount, gridDim.x);
    amLast = (ticket == gridDim.x - 1);
  }
  __syncthreads();

  if (amLast) {
    float total = 0.f;
    for (unsigned int i = threadIdx.x; i < gridDim.x; i += blockSize)
      total += g_partial[i];
    total = reduceBlock<blockSize>(sdata, total);
    if (threadIdx.x == 0) {
      *g_result = total;
      retirementCount = 0;
    }
  }
}

typedef void (*ReduceKernel)(const float *, float *, float *, Flags *,
                             unsigned int);

static ReduceKernel pickKernel(int threads) {
  switch (threads) {
  case 512: return reduceSinglePass<512>;
  case 256: return reduceSinglePass<256>;
  case 128: return reduceSinglePass<128>;
  default: return reduceSinglePass<64>;
  }
}

int main(int argc, char **argv) {
  const unsigned int n = 1u << 21;
  int threads = argc > 1 ? atoi(argv[1]) : 256;
  int dev = 0;
  cudaDeviceProp prop;
  checkCuda(cudaGetDeviceProperties(&prop, dev));
  int blocks = std::min(prop.multiProcessorCount * 4,
                        (int)((n + threads - 1) / threads));
  printf("%s: %d SMs, launching %d x %d\n", prop.name,
         prop.multiProcessorCount, blocks, threads);

  std::vector<float> h(n);
  double ref = 0.0;
  for (unsigned int i = 0; i < n; ++i) {
    h[i] = (float)((i * 7919u) % 1000u) / 1000.f - 0.25f;
    ref += h[i];
  }

  float *d_in, *d_partial, *d_result;
  Flags *d_flags;
  checkCuda(cudaMalloc(&d_in, n * sizeof(float)));
  checkCuda(cudaMalloc(&d_partial, blocks * sizeof(float)));
  checkCuda(cudaMalloc(&d_result, sizeof(float)));
  checkCuda(cudaMalloc(&d_flags, sizeof(Flags)));
  checkCuda(cudaMemcpy(d_in, h.data(), n * sizeof(float),
                       cudaMemcpyHostToDevice));
  Flags init = {0, 1};
  checkCuda(cudaMemcpy(d_flags, &init, sizeof init, cudaMemcpyHostToDevice));

  unsigned int *d_count;
  checkCuda(cudaGetSymbolAddress((void **)&d_count, retirementCount));
  checkCuda(cudaMemset(d_count, 0, sizeof(unsigned int)));

  ReduceKernel kernel = pickKernel(threads);
  cudaFuncAttributes attr;
  checkCuda(cudaFuncGetAttributes(&attr, kernel));
  printf("kernel: %d registers, %zu bytes static shared, max %d threads\n",
         attr.numRegs, attr.sharedSizeBytes, attr.maxThreadsPerBlock);
  checkCuda(cudaFuncSetCacheConfig(kernel, cudaFuncCachePreferShared));

  kernel<<<blocks, threads>>>(d_in, d_partial, d_result, d_flags, n);
  checkCuda(cudaGetLastError());
  checkCuda(cudaDeviceSynchronize());

  float gpu = 0.f;
  Flags flags;
  unsigned int count = 1;
  checkCuda(cudaMemcpy(&gpu, d_result, sizeof(float), cudaMemcpyDeviceToHost));
  checkCuda(cudaMemcpy(&flags, d_flags, sizeof flags, cudaMemcpyDeviceToHost));
  checkCuda(cudaMemcpyFromSymbol(&count, retirementCount, sizeof count));
  double relErr = std::fabs(gpu - ref) / std::fabs(ref);
  printf("sum = %f (ref %f), rel err %.2e, negative=%d finite=%d, counter=%u\n",
         gpu, ref, relErr, flags.anyNegative, flags.allFinite, count);

  cudaFree(d_in);
  cudaFree(d_partial);
  cudaFree(d_result);
  cudaFree(d_flags);
  bool ok = relErr < 1e-5 && flags.anyNegative && flags.allFinite && !count;
  printf("%s\n", ok ? "Test passed" : "Test failed");
  return ok ? 0 : 1;
}
