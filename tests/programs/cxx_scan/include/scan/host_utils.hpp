// Host-side helpers of the scan program: error checking and a scoped timer.
#pragma once

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <cuda_runtime.h>

#define SCAN_CHECK(expr) ::scan::check((expr), #expr, __FILE__, __LINE__)

namespace scan {

inline void check(cudaError_t status, const char *what, const char *file, int line) {
  if (status != cudaSuccess) {
    std::fprintf(stderr, "%s:%d: %s failed: %s\n", file, line, what, cudaGetErrorString(status));
    std::exit(EXIT_FAILURE);
  }
}

class ScopedTimer {
 public:
  explicit ScopedTimer(std::string label) : label_(std::move(label)), start_(Clock::now()) {}
  ~ScopedTimer() {
    auto us = std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start_).count();
    std::printf("%s: %lld us\n", label_.c_str(), static_cast<long long>(us));
  }

 private:
  using Clock = std::chrono::steady_clock;
  std::string label_;
  Clock::time_point start_;
};

} // namespace scan
