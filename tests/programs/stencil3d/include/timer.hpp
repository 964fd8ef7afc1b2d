// Scoped CUDA-event timer: prints the time between construction and
// destruction under a label.
#pragma once

#include <cstdio>
#include <cuda_runtime.h>

class GpuTimer {
public:
  explicit GpuTimer(const char *label) : label_(label) {
    cudaEventCreate(&start_);
    cudaEventCreate(&stop_);
    cudaEventRecord(start_);
  }
  GpuTimer(const GpuTimer &) = delete;
  GpuTimer &operator=(const GpuTimer &) = delete;
  ~GpuTimer() {
    cudaEventRecord(stop_);
    cudaEventSynchronize(stop_);
    float ms = 0.0f;
    cudaEventElapsedTime(&ms, start_, stop_);
    std::printf("%s: %.3f ms\n", label_, ms);
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }

private:
  const char *label_;
  cudaEvent_t start_, stop_;
};
