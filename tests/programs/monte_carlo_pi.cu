// Estimates pi with cuRAND's device API: each thread owns a
// curandStatePhilox4_32_10_t initialised with its own subsequence, draws
// points in the unit square, and the hits are counted per block with a
// shared-memory reduction and one global atomicAdd per block.
//
// nvcc-flags: -I tests/programs/common

#include <cstdio>
#include <cstdlib>
#include <cmath>

#include <cuda_runtime.h>
#include <curand_kernel.h>
#include <helper_cuda.h>

#define THREADS_PER_BLOCK 256

__global__ void setupStates(curandStatePhilox4_32_10_t *states, unsigned long long seed) {
  int id = blockIdx.x * blockDim.x + threadIdx.x;
  curand_init(seed, id, 0, &states[id]);
}

__global__ void countHits(curandStatePhilox4_32_10_t *states, int samplesPerThread,
                          unsigned long long *hits) {
  __shared__ unsigned int blockHits[THREADS_PER_BLOCK];
  int id = blockIdx.x * blockDim.x + threadIdx.x;
  curandStatePhilox4_32_10_t local = states[id];

  unsigned int inside = 0;
  for (int s = 0; s < samplesPerThread; s += 2) {
    float4 r = curand_uniform4(&local);
    if (r.x * r.x + r.y * r.y <= 1.0f) ++inside;
    if (r.z * r.z + r.w * r.w <= 1.0f) ++inside;
  }
  states[id] = local; // keep the stream going for a later launch

  blockHits[threadIdx.x] = inside;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (threadIdx.x < stride) blockHits[threadIdx.x] += blockHits[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(hits, (unsigned long long)blockHits[0]);
}

// A second estimator using the XORWOW generator and curand_uniform, to
// exercise the default state type too.
__global__ void countHitsXorwow(unsigned long long seed, int samplesPerThread,
                                unsigned long long *hits) {
  int id = blockIdx.x * blockDim.x + threadIdx.x;
  curandState state;
  curand_init(seed, id, 0, &state);
  unsigned int inside = 0;
  for (int s = 0; s < samplesPerThread; ++s) {
    float x = curand_uniform(&state);
    float y = curand_uniform(&state);
    inside += (x * x + y * y <= 1.0f);
  }
  atomicAdd(hits, (unsigned long long)inside);
}

int main() {
  const int blocks = 120;
  const int samplesPerThread = 4096;
  const int threadsTotal = blocks * THREADS_PER_BLOCK;
  findCudaDevice();

  curandStatePhilox4_32_10_t *dStates;
  unsigned long long *dHits;
  checkCudaErrors(cudaMalloc(&dStates, threadsTotal * sizeof(*dStates)));
  checkCudaErrors(cudaMalloc(&dHits, 2 * sizeof(unsigned long long)));
  checkCudaErrors(cudaMemset(dHits, 0, 2 * sizeof(unsigned long long)));

  setupStates<<<blocks, THREADS_PER_BLOCK>>>(dStates, 20240611ull);
  getLastCudaError("setupStates");
  countHits<<<blocks, THREADS_PER_BLOCK>>>(dStates, samplesPerThread, dHits);
  getLastCudaError("countHits");
  countHitsXorwow<<<blocks, THREADS_PER_BLOCK>>>(777ull, samplesPerThread / 4, dHits + 1);
  getLastCudaError("countHitsXorwow");

  unsigned long long hHits[2];
  checkCudaErrors(cudaMemcpy(hHits, dHits, sizeof(hHits), cudaMemcpyDeviceToHost));
  double samples0 = (double)threadsTotal * samplesPerThread;
  double samples1 = (double)threadsTotal * (samplesPerThread / 4);
  double pi0 = 4.0 * hHits[0] / samples0;
  double pi1 = 4.0 * hHits[1] / samples1;
  printf("Philox estimate: %.6f (%.0f samples)\n", pi0, samples0);
  printf("XORWOW estimate: %.6f (%.0f samples)\n", pi1, samples1);

  // Standard error of the estimate is about 1.64 / sqrt(samples).
  bool ok = fabs(pi0 - M_PI) < 6 * 1.64 / sqrt(samples0) &&
            fabs(pi1 - M_PI) < 6 * 1.64 / sqrt(samples1);
  checkCudaErrors(cudaFree(dStates));
  checkCudaErrors(cudaFree(dHits));
  return reportResult("monte_carlo_pi", ok);
}
