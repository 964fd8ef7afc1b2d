// Error checking and small host utilities shared by the sample-style
// programs of this corpus. Programs include it either as
// "common/helper_cuda.h" (relative to tests/programs/) or as <helper_cuda.h>
// with -I tests/programs/common on the command line.
#ifndef PROGRAMS_COMMON_HELPER_CUDA_H
#define PROGRAMS_COMMON_HELPER_CUDA_H

#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cuda_runtime.h>

#define checkCudaErrors(call) reportCudaError((call), #call, __FILE__, __LINE__)
#define getLastCudaError(msg) reportLastCudaError((msg), __FILE__, __LINE__)

// Exit code of a sample that cannot run here (no device), as opposed to failing.
constexpr int kExitWaived = 2;

inline void reportCudaError(cudaError_t status, const char *expr,
                            const char *file, int line) {
  if (status != cudaSuccess) {
    fprintf(stderr, "%s:%d: CUDA call '%s' failed: %s (%d)\n", file, line,
            expr, cudaGetErrorString(status), static_cast<int>(status));
    exit(EXIT_FAILURE);
  }
}

inline void reportLastCudaError(const char *msg, const char *file, int line) {
  cudaError_t status = cudaGetLastError();
  if (status != cudaSuccess) {
    fprintf(stderr, "%s:%d: %s: %s\n", file, line, msg,
            cudaGetErrorString(status));
    exit(EXIT_FAILURE);
  }
}

// Picks device 0 (or the one named by CUDA_DEVICE) and prints its name.
inline int findCudaDevice() {
  int count = 0;
  checkCudaErrors(cudaGetDeviceCount(&count));
  if (count == 0) {
    fprintf(stderr, "no CUDA device found\n");
    exit(kExitWaived);
  }
  int dev = 0;
  if (const char *env = getenv("CUDA_DEVICE")) {
    dev = atoi(env);
    if (dev < 0 || dev >= count) dev = 0;
  }
  cudaDeviceProp prop;
  checkCudaErrors(cudaGetDeviceProperties(&prop, dev));
  printf("Using device %d: %s (SM %d.%d, %d SMs)\n", dev, prop.name,
         prop.major, prop.minor, prop.multiProcessorCount);
  checkCudaErrors(cudaSetDevice(dev));
  return dev;
}

inline int iDivUp(int a, int b) { return (a + b - 1) / b; }

// Relative comparison used by the result checks: |a - b| <= tol * max(1, |b|).
inline bool nearlyEqual(float a, float b, float tol) {
  float scale = fabsf(b) > 1.0f ? fabsf(b) : 1.0f;
  return fabsf(a - b) <= tol * scale;
}

// Fills data with deterministic pseudo-random floats in [lo, hi).
inline void fillRandom(float *data, size_t n, unsigned seed, float lo = 0.0f,
                       float hi = 1.0f) {
  unsigned state = seed * 747796405u + 2891336453u;
  for (size_t i = 0; i < n; ++i) {
    state = state * 1664525u + 1013904223u;
    float unit = (state >> 8) * (1.0f / 16777216.0f);
    data[i] = lo + (hi - lo) * unit;
  }
}

// Prints the sample's verdict in the customary form and returns its exit code.
inline int reportResult(const char *name, bool ok) {
  printf("%s: %s\n", name, ok ? "PASSED" : "FAILED");
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}

#endif // PROGRAMS_COMMON_HELPER_CUDA_H
