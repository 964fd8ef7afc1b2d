// Type-generic statistics kernels driven by traits: a class template
// AccumulatorTraits<T> with specializations choosing the accumulation type
// (int -> long long, __half -> float, float -> double...), std::is_same and
// if constexpr inside device code, static_assert on the traits, SFINAE via
// std::enable_if for the host-side formatting, and explicit instantiations
// of the kernel template.

#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#define CHECK_CUDA(call)                                                               \
  do {                                                                                 \
    cudaError_t e_ = (call);                                                           \
    if (e_ != cudaSuccess) {                                                           \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      std::exit(EXIT_FAILURE);                                                         \
    }                                                                                  \
  } while (0)

template <typename T>
struct AccumulatorTraits; // no default: unsupported types fail to compile

template <>
struct AccumulatorTraits<int> {
  using Acc = long long;
  static constexpr bool exact = true;
  static constexpr const char *name = "int";
};
template <>
struct AccumulatorTraits<float> {
  using Acc = double;
  static constexpr bool exact = false;
  static constexpr const char *name = "float";
};
template <>
struct AccumulatorTraits<double> {
  using Acc = double;
  static constexpr bool exact = false;
  static constexpr const char *name = "double";
};
template <>
struct AccumulatorTraits<__half> {
  using Acc = float;
  static constexpr bool exact = false;
  static constexpr const char *name = "half";
};

template <typename T>
using AccOf = typename AccumulatorTraits<T>::Acc;

static_assert(std::is_same<AccOf<int>, long long>::value, "ints accumulate in 64 bits");
static_assert(sizeof(AccOf<__half>) > sizeof(__half), "halves accumulate wider");
static_assert(!AccumulatorTraits<float>::exact, "float sums are rounded");

template <typename T>
__device__ inline AccOf<T> widen(T v) {
  if constexpr (std::is_same<T, __half>::value) {
    return __half2float(v);
  } else {
    return static_cast<AccOf<T>>(v);
  }
}

template <typename T>
struct Stats {
  AccOf<T> sum;
  AccOf<T> sumSquares;
  unsigned long long count;
};

template <typename T>
__device__ inline void atomicAccumulate(AccOf<T> *address, AccOf<T> value) {
  if constexpr (std::is_same<AccOf<T>, long long>::value) {
    atomicAdd(reinterpret_cast<unsigned long long *>(address), static_cast<unsigned long long>(value));
  } else {
    atomicAdd(address, value);
  }
}

template <typename T, int BLOCK>
__global__ void gatherStats(const T *__restrict__ data, int n, Stats<T> *stats) {
  using Acc = AccOf<T>;
  __shared__ Acc sSum[BLOCK], sSq[BLOCK];
  __shared__ unsigned sCount[BLOCK];
  Acc sum = 0, sq = 0;
  unsigned count = 0;
  for (int i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += gridDim.x * BLOCK) {
    Acc v = widen(data[i]);
    sum += v;
    sq += v * v;
    ++count;
  }
  sSum[threadIdx.x] = sum;
  sSq[threadIdx.x] = sq;
  sCount[threadIdx.x] = count;
  __syncthreads();
  for (int s = BLOCK / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) {
      sSum[threadIdx.x] += sSum[threadIdx.x + s];
      sSq[threadIdx.x] += sSq[threadIdx.x + s];
      sCount[threadIdx.x] += sCount[threadIdx.x + s];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    atomicAccumulate<T>(&stats->sum, sSum[0]);
    atomicAccumulate<T>(&stats->sumSquares, sSq[0]);
    atomicAdd(&stats->count, static_cast<unsigned long long>(sCount[0]));
  }
}

// Explicit instantiations, as a library exporting these kernels would have.
template __global__ void gatherStats<int, 256>(const int *, int, Stats<int> *);
template __global__ void gatherStats<float, 256>(const float *, int, Stats<float> *);
template __global__ void gatherStats<double, 128>(const double *, int, Stats<double> *);
template __global__ void gatherStats<__half, 256>(const __half *, int, Stats<__half> *);

// Host formatting: integers print exactly, floating types with decimals.
template <typename A>
typename std::enable_if<std::is_integral<A>::value, void>::type printValue(const char *label, A v) {
  std::printf("  %-12s %lld\n", label, static_cast<long long>(v));
}
template <typename A>
typename std::enable_if<std::is_floating_point<A>::value, void>::type printValue(const char *label, A v) {
  std::printf("  %-12s %.6f\n", label, static_cast<double>(v));
}

template <typename T> T fromDouble(double v) { return static_cast<T>(v); }
template <> __half fromDouble<__half>(double v) { return __float2half(static_cast<float>(v)); }
template <typename T> double toDouble(T v) { return static_cast<double>(v); }
template <> double toDouble<__half>(__half v) { return __half2float(v); }

template <typename T, int BLOCK>
bool runFor(int n) {
  using Traits = AccumulatorTraits<T>;
  std::vector<T> host(n);
  double refSum = 0, refSq = 0;
  for (int i = 0; i < n; ++i) {
    host[i] = fromDouble<T>(((i * 37) % 201) - 100 + (Traits::exact ? 0.0 : 0.25));
    double v = toDouble(host[i]);
    refSum += v;
    refSq += v * v;
  }
  T *d;
  Stats<T> *dStats, stats{};
  CHECK_CUDA(cudaMalloc(&d, n * sizeof(T)));
  CHECK_CUDA(cudaMalloc(&dStats, sizeof(Stats<T>)));
  CHECK_CUDA(cudaMemcpy(d, host.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemset(dStats, 0, sizeof(Stats<T>)));
  gatherStats<T, BLOCK><<<48, BLOCK>>>(d, n, dStats);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaMemcpy(&stats, dStats, sizeof(stats), cudaMemcpyDeviceToHost));
  cudaFree(d);
  cudaFree(dStats);

  std::printf("%s (accumulating in %zu bytes):\n", Traits::name, sizeof(AccOf<T>));
  printValue("sum", stats.sum);
  printValue("sum of sq.", stats.sumSquares);
  double tol = Traits::exact ? 0.0 : 1e-5 * std::fabs(refSq);
  bool ok = stats.count == static_cast<unsigned long long>(n) &&
            std::fabs(toDouble(stats.sum) - refSum) <= tol &&
            std::fabs(toDouble(stats.sumSquares) - refSq) <= tol;
  if (!ok) std::printf("  expected %.3f and %.3f\n", refSum, refSq);
  return ok;
}

int main() {
  const int n = 1 << 20;
  bool ok = runFor<int, 256>(n);
  ok = runFor<float, 256>(n) && ok;
  ok = runFor<double, 128>(n) && ok;
  ok = runFor<__half, 256>(n) && ok;
  std::printf("%s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
