// Shared pieces of the mlkit kernel programs: error checking, the storage
// type of activations (float, or bf16 / fp16 with -DMLKIT_BF16 /
// -DMLKIT_FP16), a 128-bit vector of elements for wide loads and stores,
// warp and block reductions, and host helpers for random data, result
// checks and timing. Each .cu file in this folder is a standalone program.
#pragma once

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#define CEIL_DIV(a, b) (((a) + (b) - 1) / (b))
#define WARP_SIZE 32

inline void cudaCheckImpl(cudaError_t error, const char *file, int line) {
  if (error != cudaSuccess) {
    fprintf(stderr, "[CUDA ERROR] at %s:%d: %s\n", file, line, cudaGetErrorString(error));
    exit(EXIT_FAILURE);
  }
}
#define cudaCheck(err) (cudaCheckImpl((err), __FILE__, __LINE__))

#if defined(MLKIT_BF16)
typedef __nv_bfloat16 floatX;
#define FLOATX_NAME "bf16"
#elif defined(MLKIT_FP16)
typedef __half floatX;
#define FLOATX_NAME "fp16"
#else
typedef float floatX;
#define FLOATX_NAME "fp32"
#endif

// Conversions that work for every storage type.
__host__ __device__ inline float toFloat(float v) { return v; }
__device__ inline float toFloat(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ inline float toFloat(__half v) { return __half2float(v); }
template <typename T> __device__ inline T fromFloat(float v);
template <> __device__ inline float fromFloat<float>(float v) { return v; }
template <> __device__ inline __nv_bfloat16 fromFloat<__nv_bfloat16>(float v) { return __float2bfloat16(v); }
template <> __device__ inline __half fromFloat<__half>(float v) { return __float2half(v); }

// Sixteen bytes of elements, moved with one vector instruction.
template <typename T>
struct alignas(16) Pack128 {
  static constexpr int size = 16 / sizeof(T);
  T v[size];

  Pack128() = default;
  __device__ static Pack128 filled(T value) {
    Pack128 p;
#pragma unroll
    for (int k = 0; k < size; ++k) p.v[k] = value;
    return p;
  }
  __device__ T &operator[](int k) { return v[k]; }
  __device__ const T &operator[](int k) const { return v[k]; }
  __device__ int4 bits() const {
    int4 out;
    memcpy(&out, v, sizeof(out));
    return out;
  }
  __device__ static Pack128 fromBits(int4 raw) {
    Pack128 p;
    memcpy(p.v, &raw, sizeof(raw));
    return p;
  }
};
static_assert(sizeof(Pack128<float>) == 16, "Pack128 must be 16 bytes");
static_assert(Pack128<__nv_bfloat16>::size == 8, "eight bf16 per pack");

template <typename T>
__device__ inline Pack128<T> load128(const T *p) {
  return Pack128<T>::fromBits(*reinterpret_cast<const int4 *>(p));
}
// Streaming load: the data is used once, so do not keep it in cache.
template <typename T>
__device__ inline Pack128<T> load128cs(const T *p) {
  return Pack128<T>::fromBits(__ldcs(reinterpret_cast<const int4 *>(p)));
}
template <typename T>
__device__ inline void store128(T *p, const Pack128<T> &pack) {
  *reinterpret_cast<int4 *>(p) = pack.bits();
}
template <typename T>
__device__ inline void store128cs(T *p, const Pack128<T> &pack) {
  __stcs(reinterpret_cast<int4 *>(p), pack.bits());
}

__device__ inline float warpSum(float v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}
__device__ inline float warpMax(float v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset));
  return v;
}

// Reduces over the whole block with a warp reduction, a trip through shared
// memory and a second warp reduction; every thread gets the result. Must be
// called by all threads of the block, with blockDim.x a multiple of 32.
template <float (*WarpOp)(float)>
__device__ inline float blockReduce(float v, float identity) {
  __shared__ float partials[WARP_SIZE];
  __shared__ float result;
  const int lane = threadIdx.x % WARP_SIZE;
  const int warp = threadIdx.x / WARP_SIZE;
  const int warps = blockDim.x / WARP_SIZE;
  v = WarpOp(v);
  if (lane == 0) partials[warp] = v;
  __syncthreads();
  if (warp == 0) {
    float w = lane < warps ? partials[lane] : identity;
    w = WarpOp(w);
    if (lane == 0) result = w;
  }
  __syncthreads();
  return result;
}

// ---- host helpers --------------------------------------------------------

inline float *makeRandomFloats(size_t n, unsigned long long seed, float lo = -1.0f,
                               float hi = 1.0f) {
  float *data = static_cast<float *>(malloc(n * sizeof(float)));
  unsigned long long s = seed ^ 0x9e3779b97f4a7c15ull;
  for (size_t i = 0; i < n; ++i) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    data[i] = lo + (hi - lo) * static_cast<float>((s >> 40) * (1.0 / 16777216.0));
  }
  return data;
}

// Copies floats to the device in the storage type T.
template <typename T>
T *deviceCopyAs(const float *host, size_t n) {
  T *staged = static_cast<T *>(malloc(n * sizeof(T)));
  for (size_t i = 0; i < n; ++i) staged[i] = static_cast<T>(host[i]);
  T *device;
  cudaCheck(cudaMalloc(&device, n * sizeof(T)));
  cudaCheck(cudaMemcpy(device, staged, n * sizeof(T), cudaMemcpyHostToDevice));
  free(staged);
  return device;
}

// Compares a device buffer against a host reference with a tolerance that
// suits the storage type; prints the first few mismatches.
template <typename T>
bool validateResult(const T *device, const float *reference, const char *name, size_t n,
                    float tolerance) {
  T *host = static_cast<T *>(malloc(n * sizeof(T)));
  cudaCheck(cudaMemcpy(host, device, n * sizeof(T), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (size_t i = 0; i < n; ++i) {
    float got = static_cast<float>(host[i]);
    if (!(fabsf(got - reference[i]) <= tolerance + tolerance * fabsf(reference[i]))) {
      if (bad < 5) printf("  %s[%zu]: got %f, want %f\n", name, i, got, reference[i]);
      ++bad;
    }
  }
  free(host);
  printf("%s: %s (%d mismatches of %zu)\n", name, bad ? "FAILED" : "ok", bad, n);
  return bad == 0;
}

// Times `repeats` launches of a callable with CUDA events; returns ms per launch.
template <class Launch, class... Args>
float benchmarkKernel(int repeats, Launch &&launch, Args &&...args) {
  cudaEvent_t start, stop;
  cudaCheck(cudaEventCreate(&start));
  cudaCheck(cudaEventCreate(&stop));
  cudaCheck(cudaEventRecord(start));
  for (int r = 0; r < repeats; ++r) launch(args...);
  cudaCheck(cudaEventRecord(stop));
  cudaCheck(cudaEventSynchronize(stop));
  float ms = 0.0f;
  cudaCheck(cudaEventElapsedTime(&ms, start, stop));
  cudaCheck(cudaEventDestroy(start));
  cudaCheck(cudaEventDestroy(stop));
  return ms / repeats;
}
