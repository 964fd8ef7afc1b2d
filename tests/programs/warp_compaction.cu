// Stream compaction (keep the positive elements, in order within a warp)
// with warp-aggregated atomics: one atomicAdd per warp reserves space, and
// each lane finds its slot from a ballot and a popcount. A second kernel
// classifies the elements with one ballot per class.
//
// nvcc-flags: -I tests/programs/common

#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>

#include <cuda_runtime.h>
#include <helper_cuda.h>

__device__ __forceinline__ unsigned laneId() { return threadIdx.x & 31u; }

__global__ void compactPositive(const int *in, int n, int *out, unsigned *outCount) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  bool inRange = i < n;
  int v = inRange ? in[i] : 0;
  bool keep = inRange && v > 0;

  // Every lane of the warp takes part: the grid is a whole number of warps.
  unsigned mask = __ballot_sync(0xffffffffu, keep);
  unsigned leader = __ffs(mask) - 1;
  unsigned base = 0;
  if (mask != 0 && laneId() == leader) base = atomicAdd(outCount, (unsigned)__popc(mask));
  base = __shfl_sync(0xffffffffu, base, mask != 0 ? leader : 0);
  if (keep) {
    unsigned rank = __popc(mask & ((1u << laneId()) - 1u));
    out[base + rank] = v;
  }
}

// Counts negatives, zeros and positives; one lane per warp adds each count.
__global__ void classify(const int *in, int n, unsigned *counts) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  unsigned neg = __ballot_sync(0xffffffffu, i < n && v < 0);
  unsigned zero = __ballot_sync(0xffffffffu, i < n && v == 0);
  unsigned pos = __ballot_sync(0xffffffffu, i < n && v > 0);
  if (laneId() == 0) {
    if (neg) atomicAdd(&counts[0], __popc(neg));
    if (zero) atomicAdd(&counts[1], __popc(zero));
    if (pos) atomicAdd(&counts[2], __popc(pos));
  }
}

int main() {
  const int n = 1000003;
  const int threads = 128; // a multiple of 32, as both kernels need
  findCudaDevice();

  std::vector<int> h(n);
  unsigned state = 7u;
  for (int &x : h) {
    state = state * 1103515245u + 12345u;
    x = static_cast<int>((state >> 16) % 201) - 100;
  }
  std::vector<int> expected;
  unsigned hostCounts[3] = {0, 0, 0};
  for (int x : h) {
    if (x > 0) expected.push_back(x);
    hostCounts[x < 0 ? 0 : x == 0 ? 1 : 2]++;
  }

  int *dIn, *dOut;
  unsigned *dCount, *dClasses;
  checkCudaErrors(cudaMalloc(&dIn, n * sizeof(int)));
  checkCudaErrors(cudaMalloc(&dOut, n * sizeof(int)));
  checkCudaErrors(cudaMalloc(&dCount, sizeof(unsigned)));
  checkCudaErrors(cudaMalloc(&dClasses, 3 * sizeof(unsigned)));
  checkCudaErrors(cudaMemcpy(dIn, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  checkCudaErrors(cudaMemset(dCount, 0, sizeof(unsigned)));
  checkCudaErrors(cudaMemset(dClasses, 0, 3 * sizeof(unsigned)));

  compactPositive<<<iDivUp(n, threads), threads>>>(dIn, n, dOut, dCount);
  getLastCudaError("compactPositive");
  classify<<<iDivUp(n, threads), threads>>>(dIn, n, dClasses);
  getLastCudaError("classify");

  unsigned count = 0, classes[3];
  checkCudaErrors(cudaMemcpy(&count, dCount, sizeof(count), cudaMemcpyDeviceToHost));
  checkCudaErrors(cudaMemcpy(classes, dClasses, sizeof(classes), cudaMemcpyDeviceToHost));
  std::vector<int> got(count);
  checkCudaErrors(cudaMemcpy(got.data(), dOut, count * sizeof(int), cudaMemcpyDeviceToHost));

  // Warps finish in any order, so compare as multisets.
  std::vector<int> a = expected, b = got;
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  bool ok = a == b;
  for (int c = 0; c < 3; ++c) ok = ok && classes[c] == hostCounts[c];
  printf("kept %u of %d (expected %zu); classes %u/%u/%u\n", count, n, expected.size(),
         classes[0], classes[1], classes[2]);

  checkCudaErrors(cudaFree(dIn));
  checkCudaErrors(cudaFree(dOut));
  checkCudaErrors(cudaFree(dCount));
  checkCudaErrors(cudaFree(dClasses));
  return reportResult("warp_compaction", ok);
}
