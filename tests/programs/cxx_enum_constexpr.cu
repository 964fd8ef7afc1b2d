// Element-wise operations selected by an enum class, both at compile time
// (a template parameter) and at run time (a switch in the kernel), with
// constexpr tables and helpers. Device code calls constexpr host
// functions of the standard library (std::numeric_limits, std::max), which
// nvcc accepts with --expt-relaxed-constexpr.
//
//   nvcc --expt-relaxed-constexpr cxx_enum_constexpr.cu
//
// nvcc-flags: --expt-relaxed-constexpr

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <vector>

#include <cuda_runtime.h>

#define CK(x)                                                                        \
  do {                                                                               \
    if (cudaError_t err = (x); err != cudaSuccess) {                                 \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err)); \
      std::exit(1);                                                                  \
    }                                                                                \
  } while (0)

enum class Activation : std::uint8_t { Identity, Relu, LeakyRelu, Sigmoid, Tanh, Count };

constexpr std::array<const char *, static_cast<int>(Activation::Count)> kNames = {
    "identity", "relu", "leaky_relu", "sigmoid", "tanh"};

constexpr float kLeakySlope = 0.01f;

constexpr int toIndex(Activation a) { return static_cast<int>(a); }
static_assert(toIndex(Activation::Tanh) == 4, "enum layout");
static_assert(kNames.size() == 5, "one name per activation");

template <Activation A>
__host__ __device__ constexpr bool isMonotone() {
  return A != Activation::Count;
}

__host__ __device__ inline float activate(Activation a, float x) {
  switch (a) {
  case Activation::Identity: return x;
  case Activation::Relu: return std::max(x, 0.0f);
  case Activation::LeakyRelu: return x > 0.0f ? x : kLeakySlope * x;
  case Activation::Sigmoid: return 1.0f / (1.0f + expf(-x));
  case Activation::Tanh: return tanhf(x);
  default: return std::numeric_limits<float>::quiet_NaN();
  }
}

// Compile-time choice: the switch folds away.
template <Activation A>
__global__ void activateStatic(const float *in, float *out, int n) {
  static_assert(isMonotone<A>(), "only real activations");
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = activate(A, in[i]);
}

// Run-time choice: one kernel, the activation is an argument.
__global__ void activateDynamic(const float *in, float *out, int n, Activation a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = activate(a, in[i]);
}

// Clamps to the finite float range, using constexpr limits in device code.
__global__ void saturate(float *data, int n) {
  constexpr float hi = std::numeric_limits<float>::max();
  constexpr float lo = std::numeric_limits<float>::lowest();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = std::min(std::max(data[i], lo), hi);
}

template <Activation... As>
struct ActivationList {};

template <Activation First, Activation... Rest>
void launchAll(ActivationList<First, Rest...>, const float *in, float *out, int n) {
  activateStatic<First><<<(n + 255) / 256, 256>>>(in, out + toIndex(First) * n, n);
  if constexpr (sizeof...(Rest) > 0) launchAll(ActivationList<Rest...>{}, in, out, n);
}

int main() {
  const int n = 10000;
  const int kinds = toIndex(Activation::Count);
  std::vector<float> in(n);
  for (int i = 0; i < n; ++i) in[i] = -8.0f + 16.0f * i / (n - 1);
  in[0] = std::numeric_limits<float>::infinity();

  float *dIn, *dStatic, *dDynamic;
  CK(cudaMalloc(&dIn, n * sizeof(float)));
  CK(cudaMalloc(&dStatic, kinds * n * sizeof(float)));
  CK(cudaMalloc(&dDynamic, kinds * n * sizeof(float)));
  CK(cudaMemcpy(dIn, in.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  saturate<<<(n + 255) / 256, 256>>>(dIn, n);
  in[0] = std::numeric_limits<float>::max();

  launchAll(ActivationList<Activation::Identity, Activation::Relu, Activation::LeakyRelu,
                           Activation::Sigmoid, Activation::Tanh>{},
            dIn, dStatic, n);
  for (int k = 0; k < kinds; ++k)
    activateDynamic<<<(n + 255) / 256, 256>>>(dIn, dDynamic + k * n, n, static_cast<Activation>(k));
  CK(cudaGetLastError());

  std::vector<float> s(kinds * n), d(kinds * n);
  CK(cudaMemcpy(s.data(), dStatic, s.size() * sizeof(float), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(d.data(), dDynamic, d.size() * sizeof(float), cudaMemcpyDeviceToHost));
  bool ok = true;
  for (int k = 0; k < kinds; ++k) {
    int bad = 0;
    for (int i = 0; i < n; ++i) {
      float want = activate(static_cast<Activation>(k), in[i]);
      float tol = 1e-6f * (1.0f + std::fabs(want));
      if (std::fabs(s[k * n + i] - want) > tol || s[k * n + i] != d[k * n + i]) ++bad;
    }
    std::printf("%-11s %s\n", kNames[k], bad ? "FAIL" : "ok");
    ok = ok && bad == 0;
  }
  cudaFree(dIn); cudaFree(dStatic); cudaFree(dDynamic);
  std::printf("%s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
