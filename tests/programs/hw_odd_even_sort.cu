// HW: odd-even transposition sort of a small array inside one block, plus
// a global-memory version that needs one launch per phase. Both print a
// few values from the device with printf when DEBUG_SORT is defined.

#include <cstdio>
#include <cstdlib>
#include <cassert>

#define N 1000
#define THREADS 512

#define SAFE_CALL(call)                                                        \
  do {                                                                         \
    cudaError_t err = (call);                                                  \
    if (err != cudaSuccess) {                                                  \
      fprintf(stderr, "CUDA error in %s: %s\n", #call, cudaGetErrorString(err)); \
      exit(EXIT_FAILURE);                                                      \
    }                                                                          \
  } while (0)

// Single block: the array lives in shared memory for all N phases.
__global__ void oddEvenSortBlock(int *data, int n) {
  __shared__ int s[N];
  for (int i = threadIdx.x; i < n; i += blockDim.x) s[i] = data[i];
  __syncthreads();
  for (int phase = 0; phase < n; phase++) {
    int start = phase & 1;
    for (int i = start + 2 * threadIdx.x; i + 1 < n; i += 2 * blockDim.x) {
      if (s[i] > s[i + 1]) {
        int t = s[i];
        s[i] = s[i + 1];
        s[i + 1] = t;
      }
    }
    __syncthreads();
#ifdef DEBUG_SORT
    if (threadIdx.x == 0 && phase % 250 == 0) printf("phase %d: s[0] = %d\n", phase, s[0]);
#endif
  }
  for (int i = threadIdx.x; i < n; i += blockDim.x) data[i] = s[i];
}

// One phase over global memory; the host loops over phases.
__global__ void oddEvenPhase(int *data, int n, int phase) {
  int i = 2 * (blockIdx.x * blockDim.x + threadIdx.x) + (phase & 1);
  if (i + 1 < n && data[i] > data[i + 1]) {
    int t = data[i];
    data[i] = data[i + 1];
    data[i + 1] = t;
  }
#ifdef DEBUG_SORT
  if (i == 0 && phase == n - 1) printf("last phase done, data[0] = %d\n", data[0]);
#endif
}

int isSorted(const int *a, int n) {
  for (int i = 1; i < n; i++)
    if (a[i - 1] > a[i]) return 0;
  return 1;
}

int main() {
  int h[N], out[N];
  long long sumIn = 0, sumOut;
  srand(42);
  for (int i = 0; i < N; i++) {
    h[i] = rand() % 10000 - 5000;
    sumIn += h[i];
  }
  int *d;
  SAFE_CALL(cudaMalloc(&d, N * sizeof(int)));

  // version 1
  SAFE_CALL(cudaMemcpy(d, h, sizeof(h), cudaMemcpyHostToDevice));
  oddEvenSortBlock<<<1, THREADS>>>(d, N);
  SAFE_CALL(cudaGetLastError());
  SAFE_CALL(cudaMemcpy(out, d, sizeof(out), cudaMemcpyDeviceToHost));
  sumOut = 0;
  for (int i = 0; i < N; i++) sumOut += out[i];
  int ok1 = isSorted(out, N) && sumOut == sumIn;
  printf("block sort: %s\n", ok1 ? "sorted" : "NOT sorted");

  // version 2
  SAFE_CALL(cudaMemcpy(d, h, sizeof(h), cudaMemcpyHostToDevice));
  int pairs = N / 2;
  int blocks = (pairs + 127) / 128;
  for (int phase = 0; phase < N; phase++) oddEvenPhase<<<blocks, 128>>>(d, N, phase);
  SAFE_CALL(cudaGetLastError());
  SAFE_CALL(cudaMemcpy(out, d, sizeof(out), cudaMemcpyDeviceToHost));
  sumOut = 0;
  for (int i = 0; i < N; i++) sumOut += out[i];
  int ok2 = isSorted(out, N) && sumOut == sumIn;
  printf("phase sort: %s\n", ok2 ? "sorted" : "NOT sorted");

  assert(N % 2 == 0);
  SAFE_CALL(cudaFree(d));
  return ok1 && ok2 ? 0 : 1;
}
