// GPU half of the k-means program: the kernels, and C-callable wrappers
// that own the device buffers. The centroids of the current iteration are
// kept in __constant__ memory (read by every thread at the same address).

#include <cstdio>
#include <cstdlib>
#include <cfloat>

#include <cuda_runtime.h>

#include "kmeans.h"

#define MAX_CENTROID_FLOATS 4096
#define THREADS 256

#define KM_CHECK(call)                                                            \
  do {                                                                            \
    cudaError_t e = (call);                                                       \
    if (e != cudaSuccess) {                                                       \
      fprintf(stderr, "kmeans: %s at %s:%d\n", cudaGetErrorString(e), __FILE__, __LINE__); \
      exit(1);                                                                    \
    }                                                                             \
  } while (0)

__constant__ float c_centroids[MAX_CENTROID_FLOATS];

__global__ void assignClusters(const float *__restrict__ features, int *__restrict__ membership,
                               int *__restrict__ changed, int numPoints, int numFeatures,
                               int numClusters) {
  int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= numPoints) return;
  int best = 0;
  float bestDist = FLT_MAX;
  for (int c = 0; c < numClusters; ++c) {
    float d = 0.0f;
    for (int f = 0; f < numFeatures; ++f) {
      float diff = features[f * numPoints + p] - c_centroids[c * numFeatures + f];
      d += diff * diff;
    }
    if (d < bestDist) {
      bestDist = d;
      best = c;
    }
  }
  if (membership[p] != best) {
    membership[p] = best;
    atomicAdd(changed, 1);
  }
}

// Sums features per cluster: shared-memory accumulators per block (the
// clusters x features sums fit), flushed with global atomics.
__global__ void accumulateCentroids(const float *__restrict__ features,
                                    const int *__restrict__ membership, float *sums, int *counts,
                                    int numPoints, int numFeatures, int numClusters) {
  extern __shared__ float shared[];
  float *sSums = shared;
  int *sCounts = reinterpret_cast<int *>(shared + numClusters * numFeatures);
  for (int i = threadIdx.x; i < numClusters * numFeatures; i += blockDim.x) sSums[i] = 0.0f;
  for (int i = threadIdx.x; i < numClusters; i += blockDim.x) sCounts[i] = 0;
  __syncthreads();

  for (int p = blockIdx.x * blockDim.x + threadIdx.x; p < numPoints; p += gridDim.x * blockDim.x) {
    int c = membership[p];
    atomicAdd(&sCounts[c], 1);
    for (int f = 0; f < numFeatures; ++f) atomicAdd(&sSums[c * numFeatures + f], features[f * numPoints + p]);
  }
  __syncthreads();

  for (int i = threadIdx.x; i < numClusters * numFeatures; i += blockDim.x) atomicAdd(&sums[i], sSums[i]);
  for (int i = threadIdx.x; i < numClusters; i += blockDim.x) atomicAdd(&counts[i], sCounts[i]);
}

struct DeviceState {
  KmeansProblem problem;
  float *features;
  int *membership;
  int *changed;
  float *sums;
  int *counts;
};

extern "C" void *kmeansDeviceCreate(const KmeansProblem *problem, const float *featuresTransposed) {
  if (problem->numClusters * problem->numFeatures > MAX_CENTROID_FLOATS) {
    fprintf(stderr, "kmeans: too many centroid values for constant memory\n");
    return nullptr;
  }
  DeviceState *s = new DeviceState;
  s->problem = *problem;
  size_t n = (size_t)problem->numPoints * problem->numFeatures;
  KM_CHECK(cudaMalloc(&s->features, n * sizeof(float)));
  KM_CHECK(cudaMalloc(&s->membership, problem->numPoints * sizeof(int)));
  KM_CHECK(cudaMalloc(&s->changed, sizeof(int)));
  KM_CHECK(cudaMalloc(&s->sums, problem->numClusters * problem->numFeatures * sizeof(float)));
  KM_CHECK(cudaMalloc(&s->counts, problem->numClusters * sizeof(int)));
  KM_CHECK(cudaMemcpy(s->features, featuresTransposed, n * sizeof(float), cudaMemcpyHostToDevice));
  KM_CHECK(cudaMemset(s->membership, 0xff, problem->numPoints * sizeof(int))); // all -1
  return s;
}

extern "C" int kmeansDeviceIterate(void *state, float *centroids) {
  DeviceState *s = static_cast<DeviceState *>(state);
  const KmeansProblem &p = s->problem;
  const int kf = p.numClusters * p.numFeatures;
  KM_CHECK(cudaMemcpyToSymbol(c_centroids, centroids, kf * sizeof(float)));
  KM_CHECK(cudaMemset(s->changed, 0, sizeof(int)));
  KM_CHECK(cudaMemset(s->sums, 0, kf * sizeof(float)));
  KM_CHECK(cudaMemset(s->counts, 0, p.numClusters * sizeof(int)));

  int blocks = (p.numPoints + THREADS - 1) / THREADS;
  assignClusters<<<blocks, THREADS>>>(s->features, s->membership, s->changed, p.numPoints,
                                      p.numFeatures, p.numClusters);
  size_t smem = kf * sizeof(float) + p.numClusters * sizeof(int);
  accumulateCentroids<<<120, THREADS, smem>>>(s->features, s->membership, s->sums, s->counts,
                                              p.numPoints, p.numFeatures, p.numClusters);
  KM_CHECK(cudaGetLastError());

  int changed;
  float *sums = new float[kf];
  int *counts = new int[p.numClusters];
  KM_CHECK(cudaMemcpy(&changed, s->changed, sizeof(int), cudaMemcpyDeviceToHost));
  KM_CHECK(cudaMemcpy(sums, s->sums, kf * sizeof(float), cudaMemcpyDeviceToHost));
  KM_CHECK(cudaMemcpy(counts, s->counts, p.numClusters * sizeof(int), cudaMemcpyDeviceToHost));
  for (int c = 0; c < p.numClusters; ++c)
    if (counts[c] > 0) // an empty cluster keeps its centroid
      for (int f = 0; f < p.numFeatures; ++f) centroids[c * p.numFeatures + f] = sums[c * p.numFeatures + f] / counts[c];
  delete[] sums;
  delete[] counts;
  return changed;
}

extern "C" void kmeansDeviceMembership(void *state, int *membership) {
  DeviceState *s = static_cast<DeviceState *>(state);
  KM_CHECK(cudaMemcpy(membership, s->membership, s->problem.numPoints * sizeof(int),
                      cudaMemcpyDeviceToHost));
}

extern "C" void kmeansDeviceDestroy(void *state) {
  DeviceState *s = static_cast<DeviceState *>(state);
  cudaFree(s->features);
  cudaFree(s->membership);
  cudaFree(s->changed);
  cudaFree(s->sums);
  cudaFree(s->counts);
  delete s;
}
