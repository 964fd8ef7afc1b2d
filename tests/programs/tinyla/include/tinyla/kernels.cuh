#pragma once

#include "math.cuh"

namespace tla {
namespace detail {

// y = alpha * op(A) x + beta * y, A row-major rows x cols; one warp per
// output element.
template <typename T, Trans TR>
__global__ void gemvWarp(int rows, int cols, T alpha, const T *__restrict__ A, const T *__restrict__ x, T beta,
                         T *__restrict__ y) {
  const int warpsPerBlock = blockDim.x / TLA_WARP;
  const int out = blockIdx.x * warpsPerBlock + threadIdx.x / TLA_WARP;
  const int lane = threadIdx.x % TLA_WARP;
  const int outs = TR == Trans::No ? rows : cols;
  const int len = TR == Trans::No ? cols : rows;
  if (out >= outs) return;
  T acc = zero<T>();
  for (int k = lane; k < len; k += TLA_WARP) {
    T a = TR == Trans::No ? A[(size_t)out * cols + k] : A[(size_t)k * cols + out];
    acc = fma_(a, x[k], acc);
  }
  acc = warpSum(acc);
  if (lane == 0) y[out] = alpha * acc + (beta == zero<T>() ? zero<T>() : beta * y[out]);
}

template <typename T>
__global__ void axpby(int n, T a, const T *x, T b, T *y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) y[i] = fma_(a, x[i], b * y[i]);
}

// Sum of squares into *out (atomically, one add per block).
template <typename T>
__global__ void sumSquares(int n, const T *x, T *out) {
  __shared__ T partial[TLA_WARP];
  T acc = zero<T>();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) acc = fma_(x[i], x[i], acc);
  acc = warpSum(acc);
  if (threadIdx.x % TLA_WARP == 0) partial[threadIdx.x / TLA_WARP] = acc;
  __syncthreads();
  if (threadIdx.x < TLA_WARP) {
    acc = threadIdx.x < blockDim.x / TLA_WARP ? partial[threadIdx.x] : zero<T>();
    acc = warpSum(acc);
    if (threadIdx.x == 0) atomicAdd(out, acc);
  }
}

}  // namespace detail

// The host-side interface: launch helpers with a default stream.
template <typename T>
struct Blas {
  static void gemv(Trans tr, int rows, int cols, T alpha, const T *A, const T *x, T beta, T *y,
                   cudaStream_t stream = 0) {
    const int outs = tr == Trans::No ? rows : cols;
    const int threads = 128, perBlock = threads / TLA_WARP;
    const int blocks = (outs + perBlock - 1) / perBlock;
    if (tr == Trans::No)
      detail::gemvWarp<T, Trans::No><<<blocks, threads, 0, stream>>>(rows, cols, alpha, A, x, beta, y);
    else
      detail::gemvWarp<T, Trans::Yes><<<blocks, threads, 0, stream>>>(rows, cols, alpha, A, x, beta, y);
  }
  static void axpby(int n, T a, const T *x, T b, T *y, cudaStream_t stream = 0) {
    detail::axpby<T><<<(n + 255) / 256, 256, 0, stream>>>(n, a, x, b, y);
  }
  static void sumSquares(int n, const T *x, T *out, cudaStream_t stream = 0) {
    detail::sumSquares<T><<<32, 256, 0, stream>>>(n, x, out);
  }
};

}  // namespace tla
