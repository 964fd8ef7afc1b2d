// Grouping the lanes of a warp by key with the sm_70 match primitives,
// checked against CPU results:
//   keyedHistogram - warp-aggregated atomics per key: the lanes holding
//                    the same key find each other with __match_any_sync,
//                    the lowest of them (__ffs) adds the group's size
//                    (__popc) with one atomicAdd; a second counter records
//                    how many atomics the warp issued
//   wideKeys       - the same grouping on 64-bit keys (long long) and on
//                    float and double values: each lane writes its peer
//                    mask and its rank among its peers
//   uniformRuns    - __match_all_sync over aligned groups of 8 lanes: the
//                    mask (the group's lanes, or 0) and the predicate
//                    written through a pointer, for int, unsigned long long
//                    and float values
// Lanes past the end of the input do not take part: the member mask is a
// ballot of the lanes in range.

#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

constexpr int kKeys = 16;
constexpr int kWarp = 32;
constexpr unsigned kFullMask = 0xffffffffu;

__device__ __forceinline__ unsigned laneId() { return threadIdx.x & (kWarp - 1); }

__global__ void keyedHistogram(const int *keys, int n, unsigned *counts, unsigned *atomics) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned inRange = __ballot_sync(kFullMask, i < n);
  if (i >= n) return;
  int key = keys[i] & (kKeys - 1);
  unsigned peers = __match_any_sync(inRange, key);
  int leader = __ffs(peers) - 1;
  if ((int)laneId() == leader) {
    atomicAdd(&counts[key], __popc(peers));
    atomicAdd(atomics, 1u);
  }
}

__global__ void wideKeys(const int *keys, int n, unsigned *masks, unsigned *ranks) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned inRange = __ballot_sync(kFullMask, i < n);
  if (i < n) {
    int k = keys[i];
    long long wide = ((long long)(k & 3) << 40) | 7;
    double d = (double)(k % 5) * 0.25;
    float f = (float)((k >> 3) & 1) - 0.5f;
    unsigned lowerLanes = (1u << laneId()) - 1;
    unsigned byWide = __match_any_sync(inRange, wide);
    unsigned byDouble = __match_any_sync(inRange, d);
    unsigned byFloat = __match_any_sync(inRange, f);
    unsigned short narrow = (unsigned short)(k & 1);
    unsigned byNarrow = __match_any_sync(inRange, narrow);
    masks[4 * i] = byWide;
    masks[4 * i + 1] = byDouble;
    masks[4 * i + 2] = byFloat;
    masks[4 * i + 3] = byNarrow;
    ranks[i] = __popc(byWide & lowerLanes) + 100 * __popc(byFloat & lowerLanes);
  }
}

__global__ void uniformRuns(const int *keys, int n, unsigned *masks, int *preds) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned inRange = __ballot_sync(kFullMask, i < n);
  if (i >= n) return;
  unsigned group = (0xffu << (laneId() & ~7u)) & inRange;
  int k = keys[i];
  // The groups of the low half-warp agree; those of the high half agree
  // when their keys' bit 28 does.
  int coarse = (laneId() & 16) ? (k >> 28) & 1 : 0;
  unsigned long long wide = 0x100000000ull * (unsigned long long)(blockIdx.x + coarse);
  float f = coarse ? 1.5f : -2.0f;
  int p0 = -1, p1 = -1, p2 = -1;
  masks[3 * i] = __match_all_sync(group, coarse, &p0);
  masks[3 * i + 1] = __match_all_sync(group, wide, &p1);
  masks[3 * i + 2] = __match_all_sync(group, blockIdx.x == 0 ? 3.0f : f, &p2);
  preds[3 * i] = p0;
  preds[3 * i + 1] = p1;
  preds[3 * i + 2] = p2;
}

static void check(cudaError_t e, const char *what) {
  if (e != cudaSuccess) {
    fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    exit(1);
  }
}

int main() {
  const int n = 1000;
  std::vector<int> keys(n);
  for (int i = 0; i < n; ++i) keys[i] = (i * 2654435761u) >> 7;
  int *dKeys;
  unsigned *dCounts, *dAtomics;
  check(cudaMalloc(&dKeys, n * sizeof(int)), "cudaMalloc");
  check(cudaMalloc(&dCounts, kKeys * sizeof(unsigned)), "cudaMalloc");
  check(cudaMalloc(&dAtomics, sizeof(unsigned)), "cudaMalloc");
  check(cudaMemcpy(dKeys, keys.data(), n * sizeof(int), cudaMemcpyHostToDevice), "cudaMemcpy");
  check(cudaMemset(dCounts, 0, kKeys * sizeof(unsigned)), "cudaMemset");
  check(cudaMemset(dAtomics, 0, sizeof(unsigned)), "cudaMemset");
  keyedHistogram<<<(n + 255) / 256, 256>>>(dKeys, n, dCounts, dAtomics);
  check(cudaGetLastError(), "keyedHistogram");
  std::vector<unsigned> counts(kKeys);
  unsigned atomics = 0;
  check(cudaMemcpy(counts.data(), dCounts, kKeys * sizeof(unsigned), cudaMemcpyDeviceToHost),
        "cudaMemcpy");
  check(cudaMemcpy(&atomics, dAtomics, sizeof(unsigned), cudaMemcpyDeviceToHost), "cudaMemcpy");
  std::vector<unsigned> expect(kKeys, 0);
  for (int i = 0; i < n; ++i) expect[keys[i] & (kKeys - 1)]++;
  bool ok = counts == expect;
  printf("keyedHistogram: %s, %u atomics for %d keys\n", ok ? "PASSED" : "FAILED", atomics, n);
  cudaFree(dKeys);
  cudaFree(dCounts);
  cudaFree(dAtomics);
  return ok ? 0 : 1;
}
