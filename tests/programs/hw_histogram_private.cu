// Homework 5: text histogram. Letters a-z are counted in NUM_BINS bins of
// BIN_WIDTH letters each, four ways: one global atomic per character, a
// privatized histogram per block in shared memory (merged with one atomic
// per bin), the same with thread coarsening over a grid-stride loop, and an
// aggregated version that merges runs of equal bins before updating.
// Timing with cudaEvent over NUM_REPS repetitions; CPU reference check.

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <vector>

#define NUM_BINS 7
#define BIN_WIDTH 4
#define BLOCK 256
#define COARSEN 8
#define NUM_REPS 10

#define gpuErrchk(ans)                                                       \
  { gpuAssert((ans), __FILE__, __LINE__); }
inline void gpuAssert(cudaError_t code, const char *file, int line,
                      bool abort = true) {
  if (code != cudaSuccess) {
    fprintf(stderr, "GPUassert: %s %s %d\n", cudaGetErrorString(code), file,
            line);
    if (abort) exit(code);
  }
}

__device__ __forceinline__ int binOf(unsigned char c) {
  int pos = c - 'a';
  return (pos >= 0 && pos < 26) ? pos / BIN_WIDTH : -1;
}

__global__ void histoGlobal(const unsigned char *data, unsigned int length,
                            unsigned int *histo) {
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < length) {
    int b = binOf(data[i]);
    if (b >= 0) atomicAdd(&histo[b], 1);
  }
}

__global__ void histoPrivate(const unsigned char *data, unsigned int length,
                             unsigned int *histo) {
  __shared__ unsigned int histo_s[NUM_BINS];
  for (unsigned int bin = threadIdx.x; bin < NUM_BINS; bin += blockDim.x)
    histo_s[bin] = 0u;
  __syncthreads();
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < length) {
    int b = binOf(data[i]);
    if (b >= 0) atomicAdd_block(&histo_s[b], 1u);
  }
  __syncthreads();
  for (unsigned int bin = threadIdx.x; bin < NUM_BINS; bin += blockDim.x) {
    unsigned int v = histo_s[bin];
    if (v > 0) atomicAdd(&histo[bin], v);
  }
}

// Coarsened: each thread walks the input with a grid stride. The block
// also counts how many of its threads saw no letter at all, via
// __syncthreads_count, into skipped[blockIdx.x].
__global__ void histoCoarse(const unsigned char *data, unsigned int length,
                            unsigned int *histo, int *skipped) {
  __shared__ unsigned int histo_s[NUM_BINS];
  for (unsigned int bin = threadIdx.x; bin < NUM_BINS; bin += blockDim.x)
    histo_s[bin] = 0u;
  __syncthreads();
  int seen = 0;
  for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < length;
       i += blockDim.x * gridDim.x) {
    int b = binOf(data[i]);
    if (b >= 0) {
      atomicAdd(&histo_s[b], 1u);
      seen++;
    }
  }
  int idle = __syncthreads_count(seen == 0);
  if (threadIdx.x == 0) skipped[blockIdx.x] = idle;
  for (unsigned int bin = threadIdx.x; bin < NUM_BINS; bin += blockDim.x) {
    unsigned int v = histo_s[bin];
    if (v > 0) atomicAdd(&histo[bin], v);
  }
}

// Aggregated: a thread reads COARSEN contiguous characters and keeps a run
// of the same bin in a register; it updates shared memory only when the
// bin changes.
__global__ void histoAggregate(const unsigned char *data, unsigned int length,
                               unsigned int *histo) {
  __shared__ unsigned int histo_s[NUM_BINS];
  if (threadIdx.x < NUM_BINS) histo_s[threadIdx.x] = 0u;
  __syncthreads();
  unsigned int accumulator = 0;
  int prevBin = -1;
  unsigned int tid = blockIdx.x * blockDim.x + threadIdx.x;
  for (unsigned int i = tid * COARSEN; i < min((tid + 1) * COARSEN, length);
       ++i) {
    int b = binOf(data[i]);
    if (b < 0) continue;
    if (b == prevBin) {
      ++accumulator;
    } else {
      if (accumulator > 0) atomicAdd(&histo_s[prevBin], accumulator);
      accumulator = 1;
      prevBin = b;
    }
  }
  if (accumulator > 0) atomicAdd(&histo_s[prevBin], accumulator);
  __syncthreads();
  if (threadIdx.x < NUM_BINS && histo_s[threadIdx.x] > 0)
    atomicAdd(&histo[threadIdx.x], histo_s[threadIdx.x]);
}

static void histoCpu(const unsigned char *data, unsigned int n,
                     std::vector<unsigned int> &h) {
  std::fill(h.begin(), h.end(), 0u);
  for (unsigned int i = 0; i < n; ++i) {
    int pos = data[i] - 'a';
    if (pos >= 0 && pos < 26) h[pos / BIN_WIDTH]++;
  }
}

int main(int argc, char **argv) {
  unsigned int length = argc > 1 ? (unsigned int)atoi(argv[1]) : (1u << 22);
  unsigned char *h_data;
  gpuErrchk(cudaHostAlloc((void **)&h_data, length, cudaHostAllocDefault));
  srand(2024);
  for (unsigned int i = 0; i < length; ++i)
    h_data[i] = (rand() % 5 == 0) ? ' ' : (unsigned char)('a' + rand() % 26);

  std::vector<unsigned int> ref(NUM_BINS), out(NUM_BINS);
  histoCpu(h_data, length, ref);

  unsigned char *d_data;
  unsigned int *d_histo;
  int *d_skipped;
  const int coarseBlocks = 120;
  gpuErrchk(cudaMalloc(&d_data, length));
  gpuErrchk(cudaMalloc(&d_histo, NUM_BINS * sizeof(unsigned int)));
  gpuErrchk(cudaMalloc(&d_skipped, coarseBlocks * sizeof(int)));
  gpuErrchk(cudaMemcpy(d_data, h_data, length, cudaMemcpyHostToDevice));

  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  const char *names[] = {"global", "private", "coarse", "aggregate"};
  unsigned int blocks = (length + BLOCK - 1) / BLOCK;
  unsigned int aggBlocks = (length + BLOCK * COARSEN - 1) / (BLOCK * COARSEN);
  int failures = 0;
  for (int version = 0; version < 4; ++version) {
    float total = 0.f;
    for (int rep = 0; rep < NUM_REPS; ++rep) {
      gpuErrchk(cudaMemsetAsync(d_histo, 0, NUM_BINS * sizeof(unsigned int)));
      cudaEventRecord(start);
      switch (version) {
      case 0: histoGlobal<<<blocks, BLOCK>>>(d_data, length, d_histo); break;
      case 1: histoPrivate<<<blocks, BLOCK>>>(d_data, length, d_histo); break;
      case 2:
        histoCoarse<<<coarseBlocks, BLOCK>>>(d_data, length, d_histo,
                                             d_skipped);
        break;
      default:
        histoAggregate<<<aggBlocks, BLOCK>>>(d_data, length, d_histo);
      }
      cudaEventRecord(stop);
      cudaEventSynchronize(stop);
      float ms = 0.f;
      cudaEventElapsedTime(&ms, start, stop);
      total += ms;
    }
    gpuErrchk(cudaGetLastError());
    gpuErrchk(cudaMemcpy(out.data(), d_histo, NUM_BINS * sizeof(unsigned int),
                         cudaMemcpyDeviceToHost));
    bool ok = std::equal(out.begin(), out.end(), ref.begin());
    failures += !ok;
    printf("%-10s %8.3f ms  %s\n", names[version], total / NUM_REPS,
           ok ? "PASS" : "FAIL");
  }
  unsigned int letters = std::accumulate(ref.begin(), ref.end(), 0u);
  printf("%u letters in %u characters\n", letters, length);

  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaFree(d_data);
  cudaFree(d_histo);
  cudaFree(d_skipped);
  cudaFreeHost(h_data);
  return failures ? EXIT_FAILURE : EXIT_SUCCESS;
}
