// Variadic templates on both sides of the launch:
//   - a kernel template taking a parameter pack of input arrays, combining
//     them with a fold expression (sum of N inputs in one pass),
//   - a pack of compile-time stages applied in sequence to each element,
//   - a host launcher that forwards any kernel arguments, checks the
//     launch, and times it (a typical "launch helper").

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <tuple>
#include <utility>
#include <vector>

#include <cuda_runtime.h>

namespace detail {
inline void check(cudaError_t status, const char *context) {
  if (status != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", context, cudaGetErrorString(status));
    std::exit(1);
  }
}
} // namespace detail

struct LaunchConfig {
  dim3 grid;
  dim3 block;
  size_t sharedBytes = 0;
  cudaStream_t stream = nullptr;
};

// Launches kernel with the given arguments; returns the time in ms.
template <typename... KernelParams, typename... Args>
float launchTimed(const char *name, void (*kernel)(KernelParams...), const LaunchConfig &cfg,
                  Args &&...args) {
  static_assert(sizeof...(KernelParams) == sizeof...(Args), "argument count must match the kernel");
  cudaEvent_t start, stop;
  detail::check(cudaEventCreate(&start), "event");
  detail::check(cudaEventCreate(&stop), "event");
  detail::check(cudaEventRecord(start, cfg.stream), "record");
  kernel<<<cfg.grid, cfg.block, cfg.sharedBytes, cfg.stream>>>(std::forward<Args>(args)...);
  detail::check(cudaGetLastError(), name);
  detail::check(cudaEventRecord(stop, cfg.stream), "record");
  detail::check(cudaEventSynchronize(stop), name);
  float ms = 0;
  detail::check(cudaEventElapsedTime(&ms, start, stop), "elapsed");
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return ms;
}

template <typename... Ptrs>
__global__ void sumInputs(float *out, int n, Ptrs... inputs) {
  static_assert(sizeof...(Ptrs) >= 1, "at least one input");
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = (inputs[i] + ...);
}

// Stages: each is a type with a static __device__ apply.
struct AddOne {
  __host__ __device__ static float apply(float x) { return x + 1.0f; }
};
struct Square {
  __host__ __device__ static float apply(float x) { return x * x; }
};
struct Halve {
  __host__ __device__ static float apply(float x) { return 0.5f * x; }
};
template <int N>
struct Shift {
  __host__ __device__ static float apply(float x) { return x + static_cast<float>(N); }
};

template <typename... Stages>
struct Pipeline {
  __host__ __device__ static float run(float x) {
    ((x = Stages::apply(x)), ...); // left to right
    return x;
  }
  static constexpr std::size_t depth = sizeof...(Stages);
};

template <typename P>
__global__ void runPipeline(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = P::run(in[i]);
}

template <typename... Ts>
constexpr auto countFloats(const std::tuple<Ts...> &) {
  return (0 + ... + (std::is_same<Ts, float *>::value ? 1 : 0));
}

int main() {
  const int n = 1 << 16;
  std::vector<float> a(n), b(n), c(n), d(n);
  for (int i = 0; i < n; ++i) {
    a[i] = i * 0.5f;
    b[i] = -i * 0.25f;
    c[i] = std::sin(0.01f * i);
    d[i] = 1.0f;
  }
  float *dA, *dB, *dC, *dD, *dOut;
  for (auto p : {&dA, &dB, &dC, &dD, &dOut}) detail::check(cudaMalloc(p, n * sizeof(float)), "malloc");
  detail::check(cudaMemcpy(dA, a.data(), n * sizeof(float), cudaMemcpyHostToDevice), "copy");
  detail::check(cudaMemcpy(dB, b.data(), n * sizeof(float), cudaMemcpyHostToDevice), "copy");
  detail::check(cudaMemcpy(dC, c.data(), n * sizeof(float), cudaMemcpyHostToDevice), "copy");
  detail::check(cudaMemcpy(dD, d.data(), n * sizeof(float), cudaMemcpyHostToDevice), "copy");

  LaunchConfig cfg{dim3((n + 255) / 256), dim3(256)};
  std::vector<float> out(n);
  int failures = 0;
  auto fetch = [&] { detail::check(cudaMemcpy(out.data(), dOut, n * sizeof(float), cudaMemcpyDeviceToHost), "copy"); };

  const float *ca = dA, *cb = dB, *cc = dC, *cd = dD;
  float ms2 = launchTimed("sum2", sumInputs<const float *, const float *>, cfg, dOut, n, ca, cb);
  fetch();
  for (int i = 0; i < n; ++i) failures += out[i] != a[i] + b[i];
  float ms4 = launchTimed("sum4", sumInputs<const float *, const float *, const float *, const float *>, cfg,
                          dOut, n, ca, cb, cc, cd);
  fetch();
  for (int i = 0; i < n; ++i) failures += std::fabs(out[i] - (((a[i] + b[i]) + c[i]) + d[i])) > 1e-6f * (1 + std::fabs(out[i]));
  std::printf("sum of 2 inputs: %.3f ms, of 4 inputs: %.3f ms\n", ms2, ms4);

  using P = Pipeline<AddOne, Square, Halve, Shift<-3>>;
  static_assert(P::depth == 4, "four stages");
  float msP = launchTimed("pipeline", runPipeline<P>, cfg, ca, dOut, n);
  fetch();
  for (int i = 0; i < n; ++i) {
    float want = 0.5f * (a[i] + 1.0f) * (a[i] + 1.0f) - 3.0f;
    failures += std::fabs(out[i] - want) > 1e-6f * (1 + std::fabs(want));
  }
  std::printf("pipeline of %zu stages: %.3f ms\n", P::depth, msP);

  auto buffers = std::make_tuple(dA, dB, dOut, n);
  std::printf("%d float buffers in the tuple\n", countFloats(buffers));
  for (float *p : {dA, dB, dC, dD, dOut}) cudaFree(p);
  std::printf("%d failures\n%s\n", failures, failures == 0 ? "PASSED" : "FAILED");
  return failures == 0 ? 0 : 1;
}
