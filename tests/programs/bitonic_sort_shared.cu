// Sorts many independent 1024-key batches (key/value pairs) with a bitonic
// network in shared memory, one batch per block; the direction of the whole
// batch is a kernel argument. Sample-style, uses dynamic shared memory.
//
// nvcc-flags: -I tests/programs/common

#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <vector>

#include <cuda_runtime.h>
#include <helper_cuda.h>

static const unsigned kBatch = 1024;

__device__ inline void compareExchange(unsigned &keyA, unsigned &valA, unsigned &keyB,
                                       unsigned &valB, bool ascending) {
  if ((keyA > keyB) == ascending) {
    unsigned t = keyA; keyA = keyB; keyB = t;
    t = valA; valA = valB; valB = t;
  }
}

// blockDim.x == batch / 2: each thread owns one comparator per stage.
__global__ void bitonicSortShared(unsigned *keys, unsigned *vals, unsigned batch,
                                  int ascending) {
  extern __shared__ unsigned smem[];
  unsigned *sKey = smem;
  unsigned *sVal = smem + batch;

  keys += blockIdx.x * batch;
  vals += blockIdx.x * batch;
  unsigned t = threadIdx.x;
  sKey[t] = keys[t];
  sVal[t] = vals[t];
  sKey[t + batch / 2] = keys[t + batch / 2];
  sVal[t + batch / 2] = vals[t + batch / 2];

  for (unsigned size = 2; size <= batch; size <<= 1) {
    // The direction of this comparator's bitonic subsequence.
    bool dir = ascending ? ((t & (size / 2)) == 0) : ((t & (size / 2)) != 0);
    for (unsigned stride = size / 2; stride > 0; stride >>= 1) {
      __syncthreads();
      unsigned pos = 2 * t - (t & (stride - 1));
      if (size == batch) dir = ascending != 0;
      compareExchange(sKey[pos], sVal[pos], sKey[pos + stride], sVal[pos + stride], dir);
    }
  }
  __syncthreads();

  keys[t] = sKey[t];
  vals[t] = sVal[t];
  keys[t + batch / 2] = sKey[t + batch / 2];
  vals[t + batch / 2] = sVal[t + batch / 2];
}

int main() {
  const int batches = 300;
  const size_t total = static_cast<size_t>(batches) * kBatch;
  findCudaDevice();

  std::vector<unsigned> hKeys(total), hVals(total);
  unsigned state = 12345u;
  for (size_t i = 0; i < total; ++i) {
    state ^= state << 13; state ^= state >> 17; state ^= state << 5;
    hKeys[i] = state % 100000u;
    hVals[i] = static_cast<unsigned>(i % kBatch);
  }

  unsigned *dKeys, *dVals;
  checkCudaErrors(cudaMalloc(&dKeys, total * sizeof(unsigned)));
  checkCudaErrors(cudaMalloc(&dVals, total * sizeof(unsigned)));

  bool ok = true;
  for (int ascending = 0; ascending <= 1; ++ascending) {
    checkCudaErrors(cudaMemcpy(dKeys, hKeys.data(), total * sizeof(unsigned), cudaMemcpyHostToDevice));
    checkCudaErrors(cudaMemcpy(dVals, hVals.data(), total * sizeof(unsigned), cudaMemcpyHostToDevice));
    size_t smem = 2 * kBatch * sizeof(unsigned);
    bitonicSortShared<<<batches, kBatch / 2, smem>>>(dKeys, dVals, kBatch, ascending);
    getLastCudaError("bitonicSortShared");

    std::vector<unsigned> outKeys(total), outVals(total);
    checkCudaErrors(cudaMemcpy(outKeys.data(), dKeys, total * sizeof(unsigned), cudaMemcpyDeviceToHost));
    checkCudaErrors(cudaMemcpy(outVals.data(), dVals, total * sizeof(unsigned), cudaMemcpyDeviceToHost));

    int badBatches = 0;
    for (int b = 0; b < batches; ++b) {
      const unsigned *k = &outKeys[b * kBatch];
      const unsigned *v = &outVals[b * kBatch];
      bool good = true;
      for (unsigned i = 1; i < kBatch; ++i)
        if (ascending ? k[i - 1] > k[i] : k[i - 1] < k[i]) good = false;
      // Every value must still name an input key equal to its sorted key.
      for (unsigned i = 0; i < kBatch && good; ++i)
        if (v[i] >= kBatch || hKeys[b * kBatch + v[i]] != k[i]) good = false;
      std::vector<unsigned> seen(v, v + kBatch);
      std::sort(seen.begin(), seen.end());
      for (unsigned i = 0; i < kBatch && good; ++i)
        if (seen[i] != i) good = false;
      if (!good) ++badBatches;
    }
    printf("%s: %d of %d batches wrong\n", ascending ? "ascending" : "descending",
           badBatches, batches);
    ok = ok && badBatches == 0;
  }

  checkCudaErrors(cudaFree(dKeys));
  checkCudaErrors(cudaFree(dVals));
  return reportResult("bitonic_sort_shared", ok);
}
