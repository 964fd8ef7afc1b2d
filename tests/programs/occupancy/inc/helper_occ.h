// Host helpers for the occupancy sample: error checks, a device picker and
// an event timer. Plain C++ and CUDA runtime calls only; device code never
// sees anything here but the macros.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#ifndef OCC_QUIET
#define OCC_LOG(...) std::fprintf(stderr, __VA_ARGS__)
#else
#define OCC_LOG(...) ((void)0)
#endif

inline void occCheck(cudaError_t status, const char *what, const char *file, int line) {
  if (status != cudaSuccess) {
    OCC_LOG("%s:%d: %s failed: %s\n", file, line, what, cudaGetErrorString(status));
    std::exit(EXIT_FAILURE);
  }
}

#define checkCudaErrors(call) occCheck((call), #call, __FILE__, __LINE__)
#define getLastCudaError(msg) occCheck(cudaGetLastError(), (msg), __FILE__, __LINE__)

// Picks the device with the most multiprocessors unless `-device=N` is given.
inline int pickCudaDevice(int argc, char **argv) {
  int count = 0;
  checkCudaErrors(cudaGetDeviceCount(&count));
  int chosen = 0, bestSms = -1;
  for (int i = 1; i < argc; ++i) {
    if (std::sscanf(argv[i], "-device=%d", &chosen) == 1) {
      checkCudaErrors(cudaSetDevice(chosen));
      return chosen;
    }
  }
  for (int d = 0; d < count; ++d) {
    int sms = 0;
    checkCudaErrors(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, d));
    if (sms > bestSms) {
      bestSms = sms;
      chosen = d;
    }
  }
  checkCudaErrors(cudaSetDevice(chosen));
  return chosen;
}

class EventTimer {
 public:
  EventTimer() {
    checkCudaErrors(cudaEventCreate(&start_));
    checkCudaErrors(cudaEventCreate(&stop_));
  }
  ~EventTimer() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  EventTimer(const EventTimer &) = delete;
  EventTimer &operator=(const EventTimer &) = delete;
  void begin(cudaStream_t s = 0) { checkCudaErrors(cudaEventRecord(start_, s)); }
  float end(cudaStream_t s = 0) {
    float ms = 0.0f;
    checkCudaErrors(cudaEventRecord(stop_, s));
    checkCudaErrors(cudaEventSynchronize(stop_));
    checkCudaErrors(cudaEventElapsedTime(&ms, start_, stop_));
    return ms;
  }

 private:
  cudaEvent_t start_, stop_;
};
