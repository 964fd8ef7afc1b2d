// 128-bit vectorized element-wise kernels in the style of LLM training code:
// a Packed128<T> type that holds exactly one int4 worth of elements (four
// floats or eight halves), loaded and stored with single 16-byte memory
// instructions and cache hints. The same kernel templates serve fp32 and
// fp16 activations: residual add, bias + GELU, and a scaled copy. The host
// checks each against a double-precision reference.

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <type_traits>
#include <vector>

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                                \
  do {                                                                                  \
    cudaError_t err_ = (call);                                                          \
    if (err_ != cudaSuccess) {                                                          \
      fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(err_), __FILE__,   \
              __LINE__);                                                                \
      exit(EXIT_FAILURE);                                                               \
    }                                                                                   \
  } while (0)

template <class ElementType>
struct alignas(16) Packed128 {
  static constexpr const int size = sizeof(int4) / sizeof(ElementType);
  ElementType payload[size];

  Packed128() = default;
  __device__ explicit Packed128(int4 bits) {
    static_assert(sizeof(bits) == sizeof(payload), "size mismatch");
    memcpy(&payload, &bits, sizeof(bits));
  }
  __device__ static Packed128 constant(ElementType value) {
    Packed128 result;
    for (int k = 0; k < size; ++k) result.payload[k] = value;
    return result;
  }
  __device__ static Packed128 zeros() { return constant(ElementType(0.0f)); }
  __device__ static Packed128 ones() { return constant(ElementType(1.0f)); }

  __device__ ElementType &operator[](int index) { return payload[index]; }
  __device__ const ElementType &operator[](int index) const { return payload[index]; }
  __device__ int4 get_bits() const {
    int4 bits;
    memcpy(&bits, &payload, sizeof(bits));
    return bits;
  }
};

using f128 = Packed128<float>;
using h128 = Packed128<__half>;

template <class T>
__device__ Packed128<T> load128(const T *address) {
  return Packed128<T>{*reinterpret_cast<const int4 *>(address)};
}
// Streaming load: the data is read once, keep it out of the caches.
template <class T>
__device__ Packed128<T> load128cs(const T *address) {
  return Packed128<T>{__ldcs(reinterpret_cast<const int4 *>(address))};
}
template <class T>
__device__ void store128(T *target, Packed128<T> value) {
  *reinterpret_cast<int4 *>(target) = value.get_bits();
}
template <class T>
__device__ void store128cg(T *target, Packed128<T> value) {
  __stcg(reinterpret_cast<int4 *>(target), value.get_bits());
}

__device__ __forceinline__ float geluTanh(float x) {
  const float k = 0.7978845608f; // sqrt(2 / pi)
  float cube = 0.044715f * x * x * x;
  return 0.5f * x * (1.0f + tanhf(k * (x + cube)));
}

template <class T>
__global__ void residualForward(T *out, const T *inp1, const T *inp2, int n) {
  int idx = (blockIdx.x * blockDim.x + threadIdx.x) * Packed128<T>::size;
  if (idx >= n) return;
  Packed128<T> a = load128cs(inp1 + idx);
  Packed128<T> b = load128cs(inp2 + idx);
  Packed128<T> r;
  for (int k = 0; k < Packed128<T>::size; ++k) r[k] = T(float(a[k]) + float(b[k]));
  store128(out + idx, r);
}

template <class T>
__global__ void biasGeluForward(T *out, const T *inp, const T *bias, int rows, int channels) {
  int idx = (blockIdx.x * blockDim.x + threadIdx.x) * Packed128<T>::size;
  if (idx >= rows * channels) return;
  int c = idx % channels;
  Packed128<T> x = load128cs(inp + idx);
  Packed128<T> b = load128(bias + c);
  Packed128<T> y;
  for (int k = 0; k < Packed128<T>::size; ++k) y[k] = T(geluTanh(float(x[k]) + float(b[k])));
  store128cg(out + idx, y);
}

template <class T>
__global__ void scaleCopy(T *out, const T *inp, float scale, int n) {
  int idx = (blockIdx.x * blockDim.x + threadIdx.x) * Packed128<T>::size;
  if (idx >= n) return;
  Packed128<T> x = load128(inp + idx);
  Packed128<T> y = Packed128<T>::zeros();
  for (int k = 0; k < Packed128<T>::size; ++k) y[k] = T(float(x[k]) * scale);
  store128(out + idx, y);
}

template <class T>
static T fromFloat(float v) { return T(v); }
template <>
__half fromFloat<__half>(float v) { return __float2half(v); }
template <class T>
static float toFloat(T v) { return float(v); }
template <>
float toFloat<__half>(__half v) { return __half2float(v); }

template <class T>
static bool runAll(int rows, int channels) {
  const int n = rows * channels;
  const char *name = std::is_same<T, float>::value ? "fp32" : "fp16";
  const double tol = std::is_same<T, float>::value ? 1e-5 : 2e-2;
  std::vector<T> h1(n), h2(n), hBias(channels), hOut(n);
  std::vector<float> f1(n), f2(n), fBias(channels);
  for (int i = 0; i < n; ++i) {
    f1[i] = float(rand()) / RAND_MAX - 0.5f;
    f2[i] = float(rand()) / RAND_MAX - 0.5f;
    h1[i] = fromFloat<T>(f1[i]);
    h2[i] = fromFloat<T>(f2[i]);
  }
  for (int c = 0; c < channels; ++c) hBias[c] = fromFloat<T>(fBias[c] = 0.01f * c);

  T *d1, *d2, *dBias, *dOut;
  CUDA_CHECK(cudaMalloc(&d1, n * sizeof(T)));
  CUDA_CHECK(cudaMalloc(&d2, n * sizeof(T)));
  CUDA_CHECK(cudaMalloc(&dBias, channels * sizeof(T)));
  CUDA_CHECK(cudaMalloc(&dOut, n * sizeof(T)));
  CUDA_CHECK(cudaMemcpy(d1, h1.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d2, h2.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dBias, hBias.data(), channels * sizeof(T), cudaMemcpyHostToDevice));

  const int block = 256;
  const int grid = (n / Packed128<T>::size + block - 1) / block;
  bool ok = true;

  residualForward<T><<<grid, block>>>(dOut, d1, d2, n);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(hOut.data(), dOut, n * sizeof(T), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n && ok; ++i)
    ok = std::fabs(toFloat(hOut[i]) - (toFloat(h1[i]) + toFloat(h2[i]))) <= tol;

  biasGeluForward<T><<<grid, block>>>(dOut, d1, dBias, rows, channels);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(hOut.data(), dOut, n * sizeof(T), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n && ok; ++i) {
    double x = toFloat(h1[i]) + toFloat(hBias[i % channels]);
    double ref = 0.5 * x * (1.0 + std::tanh(0.7978845608 * (x + 0.044715 * x * x * x)));
    ok = std::fabs(toFloat(hOut[i]) - ref) <= tol;
  }

  scaleCopy<T><<<grid, block>>>(dOut, d2, 0.5f, n);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(hOut.data(), dOut, n * sizeof(T), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n && ok; ++i) ok = std::fabs(toFloat(hOut[i]) - 0.5 * toFloat(h2[i])) <= tol;

  CUDA_CHECK(cudaFree(d1));
  CUDA_CHECK(cudaFree(d2));
  CUDA_CHECK(cudaFree(dBias));
  CUDA_CHECK(cudaFree(dOut));
  std::cout << name << " (" << Packed128<T>::size << " per 128-bit access): "
            << (ok ? "ok" : "MISMATCH") << "\n";
  return ok;
}

int main() {
  const int rows = 4 * 64, channels = 768;
  bool ok = runAll<float>(rows, channels);
  ok = runAll<__half>(rows, channels) && ok;
  std::cout << (ok ? "PASSED" : "FAILED") << std::endl;
  return ok ? 0 : 1;
}
