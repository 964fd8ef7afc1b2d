// nvcc-flags: -I tests/programs/common
// Element-wise kernels in the style of a small ML utility library: one
// generic `apply` that forwards a functor and its arguments
// (`std::forward<Args>(args)...`), activations chosen by type traits
// (`std::enable_if` on the return type, `std::is_floating_point`), a
// counting kernel over `long long` and `long` totals, and a kernel
// template whose flag argument is deduced from a comparison.
#include <cstdio>
#include <cstdlib>
#include <type_traits>
#include <utility>
#include <vector>

#include "helper_cuda.h"

namespace ew {

// Calls `f` with the arguments as they were passed (lvalues stay
// lvalues), so a functor that updates state through a reference works.
template <class F, class... Args>
__device__ __forceinline__ auto apply(F &&f, Args &&...args) {
  return std::forward<F>(f)(std::forward<Args>(args)...);
}

struct LeakyRelu {
  float slope;
  __device__ float operator()(float x) const { return x > 0.0f ? x : slope * x; }
};

struct Fma {
  __device__ float operator()(float a, float b, float c) const { return a * b + c; }
};

// Running statistics updated in place through a forwarded reference.
struct Accumulate {
  __device__ void operator()(float &sum, float &sq, float x) const {
    sum += x;
    sq += x * x;
  }
};

template <class T>
__device__ typename std::enable_if<std::is_floating_point<T>::value, T>::type squash(T x) {
  return x / (T(1) + (x < T(0) ? -x : x));
}

template <class T>
__device__ typename std::enable_if<std::is_integral<T>::value, T>::type squash(T x) {
  return x > T(100) ? T(100) : (x < T(-100) ? T(-100) : x);
}

template <class T> __device__ T keep(T &&value) {
  T moved = std::move(value);
  return moved;
}

} // namespace ew

__global__ void activate(float *out, const float *in, const float *bias, int n, float slope) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  ew::LeakyRelu act{slope};
  float x = in[i];
  float pre = ew::apply(ew::Fma{}, x, 2.0f, bias[i % 16]);
  out[i] = ew::squash(ew::apply(act, pre));
}

__global__ void rowStats(float *stats, const float *in, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  float sum = 0.0f, sq = 0.0f;
  ew::Accumulate acc;
  for (int c = 0; c < cols; ++c)
    ew::apply(acc, sum, sq, in[r * cols + c]);
  float mean = sum / cols;
  stats[2 * r] = ew::keep(std::move(mean));
  stats[2 * r + 1] = sq / cols - mean * mean;
}

template <class T> __device__ T clampCount(T v) { return v < T(0) ? T(0) : v; }

__global__ void countAbove(int *out, const int *in, int n, int threshold) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  long long wide = (long long)in[i] * 3 - threshold;
  long narrow = in[i] - threshold;
  out[i] = (int)(clampCount(wide) % 1000) + (int)(clampCount(narrow) % 1000) +
           ew::squash(in[i] - threshold);
}

template <class Flag> __global__ void maskScale(float *data, int n, Flag scaleUp) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    data[i] = scaleUp ? data[i] * 2.0f : data[i] * 0.5f;
}

int main() {
  const int n = 1024, rows = 64, cols = 16;
  std::vector<float> h(n), hb(16);
  std::vector<int> hi(n);
  for (int i = 0; i < n; ++i) {
    h[i] = (float)(rand() % 200 - 100) / 50.0f;
    hi[i] = rand() % 300 - 150;
  }
  for (int i = 0; i < 16; ++i)
    hb[i] = 0.1f * i;
  float *d_in, *d_out, *d_bias, *d_stats;
  int *d_i, *d_count;
  checkCudaErrors(cudaMalloc(&d_in, n * sizeof(float)));
  checkCudaErrors(cudaMalloc(&d_out, n * sizeof(float)));
  checkCudaErrors(cudaMalloc(&d_bias, 16 * sizeof(float)));
  checkCudaErrors(cudaMalloc(&d_stats, 2 * rows * sizeof(float)));
  checkCudaErrors(cudaMalloc(&d_i, n * sizeof(int)));
  checkCudaErrors(cudaMalloc(&d_count, n * sizeof(int)));
  checkCudaErrors(cudaMemcpy(d_in, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  checkCudaErrors(cudaMemcpy(d_bias, hb.data(), 16 * sizeof(float), cudaMemcpyHostToDevice));
  checkCudaErrors(cudaMemcpy(d_i, hi.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  activate<<<(n + 255) / 256, 256>>>(d_out, d_in, d_bias, n, 0.01f);
  rowStats<<<1, rows>>>(d_stats, d_in, rows, cols);
  countAbove<<<(n + 255) / 256, 256>>>(d_count, d_i, n, 10);
  int epoch = 3;
  maskScale<<<(n + 255) / 256, 256>>>(d_out, n, epoch > 2);
  maskScale<<<(n + 255) / 256, 256>>>(d_out, n, epoch);
  checkCudaErrors(cudaDeviceSynchronize());
  std::vector<float> stats(2 * rows);
  checkCudaErrors(cudaMemcpy(stats.data(), d_stats, stats.size() * sizeof(float),
                             cudaMemcpyDeviceToHost));
  printf("row 0: mean %f var %f\n", stats[0], stats[1]);
  cudaFree(d_in);
  cudaFree(d_out);
  cudaFree(d_bias);
  cudaFree(d_stats);
  cudaFree(d_i);
  cudaFree(d_count);
  return 0;
}
