// Fused bias + activation + residual for fp16 activations, two elements
// per thread through __half2, as inference engines write their epilogues.
// Activations are functors with __forceinline__ operator() templates for
// __half2 and float; the row-wise statistics kernel reduces within the
// active lanes of a warp (__activemask) so that a partial last warp still
// agrees. Older GPUs without native fp16 arithmetic take the float path.

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_fp16.h>

#define CHECK(x)                                                                          \
  do {                                                                                    \
    cudaError_t e = (x);                                                                  \
    if (e != cudaSuccess) {                                                               \
      fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(e), __FILE__, __LINE__); \
      exit(1);                                                                            \
    }                                                                                     \
  } while (0)

struct Relu {
  static __device__ __forceinline__ float apply(float x) { return fmaxf(x, 0.0f); }
  static __device__ __forceinline__ __half2 apply(__half2 x) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    return __hmax2(x, __float2half2_rn(0.0f));
#else
    float2 f = __half22float2(x);
    return __floats2half2_rn(apply(f.x), apply(f.y));
#endif
  }
};

// tanh-approximated GELU, computed in float on every architecture.
struct GeluTanh {
  static __device__ __forceinline__ float apply(float x) {
    const float k = 0.7978845608f;
    float inner = k * (x + 0.044715f * x * x * x);
    return 0.5f * x * (1.0f + tanhf(inner));
  }
  static __device__ __forceinline__ __half2 apply(__half2 x) {
    float2 f = __half22float2(x);
    return __floats2half2_rn(apply(f.x), apply(f.y));
  }
};

struct SiluScaled {
  float beta;
  __device__ __forceinline__ float operator()(float x) const { return x / (1.0f + __expf(-beta * x)); }
};

// y = act(x + bias) + residual, over rows of `cols` halves (cols even).
template <typename Act>
__global__ void biasActResidual(__half2 *__restrict__ y, const __half2 *__restrict__ x,
                                const __half2 *__restrict__ bias, const __half2 *__restrict__ residual,
                                int rows, int cols2) {
  int total = rows * cols2;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < total; i += gridDim.x * blockDim.x) {
    __half2 b = bias[i % cols2];
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
    __half2 v = __hadd2(x[i], b);
    y[i] = __hadd2(Act::apply(v), residual[i]);
#else
    float2 v = __half22float2(x[i]);
    float2 bb = __half22float2(b);
    __half2 a = Act::apply(__floats2half2_rn(v.x + bb.x, v.y + bb.y));
    float2 r = __half22float2(residual[i]);
    float2 af = __half22float2(a);
    y[i] = __floats2half2_rn(af.x + r.x, af.y + r.y);
#endif
  }
}

// Per-element functor object passed by value (float output).
template <typename F>
__global__ void mapToFloat(float *out, const __half *in, int n, F f) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = f(__half2float(in[i]));
}

static __device__ __forceinline__ float warpSumActive(float v) {
  unsigned mask = __activemask();
  for (int offset = 16; offset > 0; offset >>= 1) {
    float other = __shfl_down_sync(mask, v, offset);
    // lanes past the last active one read their own value back: skip it
    if ((threadIdx.x & 31) + offset < 32 && (mask >> ((threadIdx.x & 31) + offset)) & 1u) v += other;
  }
  return v;
}

// Mean of |y| per row: one warp per row, lanes stride over the row; the
// grid may launch fewer than 32 lanes in the last warp of a block.
__global__ void rowAbsMean(float *out, const __half2 *y, int rows, int cols2) {
  int lane = threadIdx.x & 31;
  int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  if (row >= rows) return;
  float acc = 0.0f;
  for (int c = lane; c < cols2; c += 32) {
    float2 f = __half22float2(y[row * cols2 + c]);
    acc += fabsf(f.x) + fabsf(f.y);
  }
  acc = warpSumActive(acc);
  if (lane == 0) out[row] = acc / (2 * cols2);
}

static float hostGelu(float x) { return 0.5f * x * (1.0f + std::tanh(0.7978845608f * (x + 0.044715f * x * x * x))); }

int main() {
  const int rows = 64, cols = 256, cols2 = cols / 2, n = rows * cols;
  std::vector<__half> hx(n), hres(n), hbias(cols);
  std::vector<float> fx(n), fres(n), fbias(cols);
  for (int i = 0; i < n; ++i) {
    fx[i] = float((i * 13) % 97) / 48.0f - 1.0f;
    fres[i] = float((i * 7) % 31) / 62.0f;
    hx[i] = __float2half(fx[i]);
    hres[i] = __float2half(fres[i]);
    fx[i] = __half2float(hx[i]);
    fres[i] = __half2float(hres[i]);
  }
  for (int c = 0; c < cols; ++c) {
    hbias[c] = __float2half(0.01f * (c % 17) - 0.08f);
    fbias[c] = __half2float(hbias[c]);
  }

  __half2 *dx, *dres, *dbias, *dy;
  float *dmean, *dsilu;
  CHECK(cudaMalloc(&dx, n * sizeof(__half)));
  CHECK(cudaMalloc(&dres, n * sizeof(__half)));
  CHECK(cudaMalloc(&dbias, cols * sizeof(__half)));
  CHECK(cudaMalloc(&dy, n * sizeof(__half)));
  CHECK(cudaMalloc(&dmean, rows * sizeof(float)));
  CHECK(cudaMalloc(&dsilu, n * sizeof(float)));
  CHECK(cudaMemcpy(dx, hx.data(), n * sizeof(__half), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dres, hres.data(), n * sizeof(__half), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dbias, hbias.data(), cols * sizeof(__half), cudaMemcpyHostToDevice));

  int failures = 0;
  std::vector<__half> hy(n);
  for (int which = 0; which < 2; ++which) {
    if (which == 0)
      biasActResidual<Relu><<<32, 128>>>(dy, dx, dbias, dres, rows, cols2);
    else
      biasActResidual<GeluTanh><<<32, 128>>>(dy, dx, dbias, dres, rows, cols2);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(hy.data(), dy, n * sizeof(__half), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) {
      float v = fx[i] + fbias[i % cols];
      float want = (which == 0 ? std::fmax(v, 0.0f) : hostGelu(v)) + fres[i];
      if (std::fabs(__half2float(hy[i]) - want) > 2e-2f) ++failures;
    }
  }

  // Warp-per-row mean over the GELU output: 3 warps + 8 lanes per block.
  rowAbsMean<<<(rows + 2) / 3, 104>>>(dmean, dy, rows, cols2);
  CHECK(cudaGetLastError());
  std::vector<float> means(rows);
  CHECK(cudaMemcpy(means.data(), dmean, rows * sizeof(float), cudaMemcpyDeviceToHost));
  for (int r = 0; r < rows; ++r) {
    double acc = 0;
    for (int c = 0; c < cols; ++c) acc += std::fabs(__half2float(hy[r * cols + c]));
    if (std::fabs(acc / cols - means[r]) > 1e-3) ++failures;
  }

  mapToFloat<<<(n + 255) / 256, 256>>>(dsilu, reinterpret_cast<const __half *>(dx), n, SiluScaled{1.702f});
  CHECK(cudaGetLastError());
  std::vector<float> silu(n);
  CHECK(cudaMemcpy(silu.data(), dsilu, n * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i)
    if (std::fabs(silu[i] - fx[i] / (1.0f + std::exp(-1.702f * fx[i]))) > 1e-4f) ++failures;

  CHECK(cudaFree(dx));
  CHECK(cudaFree(dres));
  CHECK(cudaFree(dbias));
  CHECK(cudaFree(dy));
  CHECK(cudaFree(dmean));
  CHECK(cudaFree(dsilu));
  printf("%s (%d failures)\n", failures ? "FAIL" : "OK", failures);
  return failures ? 1 : 0;
}
