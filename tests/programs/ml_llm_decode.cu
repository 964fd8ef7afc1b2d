// One decode step of a small LLM, in the style of single-file inference
// engines: RMSNorm over float4 loads with a warp-shuffle (xor butterfly)
// block reduction; matrix-vector products with bf16 weights read as 128-bit
// uint4 words holding eight __nv_bfloat16 each, one warp per output row;
// RoPE-free single-head attention over a __half KV cache read as __half2
// pairs; a softmax over the scores with __shfl_xor_sync max and sum; a
// SwiGLU MLP; and a greedy argmax over the logits. The host builds random
// weights with <random>, runs the same arithmetic in float and compares.
//
// nvcc-flags: -std=c++17

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#define CUDA_CHECK(expr)                                                               \
  do {                                                                                 \
    cudaError_t err_ = (expr);                                                         \
    if (err_ != cudaSuccess) {                                                         \
      fprintf(stderr, "CUDA error %s at %s:%d: %s\n", cudaGetErrorName(err_), __FILE__, \
              __LINE__, cudaGetErrorString(err_));                                     \
      std::exit(1);                                                                    \
    }                                                                                  \
  } while (0)

constexpr int kWarp = 32;
constexpr unsigned kFull = 0xffffffffu;

__device__ __forceinline__ float warpSum(float v) {
#pragma unroll
  for (int mask = kWarp / 2; mask > 0; mask >>= 1) v += __shfl_xor_sync(kFull, v, mask);
  return v;
}

__device__ __forceinline__ float warpMax(float v) {
#pragma unroll
  for (int mask = kWarp / 2; mask > 0; mask >>= 1) v = fmaxf(v, __shfl_xor_sync(kFull, v, mask));
  return v;
}

// Every thread gets the block's sum; at most 32 warps.
__device__ float blockSum(float v) {
  __shared__ float partial[kWarp];
  const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
  v = warpSum(v);
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  const int warps = (blockDim.x + kWarp - 1) / kWarp;
  v = lane < warps ? partial[lane] : 0.0f;
  v = warpSum(v);
  __syncthreads();
  return v;
}

// out = x / rms(x) * weight, one block; dim a multiple of 4.
__global__ void rmsnormKernel(float *__restrict__ out, const float *__restrict__ x,
                              const float *__restrict__ weight, int dim, float eps) {
  const float4 *x4 = reinterpret_cast<const float4 *>(x);
  const float4 *w4 = reinterpret_cast<const float4 *>(weight);
  float4 *o4 = reinterpret_cast<float4 *>(out);
  float ss = 0.0f;
  for (int i = threadIdx.x; i < dim / 4; i += blockDim.x) {
    float4 v = x4[i];
    ss += v.x * v.x + v.y * v.y + v.z * v.z + v.w * v.w;
  }
  ss = blockSum(ss);
  const float scale = rsqrtf(ss / dim + eps);
  for (int i = threadIdx.x; i < dim / 4; i += blockDim.x) {
    float4 v = x4[i], w = w4[i];
    o4[i] = make_float4(v.x * scale * w.x, v.y * scale * w.y, v.z * scale * w.z, v.w * scale * w.w);
  }
}

// Eight bf16 weights in one 128-bit word, dotted with eight floats.
__device__ __forceinline__ float dot8(uint4 packed, const float *x) {
  const __nv_bfloat162 *w = reinterpret_cast<const __nv_bfloat162 *>(&packed);
  float acc = 0.0f;
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    float2 f = __bfloat1622float2(w[k]);
    acc += f.x * x[2 * k] + f.y * x[2 * k + 1];
  }
  return acc;
}

// y[row] = W[row, :] . x, W row-major bf16 [rows, cols], cols % 256 == 0;
// one warp per row, blockDim.x / 32 rows per block.
__global__ void matvecBf16(float *__restrict__ y, const __nv_bfloat16 *__restrict__ W,
                           const float *__restrict__ x, int rows, int cols) {
  const int row = blockIdx.x * (blockDim.x / kWarp) + threadIdx.x / kWarp;
  const int lane = threadIdx.x % kWarp;
  if (row >= rows) return;
  const uint4 *w = reinterpret_cast<const uint4 *>(W + size_t(row) * cols);
  float acc = 0.0f;
  for (int c = lane; c < cols / 8; c += kWarp) acc += dot8(__ldg(w + c), x + 8 * c);
  acc = warpSum(acc);
  if (lane == 0) y[row] = acc;
}

// scores[t] = q . k_t / sqrt(headDim) over a __half cache [seqLen, headDim];
// one warp per position.
__global__ void attentionScores(float *__restrict__ scores, const float *__restrict__ q,
                                const __half *__restrict__ kCache, int seqLen, int headDim) {
  const int t = blockIdx.x * (blockDim.x / kWarp) + threadIdx.x / kWarp;
  const int lane = threadIdx.x % kWarp;
  if (t >= seqLen) return;
  const __half2 *k2 = reinterpret_cast<const __half2 *>(kCache + size_t(t) * headDim);
  float acc = 0.0f;
  for (int i = lane; i < headDim / 2; i += kWarp) {
    float2 k = __half22float2(k2[i]);
    acc += q[2 * i] * k.x + q[2 * i + 1] * k.y;
  }
  acc = warpSum(acc);
  if (lane == 0) scores[t] = acc * rsqrtf((float)headDim);
}

// In-place softmax over n values by one warp.
__global__ void softmaxWarp(float *x, int n) {
  const int lane = threadIdx.x;
  float m = -INFINITY;
  for (int i = lane; i < n; i += kWarp) m = fmaxf(m, x[i]);
  m = warpMax(m);
  float s = 0.0f;
  for (int i = lane; i < n; i += kWarp) {
    float e = __expf(x[i] - m);
    x[i] = e;
    s += e;
  }
  s = warpSum(s);
  const float inv = 1.0f / s;
  for (int i = lane; i < n; i += kWarp) x[i] *= inv;
}

// out[d] = sum_t p[t] * v[t, d] over the __half value cache, a thread per d.
__global__ void attentionMix(float *__restrict__ out, const float *__restrict__ p,
                             const __half *__restrict__ vCache, int seqLen, int headDim) {
  const int d = blockIdx.x * blockDim.x + threadIdx.x;
  if (d >= headDim) return;
  float acc = 0.0f;
  for (int t = 0; t < seqLen; ++t) acc += p[t] * __half2float(vCache[size_t(t) * headDim + d]);
  out[d] = acc;
}

// h = silu(gate) * up, elementwise.
__global__ void swiglu(float *__restrict__ h, const float *__restrict__ gate,
                       const float *__restrict__ up, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float g = gate[i];
    h[i] = g / (1.0f + __expf(-g)) * up[i];
  }
}

// x += delta, the residual stream.
__global__ void residualAdd(float *__restrict__ x, const float *__restrict__ delta, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += delta[i];
}

// The index of the largest logit (lowest index on ties), one block.
__global__ void argmaxKernel(int *__restrict__ token, const float *__restrict__ logits, int n) {
  __shared__ float bestVal[kWarp];
  __shared__ int bestIdx[kWarp];
  float v = -INFINITY;
  int idx = 0x7fffffff;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    if (logits[i] > v) v = logits[i], idx = i;
  for (int mask = kWarp / 2; mask > 0; mask >>= 1) {
    float ov = __shfl_xor_sync(kFull, v, mask);
    int oi = __shfl_xor_sync(kFull, idx, mask);
    if (ov > v || (ov == v && oi < idx)) v = ov, idx = oi;
  }
  const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
  if (lane == 0) bestVal[warp] = v, bestIdx[warp] = idx;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int w = 1; w < (int)(blockDim.x / kWarp); ++w)
      if (bestVal[w] > v || (bestVal[w] == v && bestIdx[w] < idx)) v = bestVal[w], idx = bestIdx[w];
    *token = idx;
  }
}

struct Config {
  int dim = 256, hidden = 512, vocab = 1024, seqLen = 48;
};

template <typename T>
struct DeviceBuffer {
  T *ptr = nullptr;
  size_t count = 0;
  explicit DeviceBuffer(size_t n) : count(n) { CUDA_CHECK(cudaMalloc(&ptr, n * sizeof(T))); }
  DeviceBuffer(const std::vector<T> &host) : DeviceBuffer(host.size()) {
    CUDA_CHECK(cudaMemcpy(ptr, host.data(), count * sizeof(T), cudaMemcpyHostToDevice));
  }
  ~DeviceBuffer() { cudaFree(ptr); }
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  std::vector<T> download() const {
    std::vector<T> host(count);
    CUDA_CHECK(cudaMemcpy(host.data(), ptr, count * sizeof(T), cudaMemcpyDeviceToHost));
    return host;
  }
};

static std::vector<__nv_bfloat16> randomBf16(std::mt19937 &rng, size_t n, float scale) {
  std::normal_distribution<float> dist(0.0f, scale);
  std::vector<__nv_bfloat16> w(n);
  for (auto &v : w) v = __float2bfloat16(dist(rng));
  return w;
}

static std::vector<float> matvecHost(const std::vector<__nv_bfloat16> &W, const std::vector<float> &x,
                                     int rows, int cols) {
  std::vector<float> y(rows);
  for (int r = 0; r < rows; ++r) {
    double acc = 0;
    for (int c = 0; c < cols; ++c) acc += double(__bfloat162float(W[size_t(r) * cols + c])) * x[c];
    y[r] = float(acc);
  }
  return y;
}

int main() {
  const Config cfg;
  std::mt19937 rng(1234);
  std::normal_distribution<float> normal(0.0f, 1.0f);

  std::vector<float> x(cfg.dim), normW(cfg.dim, 1.0f);
  for (auto &v : x) v = normal(rng);
  auto wq = randomBf16(rng, size_t(cfg.dim) * cfg.dim, 0.05f);
  auto wGate = randomBf16(rng, size_t(cfg.hidden) * cfg.dim, 0.05f);
  auto wUp = randomBf16(rng, size_t(cfg.hidden) * cfg.dim, 0.05f);
  auto wDown = randomBf16(rng, size_t(cfg.dim) * cfg.hidden, 0.05f);
  auto wOut = randomBf16(rng, size_t(cfg.vocab) * cfg.dim, 0.05f);
  std::vector<__half> kCache(size_t(cfg.seqLen) * cfg.dim), vCache(kCache.size());
  for (auto &v : kCache) v = __float2half(normal(rng) * 0.5f);
  for (auto &v : vCache) v = __float2half(normal(rng) * 0.5f);

  DeviceBuffer<float> dX(x), dNormW(normW), dXn(cfg.dim), dQ(cfg.dim), dAtt(cfg.dim);
  DeviceBuffer<float> dScores(cfg.seqLen), dGate(cfg.hidden), dUp(cfg.hidden), dH(cfg.hidden);
  DeviceBuffer<float> dDown(cfg.dim), dLogits(cfg.vocab);
  DeviceBuffer<__nv_bfloat16> dWq(wq), dWGate(wGate), dWUp(wUp), dWDown(wDown), dWOut(wOut);
  DeviceBuffer<__half> dK(kCache), dV(vCache);
  DeviceBuffer<int> dToken(1);

  const int threads = 256, rowsPerBlock = threads / kWarp;
  auto rowBlocks = [&](int rows) { return (rows + rowsPerBlock - 1) / rowsPerBlock; };

  rmsnormKernel<<<1, threads>>>(dXn.ptr, dX.ptr, dNormW.ptr, cfg.dim, 1e-5f);
  matvecBf16<<<rowBlocks(cfg.dim), threads>>>(dQ.ptr, dWq.ptr, dXn.ptr, cfg.dim, cfg.dim);
  attentionScores<<<rowBlocks(cfg.seqLen), threads>>>(dScores.ptr, dQ.ptr, dK.ptr, cfg.seqLen, cfg.dim);
  softmaxWarp<<<1, kWarp>>>(dScores.ptr, cfg.seqLen);
  attentionMix<<<(cfg.dim + threads - 1) / threads, threads>>>(dAtt.ptr, dScores.ptr, dV.ptr,
                                                               cfg.seqLen, cfg.dim);
  residualAdd<<<(cfg.dim + threads - 1) / threads, threads>>>(dX.ptr, dAtt.ptr, cfg.dim);
  rmsnormKernel<<<1, threads>>>(dXn.ptr, dX.ptr, dNormW.ptr, cfg.dim, 1e-5f);
  matvecBf16<<<rowBlocks(cfg.hidden), threads>>>(dGate.ptr, dWGate.ptr, dXn.ptr, cfg.hidden, cfg.dim);
  matvecBf16<<<rowBlocks(cfg.hidden), threads>>>(dUp.ptr, dWUp.ptr, dXn.ptr, cfg.hidden, cfg.dim);
  swiglu<<<(cfg.hidden + threads - 1) / threads, threads>>>(dH.ptr, dGate.ptr, dUp.ptr, cfg.hidden);
  matvecBf16<<<rowBlocks(cfg.dim), threads>>>(dDown.ptr, dWDown.ptr, dH.ptr, cfg.dim, cfg.hidden);
  residualAdd<<<(cfg.dim + threads - 1) / threads, threads>>>(dX.ptr, dDown.ptr, cfg.dim);
  rmsnormKernel<<<1, threads>>>(dXn.ptr, dX.ptr, dNormW.ptr, cfg.dim, 1e-5f);
  matvecBf16<<<rowBlocks(cfg.vocab), threads>>>(dLogits.ptr, dWOut.ptr, dXn.ptr, cfg.vocab, cfg.dim);
  argmaxKernel<<<1, threads>>>(dToken.ptr, dLogits.ptr, cfg.vocab);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());

  // Host check of the first projection, the step most sensitive to packing.
  std::vector<float> xn(cfg.dim);
  double ss = 0;
  for (float v : x) ss += double(v) * v;
  const float scale = 1.0f / std::sqrt(float(ss / cfg.dim) + 1e-5f);
  for (int i = 0; i < cfg.dim; ++i) xn[i] = x[i] * scale;
  auto qRef = matvecHost(wq, xn, cfg.dim, cfg.dim);
  auto q = dQ.download();
  float worst = 0;
  for (int i = 0; i < cfg.dim; ++i) worst = std::fmax(worst, std::fabs(q[i] - qRef[i]));
  int token = dToken.download()[0];
  printf("q max abs error %.3g, next token %d\n", worst, token);
  return worst < 1e-3f && token >= 0 && token < cfg.vocab ? 0 : 1;
}
