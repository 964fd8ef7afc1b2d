// Generic element-wise algorithms over device arrays, parameterized by
// function objects: hand-written functors, functor composition, and
// __device__ lambdas written in host code (these need nvcc's
// --extended-lambda). Host lambdas and <algorithm> compute the expected
// results.
//
//   nvcc --extended-lambda cxx_functors_lambdas.cu
//
// nvcc-flags: --extended-lambda

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <numeric>
#include <vector>

#include <cuda_runtime.h>

#define CUDA_CHECK(expr)                                                           \
  do {                                                                             \
    cudaError_t status_ = (expr);                                                  \
    if (status_ != cudaSuccess) {                                                  \
      std::fprintf(stderr, "%s failed: %s\n", #expr, cudaGetErrorString(status_)); \
      std::exit(1);                                                                \
    }                                                                              \
  } while (0)

namespace gpu {

template <typename T, typename UnaryOp>
__global__ void transform(const T *in, T *out, int n, UnaryOp op) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) out[i] = op(in[i]);
}

template <typename T, typename BinaryOp>
__global__ void zipWith(const T *a, const T *b, T *out, int n, BinaryOp op) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) out[i] = op(a[i], b[i]);
}

// Per-block partial reductions; the host folds the partials.
template <typename T, typename BinaryOp, int BLOCK>
__global__ void reduce(const T *in, T *partials, int n, T identity, BinaryOp op) {
  __shared__ T buffer[BLOCK];
  T acc = identity;
  for (int i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += gridDim.x * BLOCK) acc = op(acc, in[i]);
  buffer[threadIdx.x] = acc;
  __syncthreads();
  for (int stride = BLOCK / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) buffer[threadIdx.x] = op(buffer[threadIdx.x], buffer[threadIdx.x + stride]);
    __syncthreads();
  }
  if (threadIdx.x == 0) partials[blockIdx.x] = buffer[0];
}

template <typename T, typename UnaryOp>
void launchTransform(const T *in, T *out, int n, UnaryOp op) {
  transform<<<64, 256>>>(in, out, n, op);
  CUDA_CHECK(cudaGetLastError());
}

} // namespace gpu

struct Saxpy {
  float a, b;
  __host__ __device__ float operator()(float x) const { return a * x + b; }
};

struct Clamp {
  float lo, hi;
  __host__ __device__ float operator()(float x) const { return x < lo ? lo : (x > hi ? hi : x); }
};

struct MaxOp {
  __host__ __device__ float operator()(float x, float y) const { return x > y ? x : y; }
};

template <class F, class G>
struct Compose {
  F f;
  G g;
  __host__ __device__ float operator()(float x) const { return f(g(x)); }
};

template <class F, class G>
Compose<F, G> compose(F f, G g) {
  return Compose<F, G>{f, g};
}

static int failures = 0;

static void expectNear(const std::vector<float> &got, const std::vector<float> &want, const char *what) {
  int bad = 0;
  for (size_t i = 0; i < want.size(); ++i)
    if (std::fabs(got[i] - want[i]) > 1e-5f * (1.0f + std::fabs(want[i]))) ++bad;
  std::printf("%-28s %s (%d bad)\n", what, bad ? "FAIL" : "ok", bad);
  failures += bad != 0;
}

int main() {
  const int n = 1 << 18;
  std::vector<float> x(n), y(n);
  std::iota(x.begin(), x.end(), -1000.0f);
  std::transform(x.begin(), x.end(), y.begin(), [](float v) { return std::sin(v * 0.01f); });

  float *dx, *dy, *dout, *dpart;
  CUDA_CHECK(cudaMalloc(&dx, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&dy, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&dout, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&dpart, 64 * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dy, y.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  std::vector<float> got(n), want(n);
  auto download = [&] { CUDA_CHECK(cudaMemcpy(got.data(), dout, n * sizeof(float), cudaMemcpyDeviceToHost)); };

  // 1. a plain functor
  Saxpy saxpy{0.5f, 3.0f};
  gpu::launchTransform(dx, dout, n, saxpy);
  download();
  std::transform(x.begin(), x.end(), want.begin(), saxpy);
  expectNear(got, want, "functor");

  // 2. composed functors
  auto clampedSaxpy = compose(Clamp{-10.0f, 10.0f}, saxpy);
  gpu::launchTransform(dx, dout, n, clampedSaxpy);
  download();
  std::transform(x.begin(), x.end(), want.begin(), clampedSaxpy);
  expectNear(got, want, "composed functor");

  // 3. an extended __device__ lambda capturing by value
  const float scale = 2.5f;
  auto scaleSquare = [=] __device__(float v) { return scale * v * v; };
  gpu::launchTransform(dy, dout, n, scaleSquare);
  download();
  std::transform(y.begin(), y.end(), want.begin(), [=](float v) { return scale * v * v; });
  expectNear(got, want, "device lambda");

  // 4. a __host__ __device__ lambda used on both sides
  auto blend = [] __host__ __device__(float a, float b) { return 0.25f * a + 0.75f * b; };
  gpu::zipWith<<<64, 256>>>(dx, dy, dout, n, blend);
  CUDA_CHECK(cudaGetLastError());
  download();
  std::transform(x.begin(), x.end(), y.begin(), want.begin(), blend);
  expectNear(got, want, "host-device lambda (zip)");

  // 5. reductions with a functor and with std::plus-like lambda
  std::vector<float> partials(64);
  gpu::reduce<float, MaxOp, 256><<<64, 256>>>(dy, dpart, n, -INFINITY, MaxOp{});
  CUDA_CHECK(cudaMemcpy(partials.data(), dpart, 64 * sizeof(float), cudaMemcpyDeviceToHost));
  float gpuMax = *std::max_element(partials.begin(), partials.end());
  float cpuMax = *std::max_element(y.begin(), y.end());
  std::printf("%-28s %s\n", "max reduction", gpuMax == cpuMax ? "ok" : "FAIL");
  failures += gpuMax != cpuMax;

  auto plus = [] __device__(float a, float b) { return a + b; };
  gpu::reduce<float, decltype(plus), 256><<<64, 256>>>(dy, dpart, n, 0.0f, plus);
  CUDA_CHECK(cudaMemcpy(partials.data(), dpart, 64 * sizeof(float), cudaMemcpyDeviceToHost));
  double gpuSum = std::accumulate(partials.begin(), partials.end(), 0.0);
  double cpuSum = std::accumulate(y.begin(), y.end(), 0.0, std::plus<double>());
  bool sumOk = std::fabs(gpuSum - cpuSum) < 1e-3 * (1.0 + std::fabs(cpuSum));
  std::printf("%-28s %s (%.4f vs %.4f)\n", "sum reduction", sumOk ? "ok" : "FAIL", gpuSum, cpuSum);
  failures += !sumOk;

  cudaFree(dx); cudaFree(dy); cudaFree(dout); cudaFree(dpart);
  std::printf("%s\n", failures == 0 ? "PASSED" : "FAILED");
  return failures == 0 ? 0 : 1;
}
