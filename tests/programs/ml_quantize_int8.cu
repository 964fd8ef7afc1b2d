// Per-row symmetric int8 quantization for inference: scale = absmax / 127,
// q = round(x / scale), stored as char4 groups; dequantization and an
// int8 x int8 -> int32 dot-product GEMV with __dp4a. One warp per row.
// The row length must be a multiple of 128 (32 lanes x 4 values).

#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cstdint>
#include <vector>

#include <cuda_runtime.h>

#define CK(call)                                                                  \
  if (cudaError_t e = (call); e != cudaSuccess) {                                 \
    fprintf(stderr, "CUDA %s at %s:%d\n", cudaGetErrorString(e), __FILE__, __LINE__); \
    exit(1);                                                                      \
  }

__device__ __forceinline__ float warpAbsMax(float v) {
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

__device__ __forceinline__ int warpSumInt(int v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

__device__ __forceinline__ signed char quantizeOne(float x, float invScale) {
  int q = __float2int_rn(x * invScale);
  return (signed char)max(-127, min(127, q));
}

__global__ void quantizeRows(char4 *__restrict__ q, float *__restrict__ scales,
                             const float4 *__restrict__ x, int rows, int cols) {
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  int lane = threadIdx.x & 31;
  if (warp >= rows) return;
  const int groups = cols / 4;
  const float4 *row = x + (size_t)warp * groups;
  float amax = 0.0f;
  for (int g = lane; g < groups; g += 32) {
    float4 v = row[g];
    amax = fmaxf(amax, fmaxf(fmaxf(fabsf(v.x), fabsf(v.y)), fmaxf(fabsf(v.z), fabsf(v.w))));
  }
  amax = warpAbsMax(amax);
  float scale = amax > 0.0f ? amax / 127.0f : 1.0f;
  float inv = 1.0f / scale;
  for (int g = lane; g < groups; g += 32) {
    float4 v = row[g];
    q[(size_t)warp * groups + g] = make_char4(quantizeOne(v.x, inv), quantizeOne(v.y, inv),
                                              quantizeOne(v.z, inv), quantizeOne(v.w, inv));
  }
  if (lane == 0) scales[warp] = scale;
}

__global__ void dequantizeRows(float4 *out, const char4 *q, const float *scales, int rows, int cols) {
  size_t idx = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  size_t groups = (size_t)rows * (cols / 4);
  if (idx >= groups) return;
  float s = scales[idx / (cols / 4)];
  char4 c = q[idx];
  out[idx] = make_float4(c.x * s, c.y * s, c.z * s, c.w * s);
}

// y[r] = scaleW[r] * scaleX * sum_k qW[r, k] * qX[k]
__global__ void gemvInt8(float *y, const int *__restrict__ qW, const float *__restrict__ scaleW,
                         const int *__restrict__ qX, float scaleX, int rows, int cols) {
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  int lane = threadIdx.x & 31;
  if (warp >= rows) return;
  const int words = cols / 4;
  int acc = 0;
  for (int k = lane; k < words; k += 32) acc = __dp4a(qW[(size_t)warp * words + k], qX[k], acc);
  acc = warpSumInt(acc);
  if (lane == 0) y[warp] = (float)acc * scaleW[warp] * scaleX;
}

int main() {
  const int rows = 1024, cols = 4096;
  std::vector<float> w((size_t)rows * cols), x(cols);
  for (size_t i = 0; i < w.size(); ++i) w[i] = std::sin(0.37f * (float)i) * (1.0f + (i / cols) % 5);
  for (int i = 0; i < cols; ++i) x[i] = std::cos(0.11f * (float)i);

  float *dW, *dX, *dScaleW, *dScaleX, *dDeq, *dY;
  char4 *dQW, *dQX;
  CK(cudaMalloc(&dW, w.size() * sizeof(float)));
  CK(cudaMalloc(&dX, x.size() * sizeof(float)));
  CK(cudaMalloc(&dQW, w.size()));
  CK(cudaMalloc(&dQX, x.size()));
  CK(cudaMalloc(&dScaleW, rows * sizeof(float)));
  CK(cudaMalloc(&dScaleX, sizeof(float)));
  CK(cudaMalloc(&dDeq, w.size() * sizeof(float)));
  CK(cudaMalloc(&dY, rows * sizeof(float)));
  CK(cudaMemcpy(dW, w.data(), w.size() * sizeof(float), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dX, x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice));

  quantizeRows<<<rows * 32 / 256, 256>>>(dQW, dScaleW, reinterpret_cast<const float4 *>(dW), rows, cols);
  quantizeRows<<<1, 32>>>(dQX, dScaleX, reinterpret_cast<const float4 *>(dX), 1, cols);
  dequantizeRows<<<(rows * cols / 4 + 255) / 256, 256>>>(reinterpret_cast<float4 *>(dDeq), dQW, dScaleW, rows, cols);
  float scaleX;
  CK(cudaMemcpy(&scaleX, dScaleX, sizeof(float), cudaMemcpyDeviceToHost));
  gemvInt8<<<rows * 32 / 128, 128>>>(dY, reinterpret_cast<const int *>(dQW), dScaleW,
                                     reinterpret_cast<const int *>(dQX), scaleX, rows, cols);
  CK(cudaGetLastError());

  std::vector<float> deq(w.size()), y(rows), scales(rows);
  CK(cudaMemcpy(deq.data(), dDeq, deq.size() * sizeof(float), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(y.data(), dY, rows * sizeof(float), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(scales.data(), dScaleW, rows * sizeof(float), cudaMemcpyDeviceToHost));

  // Quantization error is at most half a step per element.
  int badDeq = 0;
  for (size_t i = 0; i < w.size(); ++i)
    if (std::fabs(deq[i] - w[i]) > 0.5f * scales[i / cols] * 1.001f) ++badDeq;
  // The int8 GEMV must be close to the float GEMV (relative to the row's scale).
  int badY = 0;
  for (int r = 0; r < rows; ++r) {
    double ref = 0;
    for (int k = 0; k < cols; ++k) ref += (double)w[(size_t)r * cols + k] * x[k];
    if (std::fabs(y[r] - ref) > 0.02 * scales[r] * 127.0 * std::sqrt((double)cols)) ++badY;
  }
  printf("dequantize: %d bad, gemv: %d bad rows\n", badDeq, badY);

  cudaFree(dW); cudaFree(dX); cudaFree(dQW); cudaFree(dQX);
  cudaFree(dScaleW); cudaFree(dScaleX); cudaFree(dDeq); cudaFree(dY);
  bool ok = badDeq == 0 && badY == 0;
  printf("%s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
