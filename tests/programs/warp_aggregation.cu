// Warp-level primitives and atomics, as performance-minded CUDA code uses
// them, checked against CPU results:
//   histogramPeers   - per-block shared histogram, each warp merging equal
//                      keys before one shared atomicAdd per distinct key: the
//                      lowest unserved lane's key broadcast with __shfl_sync,
//                      its peers found with __ballot_sync (the loop
//                      __match_any_sync replaces on sm_70+), leader from
//                      __ffs, count from __popc
//   log2Histogram    - bucket by magnitude with __clz, warp totals by
//                      __reduce_add_sync, 64-bit global atomics
//   compactPositive  - stream compaction with one atomicAdd per warp: the
//                      ballot, a lane mask below each lane, the base
//                      broadcast with __shfl_sync
//   warpBitonicSort  - sorts each warp's 32 keys in registers with
//                      __shfl_xor_sync compare-exchange steps
//   floatMaxBitmap   - atomicMax on floats through an atomicCAS loop,
//                      atomicOr into a presence bitmap, atomicInc on a
//                      __device__ counter read back with cudaMemcpyFromSymbol
// Bin edges for histogramPeers live in __constant__ memory.
//
// nvcc-flags: -I tests/programs/common

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#include "helper_cuda.h"

constexpr int kBins = 64;
constexpr int kWarp = 32;
constexpr unsigned kFullMask = 0xffffffffu;

__constant__ float c_binEdges[kBins + 1];
__device__ unsigned int d_visits;

__device__ __forceinline__ int laneId() { return threadIdx.x & (kWarp - 1); }
__device__ __forceinline__ unsigned lanesBelow() { return (1u << laneId()) - 1u; }

// The bin of v among the constant edges, by binary search.
__device__ int findBin(float v) {
  int lo = 0, hi = kBins;
  while (hi - lo > 1) {
    int mid = (lo + hi) / 2;
    if (v >= c_binEdges[mid]) lo = mid;
    else hi = mid;
  }
  return lo;
}

// The lanes of `active` whose key equals this lane's.
__device__ __forceinline__ unsigned peersOf(unsigned active, int key) {
  unsigned unserved = active;
  unsigned mine = 0;
  while (unserved != 0) {
    int first = __ffs(unserved) - 1;
    int firstKey = __shfl_sync(active, key, first);
    unsigned same = __ballot_sync(active, key == firstKey);
    if (key == firstKey) mine = same;
    unserved &= ~same;
  }
  return mine;
}

__global__ void __launch_bounds__(256) histogramPeers(const float *data, int n, unsigned *hist) {
  __shared__ unsigned s_hist[kBins];
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) s_hist[b] = 0;
  __syncthreads();

  for (int base = blockIdx.x * blockDim.x; base < n; base += gridDim.x * blockDim.x) {
    int i = base + threadIdx.x;
    unsigned active = __ballot_sync(kFullMask, i < n);
    if (i < n) {
      int bin = findBin(data[i]);
      unsigned peers = peersOf(active, bin);
      int leader = __ffs(peers) - 1;
      if (laneId() == leader) {
        atomicAdd(&s_hist[bin], __popc(peers));
      }
    }
  }
  __syncthreads();
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) {
    if (s_hist[b] != 0) atomicAdd(&hist[b], s_hist[b]);
  }
}

// Counts values by bit length (32 - __clz(v); bucket 0 for v == 0), and
// the grand total of values through warp sums.
__global__ void log2Histogram(const unsigned *values, int n, unsigned long long *buckets,
                              unsigned long long *total) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned v = i < n ? values[i] : 0u;
  int bucket = v == 0 ? 0 : 32 - __clz(v);
  if (i < n) atomicAdd(&buckets[bucket], 1ull);

  unsigned warpSum = __reduce_add_sync(kFullMask, v & 0xffffu);
  if (laneId() == 0) atomicAdd(total, (unsigned long long)warpSum);
}

// Appends the positive elements to out in warp-sized chunks; the order
// within a warp is kept, the order of warps is the atomics'.
__global__ void compactPositive(const int *in, int n, int *out, int *count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  bool keep = i < n && in[i] > 0;
  unsigned ballot = __ballot_sync(kFullMask, keep);
  int warpCount = __popc(ballot);
  int leader = __ffs(ballot) - 1;
  int base = 0;
  if (warpCount > 0 && laneId() == leader) {
    base = atomicAdd(count, warpCount);
  }
  base = __shfl_sync(kFullMask, base, leader < 0 ? 0 : leader);
  if (keep) {
    out[base + __popc(ballot & lanesBelow())] = in[i];
  }
}

// Bitonic sort of the 32 keys of each warp, ascending. n must be a
// multiple of 32.
__global__ void warpBitonicSort(const unsigned *keys, unsigned *sorted, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned key = keys[i];
  const int lane = laneId();
#pragma unroll
  for (int size = 2; size <= kWarp; size <<= 1) {
#pragma unroll
    for (int stride = size / 2; stride > 0; stride >>= 1) {
      unsigned other = __shfl_xor_sync(kFullMask, key, stride);
      bool ascending = (lane & size) == 0;
      bool lower = (lane & stride) == 0;
      bool takeMin = (lower == ascending);
      key = takeMin ? min(key, other) : max(key, other);
    }
  }
  __syncwarp();
  sorted[i] = key;
}

__device__ float atomicMaxFloat(float *address, float value) {
  int *bits = reinterpret_cast<int *>(address);
  int old = *bits, assumed;
  do {
    assumed = old;
    if (__int_as_float(assumed) >= value) break;
    old = atomicCAS(bits, assumed, __float_as_int(value));
  } while (assumed != old);
  return __int_as_float(old);
}

__global__ void floatMaxBitmap(const float *data, int n, float *maxOut, unsigned *bitmap,
                               unsigned *lastSeen) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = data[i];
  atomicMaxFloat(maxOut, v);
  int bin = findBin(v);
  atomicOr(&bitmap[bin / 32], 1u << (bin % 32));
  unsigned ticket = atomicInc(&d_visits, UINT_MAX);
  if (ticket == (unsigned)n - 1) {
    atomicExch(lastSeen, (unsigned)i);
  }
}

int main() {
  findCudaDevice();
  const int n = 1 << 18;

  std::vector<float> edges(kBins + 1);
  for (int b = 0; b <= kBins; ++b) edges[b] = (float)b / kBins;
  checkCudaErrors(cudaMemcpyToSymbol(c_binEdges, edges.data(), edges.size() * sizeof(float)));

  std::vector<float> data(n);
  fillRandom(data.data(), n, 2024u);
  std::vector<unsigned> values(n);
  std::vector<int> signedValues(n);
  for (int i = 0; i < n; ++i) {
    values[i] = (unsigned)(data[i] * 1e6f) * (unsigned)(i % 7);
    signedValues[i] = (int)(data[i] * 200.0f) - 100;
  }

  float *dData, *dMax;
  unsigned *dHist, *dValues, *dSorted, *dBitmap, *dLast;
  unsigned long long *dBuckets, *dTotal;
  int *dSigned, *dCompact, *dCount;
  checkCudaErrors(cudaMalloc(&dData, n * sizeof(float)));
  checkCudaErrors(cudaMalloc(&dMax, sizeof(float)));
  checkCudaErrors(cudaMalloc(&dHist, kBins * sizeof(unsigned)));
  checkCudaErrors(cudaMalloc(&dValues, n * sizeof(unsigned)));
  checkCudaErrors(cudaMalloc(&dSorted, n * sizeof(unsigned)));
  checkCudaErrors(cudaMalloc(&dBitmap, (kBins / 32) * sizeof(unsigned)));
  checkCudaErrors(cudaMalloc(&dLast, sizeof(unsigned)));
  checkCudaErrors(cudaMalloc(&dBuckets, 33 * sizeof(unsigned long long)));
  checkCudaErrors(cudaMalloc(&dTotal, sizeof(unsigned long long)));
  checkCudaErrors(cudaMalloc(&dSigned, n * sizeof(int)));
  checkCudaErrors(cudaMalloc(&dCompact, n * sizeof(int)));
  checkCudaErrors(cudaMalloc(&dCount, sizeof(int)));
  checkCudaErrors(cudaMemcpy(dData, data.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  checkCudaErrors(cudaMemcpy(dValues, values.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
  checkCudaErrors(cudaMemcpy(dSigned, signedValues.data(), n * sizeof(int), cudaMemcpyHostToDevice));

  cudaStream_t stream;
  checkCudaErrors(cudaStreamCreate(&stream));
  checkCudaErrors(cudaMemsetAsync(dHist, 0, kBins * sizeof(unsigned), stream));
  checkCudaErrors(cudaMemsetAsync(dBuckets, 0, 33 * sizeof(unsigned long long), stream));
  checkCudaErrors(cudaMemsetAsync(dTotal, 0, sizeof(unsigned long long), stream));
  checkCudaErrors(cudaMemsetAsync(dCount, 0, sizeof(int), stream));
  checkCudaErrors(cudaMemsetAsync(dMax, 0, sizeof(float), stream));
  checkCudaErrors(cudaMemsetAsync(dBitmap, 0, (kBins / 32) * sizeof(unsigned), stream));
  unsigned zero = 0;
  checkCudaErrors(cudaMemcpyToSymbolAsync(d_visits, &zero, sizeof(zero), 0,
                                          cudaMemcpyHostToDevice, stream));

  const int threads = 256;
  const int blocks = iDivUp(n, threads);
  histogramPeers<<<64, threads, 0, stream>>>(dData, n, dHist);
  log2Histogram<<<blocks, threads, 0, stream>>>(dValues, n, dBuckets, dTotal);
  compactPositive<<<blocks, threads, 0, stream>>>(dSigned, n, dCompact, dCount);
  warpBitonicSort<<<blocks, threads, 0, stream>>>(dValues, dSorted, n);
  floatMaxBitmap<<<blocks, threads, 0, stream>>>(dData, n, dMax, dBitmap, dLast);
  getLastCudaError("warp kernels");
  checkCudaErrors(cudaStreamSynchronize(stream));

  std::vector<unsigned> hist(kBins), sorted(n);
  std::vector<unsigned long long> buckets(33);
  unsigned long long total = 0;
  int count = 0;
  float maxValue = 0.0f;
  unsigned visits = 0;
  checkCudaErrors(cudaMemcpy(hist.data(), dHist, kBins * sizeof(unsigned), cudaMemcpyDeviceToHost));
  checkCudaErrors(cudaMemcpy(sorted.data(), dSorted, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
  checkCudaErrors(cudaMemcpy(buckets.data(), dBuckets, 33 * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
  checkCudaErrors(cudaMemcpy(&total, dTotal, sizeof(total), cudaMemcpyDeviceToHost));
  checkCudaErrors(cudaMemcpy(&count, dCount, sizeof(int), cudaMemcpyDeviceToHost));
  checkCudaErrors(cudaMemcpy(&maxValue, dMax, sizeof(float), cudaMemcpyDeviceToHost));
  checkCudaErrors(cudaMemcpyFromSymbol(&visits, d_visits, sizeof(visits)));

  bool ok = true;
  std::vector<unsigned> expectHist(kBins, 0);
  std::vector<unsigned long long> expectBuckets(33, 0);
  unsigned long long expectTotal = 0;
  int expectCount = 0;
  for (int i = 0; i < n; ++i) {
    int bin = std::min(kBins - 1, (int)(data[i] * kBins));
    expectHist[bin]++;
    unsigned v = values[i];
    int bucket = 0;
    while (bucket < 32 && (v >> bucket) != 0) bucket++;
    expectBuckets[bucket]++;
    expectTotal += v & 0xffffu;
    expectCount += signedValues[i] > 0;
  }
  ok = ok && hist == expectHist && buckets == expectBuckets && total == expectTotal;
  ok = ok && count == expectCount && visits == (unsigned)n;
  ok = ok && maxValue == *std::max_element(data.begin(), data.end());
  for (int w = 0; w < n; w += kWarp) {
    std::vector<unsigned> chunk(values.begin() + w, values.begin() + w + kWarp);
    std::sort(chunk.begin(), chunk.end());
    ok = ok && std::equal(chunk.begin(), chunk.end(), sorted.begin() + w);
  }

  checkCudaErrors(cudaStreamDestroy(stream));
  checkCudaErrors(cudaFree(dData)); checkCudaErrors(cudaFree(dMax));
  checkCudaErrors(cudaFree(dHist)); checkCudaErrors(cudaFree(dValues));
  checkCudaErrors(cudaFree(dSorted)); checkCudaErrors(cudaFree(dBitmap));
  checkCudaErrors(cudaFree(dLast)); checkCudaErrors(cudaFree(dBuckets));
  checkCudaErrors(cudaFree(dTotal)); checkCudaErrors(cudaFree(dSigned));
  checkCudaErrors(cudaFree(dCompact)); checkCudaErrors(cudaFree(dCount));
  return reportResult("warp_aggregation", ok);
}
