// 256-bin byte histogram: per-block sub-histograms in shared memory built
// with shared atomics, merged into the global histogram with global
// atomics. Compared with a host count. Sample-style.
//
// nvcc-flags: -I tests/programs/common

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <cuda_runtime.h>
#include <helper_cuda.h>

static const int kBins = 256;
static const int kThreads = 192;

__global__ void __launch_bounds__(kThreads)
histogram256Kernel(unsigned int *d_Histogram, const unsigned char *d_Data,
                   unsigned int byteCount) {
  __shared__ unsigned int s_Hist[kBins];
  for (int bin = threadIdx.x; bin < kBins; bin += blockDim.x) s_Hist[bin] = 0;
  __syncthreads();

  // Four bytes per load where the data allows it.
  const unsigned int wordCount = byteCount / 4;
  const uchar4 *words = reinterpret_cast<const uchar4 *>(d_Data);
  for (unsigned int pos = blockIdx.x * blockDim.x + threadIdx.x; pos < wordCount;
       pos += blockDim.x * gridDim.x) {
    uchar4 w = words[pos];
    atomicAdd(&s_Hist[w.x], 1u);
    atomicAdd(&s_Hist[w.y], 1u);
    atomicAdd(&s_Hist[w.z], 1u);
    atomicAdd(&s_Hist[w.w], 1u);
  }
  // The last byteCount % 4 bytes, one per thread of block 0.
  if (blockIdx.x == 0 && threadIdx.x < byteCount % 4)
    atomicAdd(&s_Hist[d_Data[wordCount * 4 + threadIdx.x]], 1u);
  __syncthreads();

  for (int bin = threadIdx.x; bin < kBins; bin += blockDim.x) {
    unsigned int count = s_Hist[bin];
    if (count) atomicAdd(&d_Histogram[bin], count);
  }
}

int main(int argc, char **argv) {
  unsigned int byteCount = 64 * 1048576 + 3;
  if (argc > 1) byteCount = static_cast<unsigned>(strtoul(argv[1], nullptr, 10));
  printf("histogram256: %u bytes\n", byteCount);
  int dev = findCudaDevice();
  cudaDeviceProp prop;
  checkCudaErrors(cudaGetDeviceProperties(&prop, dev));

  unsigned char *h_Data = static_cast<unsigned char *>(malloc(byteCount));
  unsigned int h_Ref[kBins], h_Hist[kBins];
  memset(h_Ref, 0, sizeof(h_Ref));
  srand(2024);
  for (unsigned int i = 0; i < byteCount; ++i) {
    // A skewed distribution so that some bins see heavy contention.
    int r = rand();
    h_Data[i] = static_cast<unsigned char>((r & 7) == 0 ? 42 : (r >> 4) & 0xff);
    h_Ref[h_Data[i]]++;
  }

  unsigned char *d_Data;
  unsigned int *d_Histogram;
  checkCudaErrors(cudaMalloc(&d_Data, byteCount));
  checkCudaErrors(cudaMalloc(&d_Histogram, kBins * sizeof(unsigned int)));
  checkCudaErrors(cudaMemcpy(d_Data, h_Data, byteCount, cudaMemcpyHostToDevice));
  checkCudaErrors(cudaMemset(d_Histogram, 0, kBins * sizeof(unsigned int)));

  int blocks = prop.multiProcessorCount * 8;
  cudaEvent_t start, stop;
  checkCudaErrors(cudaEventCreate(&start));
  checkCudaErrors(cudaEventCreate(&stop));
  checkCudaErrors(cudaEventRecord(start));
  histogram256Kernel<<<blocks, kThreads>>>(d_Histogram, d_Data, byteCount);
  checkCudaErrors(cudaEventRecord(stop));
  getLastCudaError("histogram256Kernel");
  checkCudaErrors(cudaEventSynchronize(stop));
  float ms;
  checkCudaErrors(cudaEventElapsedTime(&ms, start, stop));
  printf("%d blocks: %.3f ms, %.2f GB/s\n", blocks, ms, byteCount / (ms * 1e6));

  checkCudaErrors(cudaMemcpy(h_Hist, d_Histogram, sizeof(h_Hist), cudaMemcpyDeviceToHost));
  bool ok = memcmp(h_Hist, h_Ref, sizeof(h_Ref)) == 0;
  if (!ok)
    for (int b = 0; b < kBins; ++b)
      if (h_Hist[b] != h_Ref[b]) printf("  bin %d: %u vs %u\n", b, h_Hist[b], h_Ref[b]);

  checkCudaErrors(cudaEventDestroy(start));
  checkCudaErrors(cudaEventDestroy(stop));
  checkCudaErrors(cudaFree(d_Data));
  checkCudaErrors(cudaFree(d_Histogram));
  free(h_Data);
  return reportResult("histogram256", ok);
}
