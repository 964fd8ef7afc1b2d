// Generic reductions in the template-heavy style of the SDK's reduction
// samples and small header-only libraries:
//   - a SharedMemory<T> accessor whose getPointer() hands out the dynamic
//     shared array typed per element type (specialized for double),
//   - reduction operators as functor class templates with an identity(),
//     chosen from an enum class through a traits template (OpFor<K, T>),
//   - an accumulator type picked with std::conditional (int8 and int16 sum
//     in int),
//   - kernels templated on <T, BLOCK, Op> with a defaulted operator and
//     __launch_bounds__(BLOCK), static_asserts on the block size,
//   - a constexpr ceil_div and log2 helpers usable on both sides,
//   - host dispatch of the block size through a switch in a function
//     template, std::vector and std::cout on the host.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <numeric>
#include <type_traits>
#include <vector>

#include <cuda_runtime.h>

#define CUDA_CHECK(expr)                                                              \
  do {                                                                                \
    cudaError_t status_ = (expr);                                                     \
    if (status_ != cudaSuccess) {                                                     \
      std::cerr << "CUDA failure " << cudaGetErrorString(status_) << " in " << #expr  \
                << " at " << __FILE__ << ":" << __LINE__ << std::endl;                \
      std::exit(EXIT_FAILURE);                                                        \
    }                                                                                 \
  } while (0)

namespace reduce {

__host__ __device__ constexpr int ceil_div(int a, int b) { return (a + b - 1) / b; }
__host__ __device__ constexpr bool is_pow2(unsigned v) { return v != 0 && (v & (v - 1)) == 0; }
__host__ __device__ constexpr int log2_floor(unsigned v) { return v <= 1 ? 0 : 1 + log2_floor(v / 2); }

static_assert(ceil_div(1000, 256) == 4, "ceil_div rounds up");
static_assert(log2_floor(256) == 8, "log2 of a power of two");

// Dynamic shared memory as a T array: one extern array per element type,
// so that differently aligned types do not share a declaration.
template <class T>
struct SharedMemory {
  __device__ T *getPointer() {
    static_assert(sizeof(T) == 0, "SharedMemory has no array for this element type");
    return nullptr;
  }
};

template <>
struct SharedMemory<int> {
  __device__ int *getPointer() {
    extern __shared__ int s_int[];
    return s_int;
  }
};

template <>
struct SharedMemory<float> {
  __device__ float *getPointer() {
    extern __shared__ float s_float[];
    return s_float;
  }
};

template <>
struct SharedMemory<double> {
  __device__ double *getPointer() {
    extern __shared__ double s_double[];
    return s_double;
  }
};

enum class Kind { Sum, Max, Min };

template <typename T>
struct Sum {
  using value_type = T;
  __device__ __forceinline__ static T identity() { return T(0); }
  __device__ __forceinline__ T operator()(const T &a, const T &b) const { return a + b; }
};

template <typename T>
struct Max {
  using value_type = T;
  __device__ __forceinline__ static T identity() {
    return std::is_floating_point<T>::value ? T(-1e30) : T(-2147483647 - 1);
  }
  __device__ __forceinline__ T operator()(const T &a, const T &b) const { return a > b ? a : b; }
};

template <typename T>
struct Min {
  using value_type = T;
  __device__ __forceinline__ static T identity() {
    return std::is_floating_point<T>::value ? T(1e30) : T(2147483647);
  }
  __device__ __forceinline__ T operator()(const T &a, const T &b) const { return a < b ? a : b; }
};

template <Kind K, typename T> struct OpFor;
template <typename T> struct OpFor<Kind::Sum, T> { using type = Sum<T>; };
template <typename T> struct OpFor<Kind::Max, T> { using type = Max<T>; };
template <typename T> struct OpFor<Kind::Min, T> { using type = Min<T>; };

// Small integers accumulate in int; everything else in its own type.
template <typename T>
struct Accumulator {
  using type = typename std::conditional<(std::is_integral<T>::value && sizeof(T) < 4), int,
                                         T>::type;
};

template <typename Op, typename T>
__device__ __forceinline__ T warpCombine(Op op, T value) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) {
    value = op(value, __shfl_down_sync(0xffffffffu, value, offset));
  }
  return value;
}

// One partial per block; gridDim.x blocks stride over n elements.
template <typename T, int BLOCK, typename Op = Sum<T>>
__global__ void __launch_bounds__(BLOCK)
    reduceKernel(const T *__restrict__ in, T *__restrict__ partials, unsigned n) {
  static_assert(is_pow2(BLOCK), "BLOCK must be a power of two");
  static_assert(BLOCK >= 64 && BLOCK <= 1024, "BLOCK must be within [64, 1024]");
  static_assert(std::is_same<typename Op::value_type, T>::value, "operator over T");

  SharedMemory<T> smem;
  T *sdata = smem.getPointer();
  Op op;

  const unsigned tid = threadIdx.x;
  const unsigned gridSize = BLOCK * 2 * gridDim.x;
  T acc = Op::identity();
  for (unsigned i = blockIdx.x * BLOCK * 2 + tid; i < n; i += gridSize) {
    acc = op(acc, in[i]);
    if (i + BLOCK < n) {
      acc = op(acc, in[i + BLOCK]);
    }
  }
  sdata[tid] = acc;
  __syncthreads();

#pragma unroll
  for (int stride = BLOCK / 2; stride > 32; stride >>= 1) {
    if (tid < stride) {
      sdata[tid] = acc = op(acc, sdata[tid + stride]);
    }
    __syncthreads();
  }
  if (tid < 32) {
    acc = op(acc, sdata[tid + 32]);
    acc = warpCombine(op, acc);
  }
  if (tid == 0) {
    partials[blockIdx.x] = acc;
  }
}

// Sums narrow integers into a wider accumulator type.
template <typename T, int BLOCK>
__global__ void widenSum(const T *in, typename Accumulator<T>::type *out, int n) {
  using Acc = typename Accumulator<T>::type;
  static_assert(sizeof(Acc) >= sizeof(T), "accumulator at least as wide");
  __shared__ Acc partial[BLOCK];
  Acc acc = 0;
  for (int i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += BLOCK * gridDim.x) {
    acc += static_cast<Acc>(in[i]);
  }
  partial[threadIdx.x] = acc;
  __syncthreads();
  for (int stride = BLOCK / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) {
      partial[threadIdx.x] += partial[threadIdx.x + stride];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    atomicAdd(out, partial[0]);
  }
}

// ---------------------------------------------------------------- host

template <typename T, Kind K>
T run(const std::vector<T> &host, int threads, int maxBlocks) {
  using Op = typename OpFor<K, T>::type;
  const unsigned n = static_cast<unsigned>(host.size());
  const int blocks = std::min(maxBlocks, ceil_div(n, threads * 2));
  T *dIn = nullptr;
  T *dPartials = nullptr;
  CUDA_CHECK(cudaMalloc(&dIn, n * sizeof(T)));
  CUDA_CHECK(cudaMalloc(&dPartials, blocks * sizeof(T)));
  CUDA_CHECK(cudaMemcpy(dIn, host.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  const size_t smem = threads * sizeof(T);
  switch (threads) {
  case 1024: reduceKernel<T, 1024, Op><<<blocks, 1024, smem>>>(dIn, dPartials, n); break;
  case 512: reduceKernel<T, 512, Op><<<blocks, 512, smem>>>(dIn, dPartials, n); break;
  case 256: reduceKernel<T, 256, Op><<<blocks, 256, smem>>>(dIn, dPartials, n); break;
  case 128: reduceKernel<T, 128, Op><<<blocks, 128, smem>>>(dIn, dPartials, n); break;
  default: reduceKernel<T, 64, Op><<<blocks, 64, smem>>>(dIn, dPartials, n); break;
  }
  CUDA_CHECK(cudaGetLastError());
  std::vector<T> partials(blocks);
  CUDA_CHECK(cudaMemcpy(partials.data(), dPartials, blocks * sizeof(T), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaFree(dIn));
  CUDA_CHECK(cudaFree(dPartials));
  T result = partials[0];
  for (int b = 1; b < blocks; ++b) {
    if (K == Kind::Sum) result += partials[b];
    else if (K == Kind::Max) result = std::max(result, partials[b]);
    else result = std::min(result, partials[b]);
  }
  return result;
}

} // namespace reduce

int main() {
  using reduce::Kind;
  constexpr int n = 1 << 20;
  std::vector<int> ints(n);
  std::vector<float> floats(n);
  std::vector<double> doubles(n);
  std::vector<int8_t> bytes(n);
  for (int i = 0; i < n; ++i) {
    ints[i] = (i * 7919) % 2001 - 1000;
    floats[i] = static_cast<float>((i * 31) % 1000) / 1000.0f;
    doubles[i] = static_cast<double>((i * 17) % 333) - 166.0;
    bytes[i] = static_cast<int8_t>((i * 13) % 255 - 127);
  }

  bool ok = true;
  const int sizes[] = {64, 128, 256, 512, 1024};
  for (int threads : sizes) {
    int sum = reduce::run<int, Kind::Sum>(ints, threads, 64);
    int mx = reduce::run<int, Kind::Max>(ints, threads, 64);
    float fmx = reduce::run<float, Kind::Max>(floats, threads, 64);
    double dmn = reduce::run<double, Kind::Min>(doubles, threads, 64);
    ok = ok && sum == std::accumulate(ints.begin(), ints.end(), 0);
    ok = ok && mx == *std::max_element(ints.begin(), ints.end());
    ok = ok && fmx == *std::max_element(floats.begin(), floats.end());
    ok = ok && dmn == *std::min_element(doubles.begin(), doubles.end());
    std::cout << "threads " << threads << ": sum " << sum << ", max " << mx << ", fmax " << fmx
              << ", dmin " << dmn << std::endl;
  }

  int8_t *dBytes = nullptr;
  int *dTotal = nullptr;
  CUDA_CHECK(cudaMalloc(&dBytes, n));
  CUDA_CHECK(cudaMalloc(&dTotal, sizeof(int)));
  CUDA_CHECK(cudaMemcpy(dBytes, bytes.data(), n, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(dTotal, 0, sizeof(int)));
  reduce::widenSum<int8_t, 256><<<reduce::ceil_div(n, 256 * 8), 256>>>(dBytes, dTotal, n);
  CUDA_CHECK(cudaGetLastError());
  int total = 0;
  CUDA_CHECK(cudaMemcpy(&total, dTotal, sizeof(int), cudaMemcpyDeviceToHost));
  long long expect = 0;
  for (int8_t b : bytes) expect += b;
  ok = ok && total == expect;
  CUDA_CHECK(cudaFree(dBytes));
  CUDA_CHECK(cudaFree(dTotal));

  std::cout << (ok ? "Test passed" : "Test failed") << std::endl;
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
