// A small pipeline (normalize, scale-and-shift, clamp, sum) captured once
// into a CUDA graph and replayed, written the way modern C++ host code
// wraps the runtime: RAII device buffers behind std::unique_ptr with a
// custom deleter, a stream class, stages kept as std::function objects
// built from lambdas, <chrono> timing and iostream output. Device side:
// a __device__ counter of replays, a __managed__ checksum, printf and
// assert behind a debug macro.
//
// nvcc-flags: -std=c++17

#include <cassert>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <iostream>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#ifndef PIPELINE_DEBUG
#define PIPELINE_DEBUG 0
#endif

#define CUDA_TRY(expr)                                                               \
  do {                                                                               \
    cudaError_t err_ = (expr);                                                       \
    if (err_ != cudaSuccess)                                                         \
      throw std::runtime_error(std::string(#expr " -> ") + cudaGetErrorString(err_)); \
  } while (0)

__device__ unsigned int g_replays = 0;
__managed__ double m_checksum = 0.0;

__global__ void normalizeKernel(float *x, int n, float mean, float invStd) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = (x[i] - mean) * invStd;
}

__global__ void affineKernel(float *x, int n, float scale, float shift) {
  int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) x[i] = fmaf(x[i], scale, shift);
}

__global__ void clampKernel(float *x, int n, float lo, float hi) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
#if PIPELINE_DEBUG
  if (isnan(v)) printf("clampKernel: NaN at %d\n", i);
  assert(!isnan(v));
#endif
  x[i] = fminf(fmaxf(v, lo), hi);
}

// One block sums a strided slice in shared memory; block 0 counts replays.
__global__ void sumKernel(const float *x, int n, double *partial) {
  __shared__ double cache[256];
  double acc = 0.0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) acc += x[i];
  cache[threadIdx.x] = acc;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) cache[threadIdx.x] += cache[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    partial[blockIdx.x] = cache[0];
    atomicAdd(&m_checksum, cache[0]);
    if (blockIdx.x == 0) atomicAdd(&g_replays, 1u);
  }
}

namespace {

struct DeviceDeleter {
  void operator()(void *p) const { cudaFree(p); }
};

template <typename T>
using DevicePtr = std::unique_ptr<T[], DeviceDeleter>;

template <typename T>
DevicePtr<T> deviceAlloc(size_t n) {
  void *p = nullptr;
  CUDA_TRY(cudaMalloc(&p, n * sizeof(T)));
  return DevicePtr<T>(static_cast<T *>(p));
}

class Stream {
 public:
  Stream() { CUDA_TRY(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  ~Stream() { cudaStreamDestroy(s_); }
  Stream(const Stream &) = delete;
  operator cudaStream_t() const { return s_; }

 private:
  cudaStream_t s_{};
};

class Graph {
 public:
  explicit Graph(cudaStream_t s, const std::vector<std::function<void(cudaStream_t)>> &stages) {
    CUDA_TRY(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    for (const auto &stage : stages) stage(s);
    CUDA_TRY(cudaStreamEndCapture(s, &graph_));
    CUDA_TRY(cudaGraphInstantiate(&exec_, graph_, 0));
  }
  ~Graph() {
    cudaGraphExecDestroy(exec_);
    cudaGraphDestroy(graph_);
  }
  void launch(cudaStream_t s) { CUDA_TRY(cudaGraphLaunch(exec_, s)); }

 private:
  cudaGraph_t graph_{};
  cudaGraphExec_t exec_{};
};

constexpr int kThreads = 256;
constexpr int kSumBlocks = 32;

}  // namespace

int main() try {
  const int n = 1 << 18;
  const int replays = 5;
  std::vector<float> host(n);
  for (int i = 0; i < n; ++i) host[i] = float((i * 7919) % 1000) * 0.01f;
  const double mean = std::accumulate(host.begin(), host.end(), 0.0) / n;
  double var = 0.0;
  for (float v : host) var += (v - mean) * (v - mean);
  const float invStd = float(1.0 / std::sqrt(var / n));

  auto data = deviceAlloc<float>(n);
  auto partial = deviceAlloc<double>(kSumBlocks);
  Stream stream;
  const int blocks = (n + kThreads - 1) / kThreads;
  std::vector<std::function<void(cudaStream_t)>> stages = {
      [&](cudaStream_t s) { normalizeKernel<<<blocks, kThreads, 0, s>>>(data.get(), n, float(mean), invStd); },
      [&](cudaStream_t s) { affineKernel<<<64, kThreads, 0, s>>>(data.get(), n, 0.5f, 0.25f); },
      [&](cudaStream_t s) { clampKernel<<<blocks, kThreads, 0, s>>>(data.get(), n, -0.5f, 0.75f); },
      [&](cudaStream_t s) { sumKernel<<<kSumBlocks, kThreads, 0, s>>>(data.get(), n, partial.get()); },
  };

  // The expected values, computed once on the host in double.
  double expected = 0.0;
  for (float v : host) {
    float x = (v - float(mean)) * invStd;
    x = std::fmaf(x, 0.5f, 0.25f);
    expected += std::fmin(std::fmax(x, -0.5f), 0.75f);
  }

  Graph graph(stream, stages);
  m_checksum = 0.0;
  auto t0 = std::chrono::steady_clock::now();
  for (int r = 0; r < replays; ++r) {
    CUDA_TRY(cudaMemcpyAsync(data.get(), host.data(), n * sizeof(float), cudaMemcpyHostToDevice, stream));
    graph.launch(stream);
  }
  CUDA_TRY(cudaStreamSynchronize(stream));
  auto t1 = std::chrono::steady_clock::now();

  unsigned int counted = 0;
  CUDA_TRY(cudaMemcpyFromSymbol(&counted, g_replays, sizeof(counted)));
  std::vector<double> sums(kSumBlocks);
  CUDA_TRY(cudaMemcpy(sums.data(), partial.get(), sizeof(double) * kSumBlocks, cudaMemcpyDeviceToHost));
  const double last = std::accumulate(sums.begin(), sums.end(), 0.0);

  std::cout << "replays " << counted << ", last sum " << last << ", expected " << expected << ", "
            << std::chrono::duration<double, std::milli>(t1 - t0).count() << " ms\n";
  const bool ok = counted == unsigned(replays) && std::fabs(last - expected) < 1e-3 * n &&
                  std::fabs(m_checksum - replays * expected) < 1e-3 * n * replays;
  std::cout << (ok ? "PASSED" : "FAILED") << std::endl;
  return ok ? 0 : 1;
} catch (const std::exception &e) {
  std::cerr << "error: " << e.what() << '\n';
  return 2;
}
