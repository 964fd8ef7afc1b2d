// Splits a histogram-and-moments job across every visible GPU, one host
// thread per device. The data lives in CUDA-managed memory owned by host
// classes (a `Managed` base whose operator new calls cudaMallocManaged, as
// the unified-memory samples do); the host side uses <thread>, <chrono>,
// <random> and <map>.
//
// nvcc-flags: -std=c++17

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <cuda_runtime.h>

#define CUDA_OK(expr)                                                       \
  do {                                                                      \
    cudaError_t e_ = (expr);                                                \
    if (e_ != cudaSuccess) {                                                \
      std::fprintf(stderr, "%s failed: %s\n", #expr, cudaGetErrorString(e_)); \
      std::exit(1);                                                         \
    }                                                                       \
  } while (0)

#define BINS 64

// Objects of classes derived from Managed live in unified memory.
class Managed {
 public:
  void *operator new(size_t len) {
    void *ptr = nullptr;
    CUDA_OK(cudaMallocManaged(&ptr, len));
    CUDA_OK(cudaDeviceSynchronize());
    return ptr;
  }
  void operator delete(void *ptr) {
    CUDA_OK(cudaDeviceSynchronize());
    cudaFree(ptr);
  }
};

// What each device computes for its share: a histogram and raw moments.
struct Moments {
  unsigned int histogram[BINS];
  double sum;
  double sumSquares;
  unsigned long long count;
};

class Shard : public Managed {
 public:
  Shard(int device, size_t n) : device_(device), n_(n) {
    CUDA_OK(cudaMallocManaged(&values_, n * sizeof(float)));
    stats_ = new Stats;
  }
  ~Shard() {
    cudaFree(values_);
    delete stats_;
  }
  struct Stats : Managed {
    Moments m;
  };
  int device_;
  size_t n_;
  float *values_;
  Stats *stats_;
};

// Launches since program start, over all devices (each device has its own
// copy of a __managed__ variable's page, so this only counts per process).
__managed__ int g_launches = 0;

__device__ int binOf(float v, float lo, float hi) {
  int b = (int)((v - lo) / (hi - lo) * BINS);
  return min(max(b, 0), BINS - 1);
}

__global__ void shardMoments(const float *values, size_t n, float lo, float hi,
                             Moments *out) {
  __shared__ unsigned int localHist[BINS];
  for (int b = threadIdx.x; b < BINS; b += blockDim.x) localHist[b] = 0;
  __syncthreads();
  double sum = 0.0, sq = 0.0;
  unsigned long long count = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x) {
    float v = values[i];
    atomicAdd(&localHist[binOf(v, lo, hi)], 1u);
    sum += v;
    sq += (double)v * v;
    ++count;
  }
  atomicAdd(&out->sum, sum);
  atomicAdd(&out->sumSquares, sq);
  atomicAdd(&out->count, count);
  __syncthreads();
  for (int b = threadIdx.x; b < BINS; b += blockDim.x)
    atomicAdd(&out->histogram[b], localHist[b]);
  if (blockIdx.x == 0 && threadIdx.x == 0) atomicAdd(&g_launches, 1);
}

static void runShard(Shard *shard, std::mutex *logLock,
                     std::map<int, double> *millis) {
  auto t0 = std::chrono::steady_clock::now();
  CUDA_OK(cudaSetDevice(shard->device_));
  std::memset(&shard->stats_->m, 0, sizeof(Moments));
  shardMoments<<<32, 256>>>(shard->values_, shard->n_, -4.0f, 4.0f,
                            &shard->stats_->m);
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaDeviceSynchronize());
  auto t1 = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> guard(*logLock);
  (*millis)[shard->device_] =
      std::chrono::duration<double, std::milli>(t1 - t0).count();
}

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no CUDA device; waived\n");
    return 2;
  }
  const size_t total = 1 << 20;
  const size_t perDevice = (total + devices - 1) / devices;
  std::mt19937 rng(20261130u);
  std::normal_distribution<float> gauss(0.0f, 1.0f);

  std::vector<Shard *> shards;
  for (int d = 0; d < devices; ++d) {
    CUDA_OK(cudaSetDevice(d));
    size_t n = std::min(perDevice, total - d * perDevice);
    Shard *s = new Shard(d, n);
    for (size_t i = 0; i < n; ++i) s->values_[i] = gauss(rng);
    shards.push_back(s);
  }

  std::mutex logLock;
  std::map<int, double> millis;
  std::vector<std::thread> workers;
  for (Shard *s : shards) workers.emplace_back(runShard, s, &logLock, &millis);
  for (auto &w : workers) w.join();

  Moments all = {};
  for (Shard *s : shards) {
    for (int b = 0; b < BINS; ++b) all.histogram[b] += s->stats_->m.histogram[b];
    all.sum += s->stats_->m.sum;
    all.sumSquares += s->stats_->m.sumSquares;
    all.count += s->stats_->m.count;
  }
  double mean = all.sum / all.count;
  double var = all.sumSquares / all.count - mean * mean;
  for (const auto &kv : millis)
    std::printf("device %d: %.2f ms\n", kv.first, kv.second);
  std::printf("n=%llu mean=%.4f var=%.4f launches=%d\n", all.count, mean, var,
              g_launches);
  for (Shard *s : shards) delete s;
  bool ok = all.count == total && std::fabs(mean) < 0.01 && std::fabs(var - 1.0) < 0.02;
  std::printf("%s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
