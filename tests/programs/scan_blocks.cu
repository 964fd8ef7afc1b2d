// Exclusive prefix sum of an arbitrary-length array: a work-efficient
// (up-sweep / down-sweep) scan per block of 2 * THREADS elements with
// padding against bank conflicts, a recursive scan of the block sums, and
// a uniform add. Sample-style, using the shared helper header.

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "common/helper_cuda.h"

#define THREADS 128
#define ELEMS_PER_BLOCK (2 * THREADS)
#define LOG_NUM_BANKS 5
#define CONFLICT_FREE_OFFSET(n) ((n) >> LOG_NUM_BANKS)

__global__ void prescanBlock(const unsigned *in, unsigned *out, unsigned *blockSums, int n) {
  __shared__ unsigned temp[ELEMS_PER_BLOCK + ELEMS_PER_BLOCK / 32];
  const int tid = threadIdx.x;
  const int base = blockIdx.x * ELEMS_PER_BLOCK;

  int ai = tid, bi = tid + THREADS;
  int offA = CONFLICT_FREE_OFFSET(ai), offB = CONFLICT_FREE_OFFSET(bi);
  temp[ai + offA] = (base + ai < n) ? in[base + ai] : 0u;
  temp[bi + offB] = (base + bi < n) ? in[base + bi] : 0u;

  int offset = 1;
  for (int d = ELEMS_PER_BLOCK >> 1; d > 0; d >>= 1) {
    __syncthreads();
    if (tid < d) {
      int a = offset * (2 * tid + 1) - 1;
      int b = offset * (2 * tid + 2) - 1;
      a += CONFLICT_FREE_OFFSET(a);
      b += CONFLICT_FREE_OFFSET(b);
      temp[b] += temp[a];
    }
    offset *= 2;
  }

  if (tid == 0) {
    int last = ELEMS_PER_BLOCK - 1 + CONFLICT_FREE_OFFSET(ELEMS_PER_BLOCK - 1);
    if (blockSums) blockSums[blockIdx.x] = temp[last];
    temp[last] = 0;
  }

  for (int d = 1; d < ELEMS_PER_BLOCK; d *= 2) {
    offset >>= 1;
    __syncthreads();
    if (tid < d) {
      int a = offset * (2 * tid + 1) - 1;
      int b = offset * (2 * tid + 2) - 1;
      a += CONFLICT_FREE_OFFSET(a);
      b += CONFLICT_FREE_OFFSET(b);
      unsigned t = temp[a];
      temp[a] = temp[b];
      temp[b] += t;
    }
  }
  __syncthreads();

  if (base + ai < n) out[base + ai] = temp[ai + offA];
  if (base + bi < n) out[base + bi] = temp[bi + offB];
}

__global__ void addBlockOffsets(unsigned *data, const unsigned *offsets, int n) {
  int i = blockIdx.x * ELEMS_PER_BLOCK + threadIdx.x;
  unsigned add = offsets[blockIdx.x];
  if (i < n) data[i] += add;
  if (i + THREADS < n) data[i + THREADS] += add;
}

// Scans d_in into d_out (both n long), recursing on the per-block sums.
static void scanRecursive(const unsigned *d_in, unsigned *d_out, int n) {
  int blocks = iDivUp(n, ELEMS_PER_BLOCK);
  if (blocks == 1) {
    prescanBlock<<<1, THREADS>>>(d_in, d_out, nullptr, n);
    getLastCudaError("prescanBlock (single)");
    return;
  }
  unsigned *d_sums, *d_sumsScanned;
  checkCudaErrors(cudaMalloc(&d_sums, blocks * sizeof(unsigned)));
  checkCudaErrors(cudaMalloc(&d_sumsScanned, blocks * sizeof(unsigned)));
  prescanBlock<<<blocks, THREADS>>>(d_in, d_out, d_sums, n);
  getLastCudaError("prescanBlock");
  scanRecursive(d_sums, d_sumsScanned, blocks);
  addBlockOffsets<<<blocks, THREADS>>>(d_out, d_sumsScanned, n);
  getLastCudaError("addBlockOffsets");
  checkCudaErrors(cudaFree(d_sums));
  checkCudaErrors(cudaFree(d_sumsScanned));
}

int main() {
  findCudaDevice();
  const int sizes[] = {1, 255, 256, 257, 100000, 1 << 20, 3000017};
  bool ok = true;
  for (int n : sizes) {
    std::vector<unsigned> h(n), result(n);
    for (int i = 0; i < n; ++i) h[i] = (i * 7919u) % 13u;
    unsigned *d_in, *d_out;
    checkCudaErrors(cudaMalloc(&d_in, n * sizeof(unsigned)));
    checkCudaErrors(cudaMalloc(&d_out, n * sizeof(unsigned)));
    checkCudaErrors(cudaMemcpy(d_in, h.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
    scanRecursive(d_in, d_out, n);
    checkCudaErrors(cudaMemcpy(result.data(), d_out, n * sizeof(unsigned), cudaMemcpyDeviceToHost));

    unsigned running = 0;
    int firstBad = -1;
    for (int i = 0; i < n; ++i) {
      if (result[i] != running && firstBad < 0) firstBad = i;
      running += h[i];
    }
    printf("n = %8d: %s", n, firstBad < 0 ? "ok\n" : "mismatch");
    if (firstBad >= 0) printf(" at %d\n", firstBad);
    ok = ok && firstBad < 0;
    checkCudaErrors(cudaFree(d_in));
    checkCudaErrors(cudaFree(d_out));
  }
  return reportResult("scan_blocks", ok);
}
