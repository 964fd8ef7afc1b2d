// LSD radix sort of 32-bit keys (with a payload) by repeated one-bit
// splits: per pass, each block counts the zeros of its tile; a
// single-block kernel scans the per-block counts; a scatter kernel places
// each key at (zeros before its block + its rank among the block's zeros)
// or (all zeros + ones before its block + its rank among the block's
// ones). The in-block ranks come from a block-wide exclusive scan built
// from warp ballots. Stable, so 32 passes sort.
//
// usage: bench_radix_sort [count]

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#define THREADS 256
#define WARPS (THREADS / 32)
#define MAX_BLOCKS 8192

#define CUDA_CHECK(call)                                                         \
  do {                                                                           \
    cudaError_t err_ = (call);                                                   \
    if (err_ != cudaSuccess) {                                                   \
      fprintf(stderr, "%s line %d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      exit(EXIT_FAILURE);                                                        \
    }                                                                            \
  } while (0)

// Exclusive count of set flags before each thread in the block; *total gets
// the block's count. Every thread of the block must call it.
__device__ unsigned blockExclusiveCount(bool flag, unsigned *total) {
  __shared__ unsigned warpCounts[WARPS];
  const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  unsigned ballot = __ballot_sync(0xffffffffu, flag);
  unsigned inWarp = __popc(ballot & ((1u << lane) - 1u));
  if (lane == 0) warpCounts[warp] = __popc(ballot);
  __syncthreads();
  unsigned before = 0, sum = 0;
  for (unsigned w = 0; w < WARPS; ++w) {
    if (w < warp) before += warpCounts[w];
    sum += warpCounts[w];
  }
  *total = sum;
  __syncthreads(); // warpCounts may be reused by the next call
  return before + inWarp;
}

__global__ void countZeros(const unsigned *keys, int n, int bit, unsigned *blockZeros) {
  int i = blockIdx.x * THREADS + threadIdx.x;
  bool zero = i < n && ((keys[i] >> bit) & 1u) == 0;
  unsigned total;
  blockExclusiveCount(zero, &total);
  if (threadIdx.x == 0) blockZeros[blockIdx.x] = total;
}

// One block: exclusive scan of the per-block zero counts (in place) and the
// grand total of zeros.
__global__ void scanBlockCounts(unsigned *blockZeros, int blocks, unsigned *totalZeros) {
  __shared__ unsigned carry;
  if (threadIdx.x == 0) carry = 0;
  __syncthreads();
  for (int base = 0; base < blocks; base += THREADS) {
    int i = base + threadIdx.x;
    unsigned v = i < blocks ? blockZeros[i] : 0u;
    // inclusive scan within the chunk, done with a simple shared buffer
    __shared__ unsigned buf[THREADS];
    buf[threadIdx.x] = v;
    __syncthreads();
    for (int off = 1; off < THREADS; off <<= 1) {
      unsigned add = threadIdx.x >= off ? buf[threadIdx.x - off] : 0u;
      __syncthreads();
      buf[threadIdx.x] += add;
      __syncthreads();
    }
    if (i < blocks) blockZeros[i] = carry + buf[threadIdx.x] - v;
    __syncthreads();
    if (threadIdx.x == THREADS - 1) carry += buf[THREADS - 1];
    __syncthreads();
  }
  if (threadIdx.x == 0) *totalZeros = carry;
}

__global__ void scatterByBit(const unsigned *keysIn, const unsigned *valsIn, unsigned *keysOut,
                             unsigned *valsOut, int n, int bit, const unsigned *zerosBefore,
                             const unsigned *totalZeros) {
  int i = blockIdx.x * THREADS + threadIdx.x;
  unsigned key = i < n ? keysIn[i] : 0u;
  bool valid = i < n;
  bool zero = valid && ((key >> bit) & 1u) == 0;
  unsigned blockZeroCount;
  unsigned zeroRank = blockExclusiveCount(zero, &blockZeroCount);
  if (!valid) return;
  unsigned dst;
  if (zero) {
    dst = zerosBefore[blockIdx.x] + zeroRank;
  } else {
    unsigned blockStart = blockIdx.x * THREADS;
    unsigned onesBeforeBlock = blockStart - zerosBefore[blockIdx.x];
    unsigned oneRank = threadIdx.x - zeroRank; // earlier threads in the block that are ones
    dst = *totalZeros + onesBeforeBlock + oneRank;
  }
  keysOut[dst] = key;
  valsOut[dst] = valsIn[i];
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1000000;
  int blocks = (n + THREADS - 1) / THREADS;
  if (n <= 0 || blocks > MAX_BLOCKS) {
    fprintf(stderr, "count must be in 1..%d\n", MAX_BLOCKS * THREADS);
    return 1;
  }
  std::vector<unsigned> keys(n), vals(n);
  unsigned s = 88172645u;
  for (int i = 0; i < n; ++i) {
    s ^= s << 13; s ^= s >> 17; s ^= s << 5;
    keys[i] = s % 1000 == 0 ? 42u : s; // some duplicates to test stability
    vals[i] = i;
  }

  unsigned *dKeys[2], *dVals[2], *dZeros, *dTotal;
  for (int b = 0; b < 2; ++b) {
    CUDA_CHECK(cudaMalloc(&dKeys[b], n * sizeof(unsigned)));
    CUDA_CHECK(cudaMalloc(&dVals[b], n * sizeof(unsigned)));
  }
  CUDA_CHECK(cudaMalloc(&dZeros, blocks * sizeof(unsigned)));
  CUDA_CHECK(cudaMalloc(&dTotal, sizeof(unsigned)));
  CUDA_CHECK(cudaMemcpy(dKeys[0], keys.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dVals[0], vals.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));

  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  cudaEventRecord(start);
  int cur = 0;
  for (int bit = 0; bit < 32; ++bit) {
    countZeros<<<blocks, THREADS>>>(dKeys[cur], n, bit, dZeros);
    scanBlockCounts<<<1, THREADS>>>(dZeros, blocks, dTotal);
    scatterByBit<<<blocks, THREADS>>>(dKeys[cur], dVals[cur], dKeys[1 - cur], dVals[1 - cur], n, bit,
                                      dZeros, dTotal);
    cur = 1 - cur;
  }
  cudaEventRecord(stop);
  CUDA_CHECK(cudaGetLastError());
  cudaEventSynchronize(stop);
  float ms;
  cudaEventElapsedTime(&ms, start, stop);

  std::vector<unsigned> outKeys(n), outVals(n);
  CUDA_CHECK(cudaMemcpy(outKeys.data(), dKeys[cur], n * sizeof(unsigned), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(outVals.data(), dVals[cur], n * sizeof(unsigned), cudaMemcpyDeviceToHost));

  std::vector<unsigned> order(n);
  for (int i = 0; i < n; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](unsigned a, unsigned b) { return keys[a] < keys[b]; });
  int bad = 0;
  for (int i = 0; i < n; ++i)
    if (outKeys[i] != keys[order[i]] || outVals[i] != order[i]) ++bad;
  printf("%d keys sorted in %.3f ms (%.1f Mkeys/s), %d mismatches\n", n, ms, n / (ms * 1e3), bad);
  for (int b = 0; b < 2; ++b) {
    cudaFree(dKeys[b]);
    cudaFree(dVals[b]);
  }
  cudaFree(dZeros);
  cudaFree(dTotal);
  printf("%s\n", bad == 0 ? "PASS" : "FAIL");
  return bad != 0;
}
