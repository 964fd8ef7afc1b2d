// Thrust on the host beside hand-written kernels: thrust sorts keys and
// reduces on the device through its own generated kernels, while the
// program's kernels normalize the data and mark run boundaries in the
// sorted keys. nvcc's PTX holds thrust's kernels too, so this program
// measures whether a compiler can produce them.
//
// nvcc-flags: -I tests/programs/common

#include <cstdio>
#include <cstdlib>

#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/reduce.h>
#include <thrust/sort.h>

#include <cuda_runtime.h>
#include <helper_cuda.h>

__global__ void normalize(float *v, float mean, float invStd, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = (v[i] - mean) * invStd;
}

// flags[i] = 1 where a new run of equal keys starts.
__global__ void markRunStarts(const int *keys, int *flags, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) flags[i] = (i == 0 || keys[i] != keys[i - 1]) ? 1 : 0;
}

int main() {
  const int n = 1 << 12;
  thrust::host_vector<int> hKeys(n);
  thrust::host_vector<float> hVals(n);
  for (int i = 0; i < n; ++i) {
    hKeys[i] = (i * 7919) % 97;
    hVals[i] = (float)((i * 31) % 50);
  }
  thrust::device_vector<int> keys = hKeys;
  thrust::device_vector<float> vals = hVals;
  thrust::device_vector<int> flags(n);

  float sum = thrust::reduce(vals.begin(), vals.end(), 0.0f);
  float mean = sum / n;
  normalize<<<(n + 255) / 256, 256>>>(thrust::raw_pointer_cast(vals.data()),
                                      mean, 1.0f / 16.0f, n);
  getLastCudaError("normalize");
  thrust::sort(keys.begin(), keys.end());
  markRunStarts<<<(n + 255) / 256, 256>>>(thrust::raw_pointer_cast(keys.data()),
                                          thrust::raw_pointer_cast(flags.data()), n);
  getLastCudaError("markRunStarts");
  int runs = thrust::reduce(flags.begin(), flags.end());
  printf("distinct keys: %d (want 97), mean %.3f\n", runs, mean);
  return runs == 97 ? EXIT_SUCCESS : EXIT_FAILURE;
}
