// nvcc-flags:
// nvcc-flags: -DUSE_BF16
//
// Row softmax the way inference and training kernels write it: an online
// (one-pass) running maximum and rescaled sum per thread, combined across a
// warp with cooperative groups' cg::reduce (cg::greater for the maximum,
// cg::plus for the sum), then a second pass that writes exp(x - max) / sum.
// Two shapes: one warp per row (short rows, several rows per block) and one
// block per row (long rows, warps combined through shared memory). Both are
// templated on <int VEC, typename T>: VEC elements are loaded at once, as a
// float4 for float and a __half2 (or __nv_bfloat162 with -DUSE_BF16) for
// the 16-bit type; arithmetic is in float. The host checks every row
// against a double-precision softmax.

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#ifdef USE_BF16
#include <cuda_bf16.h>
#endif

namespace cg = cooperative_groups;

#define cudaCheck(err) cudaCheckImpl((err), __FILE__, __LINE__)
inline void cudaCheckImpl(cudaError_t error, const char *file, int line) {
  if (error != cudaSuccess) {
    std::printf("[CUDA ERROR] at file %s:%d:\n%s\n", file, line, cudaGetErrorString(error));
    std::exit(EXIT_FAILURE);
  }
}

#ifdef USE_BF16
using half_t = __nv_bfloat16;
using half2_t = __nv_bfloat162;
#define HALF_NAME "bf16"
#else
using half_t = __half;
using half2_t = __half2;
#define HALF_NAME "fp16"
#endif

// ---- vector loads and stores, in float ---------------------------------------

template <int VEC, typename T>
struct VecIO;

template <typename T>
struct VecIO<1, T> {
  __device__ static void load(const T *p, float (&v)[1]) { v[0] = static_cast<float>(p[0]); }
  __device__ static void store(T *p, const float (&v)[1]) { p[0] = static_cast<T>(v[0]); }
};

template <>
struct VecIO<4, float> {
  __device__ static void load(const float *p, float (&v)[4]) {
    const float4 q = *reinterpret_cast<const float4 *>(p);
    v[0] = q.x;
    v[1] = q.y;
    v[2] = q.z;
    v[3] = q.w;
  }
  __device__ static void store(float *p, const float (&v)[4]) {
    *reinterpret_cast<float4 *>(p) = make_float4(v[0], v[1], v[2], v[3]);
  }
};

template <>
struct VecIO<2, half_t> {
  __device__ static void load(const half_t *p, float (&v)[2]) {
    const half2_t q = *reinterpret_cast<const half2_t *>(p);
#ifdef USE_BF16
    const float2 f = __bfloat1622float2(q);
#else
    const float2 f = __half22float2(q);
#endif
    v[0] = f.x;
    v[1] = f.y;
  }
  __device__ static void store(half_t *p, const float (&v)[2]) {
#ifdef USE_BF16
    *reinterpret_cast<half2_t *>(p) = __floats2bfloat162_rn(v[0], v[1]);
#else
    *reinterpret_cast<half2_t *>(p) = __floats2half2_rn(v[0], v[1]);
#endif
  }
};

// ---- the online statistics -----------------------------------------------------

struct RowStats {
  float max;
  float sum;  // of exp(x - max)

  __device__ void add(float x) {
    if (x > max) {
      sum = sum * __expf(max - x) + 1.0f;
      max = x;
    } else {
      sum += __expf(x - max);
    }
  }
};

// Combines the statistics of a warp; every lane gets the row's.
__device__ RowStats warpCombine(const cg::thread_block_tile<32> &warp, RowStats s) {
  const float rowMax = cg::reduce(warp, s.max, cg::greater<float>());
  const float scaled = s.max == -INFINITY ? 0.0f : s.sum * __expf(s.max - rowMax);
  return RowStats{rowMax, cg::reduce(warp, scaled, cg::plus<float>())};
}

template <int VEC, typename T>
__device__ RowStats scanRow(const T *row, int cols, int first, int stride) {
  RowStats s{-INFINITY, 0.0f};
  for (int c = first * VEC; c < cols; c += stride * VEC) {
    float v[VEC];
    VecIO<VEC, T>::load(row + c, v);
#pragma unroll
    for (int k = 0; k < VEC; ++k) s.add(v[k]);
  }
  return s;
}

template <int VEC, typename T>
__device__ void writeRow(T *out, const T *row, int cols, int first, int stride, RowStats s) {
  const float inv = 1.0f / s.sum;
  for (int c = first * VEC; c < cols; c += stride * VEC) {
    float v[VEC];
    VecIO<VEC, T>::load(row + c, v);
#pragma unroll
    for (int k = 0; k < VEC; ++k) v[k] = __expf(v[k] - s.max) * inv;
    VecIO<VEC, T>::store(out + c, v);
  }
}

// blockDim = (32, rows per block); cols a multiple of VEC.
template <int VEC, typename T>
__global__ void softmaxWarpPerRow(T *__restrict__ out, const T *__restrict__ in, int rows, int cols) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  const int row = blockIdx.x * blockDim.y + threadIdx.y;
  if (row >= rows) return;  // whole warps leave together
  const T *x = in + static_cast<size_t>(row) * cols;
  const RowStats s = warpCombine(warp, scanRow<VEC>(x, cols, warp.thread_rank(), 32));
  writeRow<VEC>(out + static_cast<size_t>(row) * cols, x, cols, warp.thread_rank(), 32, s);
}

template <int VEC, typename T, int BLOCK>
__global__ void __launch_bounds__(BLOCK)
softmaxBlockPerRow(T *__restrict__ out, const T *__restrict__ in, int cols) {
  constexpr int WARPS = BLOCK / 32;
  __shared__ RowStats partial[WARPS];
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  const T *x = in + static_cast<size_t>(blockIdx.x) * cols;

  RowStats s = warpCombine(warp, scanRow<VEC>(x, cols, threadIdx.x, BLOCK));
  if (warp.thread_rank() == 0) partial[warp.meta_group_rank()] = s;
  block.sync();
  // Every warp combines the per-warp statistics itself: no second barrier.
  s = warp.thread_rank() < WARPS ? partial[warp.thread_rank()] : RowStats{-INFINITY, 0.0f};
  s = warpCombine(warp, s);
  writeRow<VEC>(out + static_cast<size_t>(blockIdx.x) * cols, x, cols, threadIdx.x, BLOCK, s);
}

// ---- host -----------------------------------------------------------------------

template <typename T>
static float toFloat(T v) {
  return static_cast<float>(v);
}

template <typename T>
static int check(const char *name, const std::vector<float> &input, const std::vector<T> &got, int rows,
                 int cols, double tolerance) {
  int bad = 0;
  for (int r = 0; r < rows; ++r) {
    double m = -INFINITY, sum = 0.0;
    for (int c = 0; c < cols; ++c) m = std::fmax(m, input[r * cols + c]);
    for (int c = 0; c < cols; ++c) sum += std::exp(input[r * cols + c] - m);
    for (int c = 0; c < cols; ++c) {
      const double want = std::exp(input[r * cols + c] - m) / sum;
      if (std::fabs(toFloat(got[r * cols + c]) - want) > tolerance * (want + 1e-3)) ++bad;
    }
  }
  std::printf("%-28s %4d x %-5d %s\n", name, rows, cols, bad == 0 ? "ok" : "WRONG");
  return bad;
}

template <typename T, typename Launch>
static std::vector<T> runOnDevice(const std::vector<T> &host, Launch launch) {
  T *dIn = nullptr, *dOut = nullptr;
  const size_t bytes = host.size() * sizeof(T);
  cudaCheck(cudaMalloc(&dIn, bytes));
  cudaCheck(cudaMalloc(&dOut, bytes));
  cudaCheck(cudaMemcpy(dIn, host.data(), bytes, cudaMemcpyHostToDevice));
  launch(dOut, dIn);
  cudaCheck(cudaGetLastError());
  std::vector<T> result(host.size());
  cudaCheck(cudaMemcpy(result.data(), dOut, bytes, cudaMemcpyDeviceToHost));
  cudaCheck(cudaFree(dIn));
  cudaCheck(cudaFree(dOut));
  return result;
}

template <int VEC, typename T>
static void launchWarpPerRow(T *out, const T *in, int rows, int cols) {
  const dim3 block(32, 4);
  softmaxWarpPerRow<VEC, T><<<(rows + block.y - 1) / block.y, block>>>(out, in, rows, cols);
}

template <int VEC, typename T>
static void launchBlockPerRow(T *out, const T *in, int rows, int cols) {
  constexpr int BLOCK = 256;
  softmaxBlockPerRow<VEC, T, BLOCK><<<rows, BLOCK>>>(out, in, cols);
}

int main() {
  int failures = 0;
  const int shapes[][2] = {{67, 96}, {40, 1024}, {9, 4100}};
  unsigned state = 99u;
  for (const auto &shape : shapes) {
    const int rows = shape[0], cols = shape[1];
    std::vector<float> input(static_cast<size_t>(rows) * cols);
    for (float &v : input) {
      state = state * 1103515245u + 12345u;
      v = ((state >> 8) & 0xffff) / 4096.0f - 8.0f;
    }
    std::vector<half_t> input16(input.size());
    for (size_t i = 0; i < input.size(); ++i) {
      input16[i] = half_t(input[i]);
      input[i] = static_cast<float>(input16[i]);  // the 16-bit runs see the rounded values
    }

    failures += check("warp/row float VEC=4", input,
                      runOnDevice(input, [&](float *o, const float *i) { launchWarpPerRow<4>(o, i, rows, cols); }),
                      rows, cols, 1e-4);
    failures += check("warp/row float VEC=1", input,
                      runOnDevice(input, [&](float *o, const float *i) { launchWarpPerRow<1>(o, i, rows, cols); }),
                      rows, cols, 1e-4);
    failures += check("block/row float VEC=4", input,
                      runOnDevice(input, [&](float *o, const float *i) { launchBlockPerRow<4>(o, i, rows, cols); }),
                      rows, cols, 1e-4);
    failures += check("warp/row " HALF_NAME " VEC=2", input,
                      runOnDevice(input16, [&](half_t *o, const half_t *i) { launchWarpPerRow<2>(o, i, rows, cols); }),
                      rows, cols, 2e-2);
    failures += check("block/row " HALF_NAME " VEC=2", input,
                      runOnDevice(input16, [&](half_t *o, const half_t *i) { launchBlockPerRow<2>(o, i, rows, cols); }),
                      rows, cols, 2e-2);
  }
  cudaCheck(cudaDeviceSynchronize());
  std::printf(failures == 0 ? "all softmax variants match\n" : "softmax mismatch\n");
  return failures == 0 ? 0 : 1;
}
