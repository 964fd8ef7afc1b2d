// A small flash-attention-style forward kernel: for each (batch*head, block
// of BR query rows) a block streams K and V through shared memory in tiles
// of BC rows, keeping each query row's running max m, running denominator
// l and unnormalized output in registers (online softmax), so the T x T
// score matrix is never written out. Head dim D is a template parameter.
// Optional causal masking. Checked against a naive CPU attention.

#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>

#include <cuda_runtime.h>

#define CUDA_ASSERT(call)                                                          \
  do {                                                                             \
    cudaError_t e__ = (call);                                                      \
    if (e__ != cudaSuccess) {                                                      \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e__)); \
      exit(2);                                                                     \
    }                                                                              \
  } while (0)

// One thread per query row: BR threads per block.
template <int D, int BR, int BC>
__global__ void flashForward(float *__restrict__ O, const float *__restrict__ Q,
                             const float *__restrict__ K, const float *__restrict__ V, int T,
                             float scale, bool causal) {
  __shared__ float Ks[BC][D];
  __shared__ float Vs[BC][D];
  const int bh = blockIdx.y;
  const int row = blockIdx.x * BR + threadIdx.x;
  const size_t headOff = (size_t)bh * T * D;
  const bool active = row < T;

  float q[D], acc[D];
#pragma unroll
  for (int d = 0; d < D; ++d) {
    q[d] = active ? Q[headOff + (size_t)row * D + d] * scale : 0.0f;
    acc[d] = 0.0f;
  }
  float m = -INFINITY, l = 0.0f;

  const int lastKey = causal ? min(T, (blockIdx.x + 1) * BR) : T;
  for (int k0 = 0; k0 < lastKey; k0 += BC) {
    // Cooperative tile load: BR threads fill BC * D floats.
    for (int i = threadIdx.x; i < BC * D; i += BR) {
      int r = i / D, d = i % D;
      bool in = k0 + r < T;
      Ks[r][d] = in ? K[headOff + (size_t)(k0 + r) * D + d] : 0.0f;
      Vs[r][d] = in ? V[headOff + (size_t)(k0 + r) * D + d] : 0.0f;
    }
    __syncthreads();

    if (active) {
      for (int j = 0; j < BC; ++j) {
        int key = k0 + j;
        if (key >= T || (causal && key > row)) break;
        float s = 0.0f;
#pragma unroll
        for (int d = 0; d < D; ++d) s += q[d] * Ks[j][d];
        float mNew = fmaxf(m, s);
        float correction = __expf(m - mNew);
        float p = __expf(s - mNew);
        l = l * correction + p;
#pragma unroll
        for (int d = 0; d < D; ++d) acc[d] = acc[d] * correction + p * Vs[j][d];
        m = mNew;
      }
    }
    __syncthreads();
  }

  if (active) {
    float inv = 1.0f / l;
#pragma unroll
    for (int d = 0; d < D; ++d) O[headOff + (size_t)row * D + d] = acc[d] * inv;
  }
}

static void attentionCpu(std::vector<float> &O, const std::vector<float> &Q, const std::vector<float> &K,
                         const std::vector<float> &V, int BH, int T, int D, bool causal) {
  std::vector<double> s(T);
  const double scale = 1.0 / std::sqrt((double)D);
  for (int bh = 0; bh < BH; ++bh)
    for (int i = 0; i < T; ++i) {
      const size_t off = (size_t)bh * T * D;
      int last = causal ? i + 1 : T;
      double mx = -INFINITY, sum = 0;
      for (int j = 0; j < last; ++j) {
        double dot = 0;
        for (int d = 0; d < D; ++d) dot += (double)Q[off + i * D + d] * K[off + j * D + d];
        s[j] = dot * scale;
        mx = std::fmax(mx, s[j]);
      }
      for (int j = 0; j < last; ++j) sum += (s[j] = std::exp(s[j] - mx));
      for (int d = 0; d < D; ++d) {
        double o = 0;
        for (int j = 0; j < last; ++j) o += s[j] * V[off + j * D + d];
        O[off + i * D + d] = (float)(o / sum);
      }
    }
}

int main() {
  constexpr int D = 64, BR = 64, BC = 32;
  const int BH = 8, T = 300;
  const size_t n = (size_t)BH * T * D;
  std::vector<float> Q(n), K(n), V(n), O(n), ref(n);
  for (size_t i = 0; i < n; ++i) {
    Q[i] = std::sin(0.013f * i);
    K[i] = std::cos(0.007f * i + 1.0f);
    V[i] = std::sin(0.021f * i + 2.0f);
  }
  float *dQ, *dK, *dV, *dO;
  CUDA_ASSERT(cudaMalloc(&dQ, n * sizeof(float)));
  CUDA_ASSERT(cudaMalloc(&dK, n * sizeof(float)));
  CUDA_ASSERT(cudaMalloc(&dV, n * sizeof(float)));
  CUDA_ASSERT(cudaMalloc(&dO, n * sizeof(float)));
  CUDA_ASSERT(cudaMemcpy(dQ, Q.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_ASSERT(cudaMemcpy(dK, K.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_ASSERT(cudaMemcpy(dV, V.data(), n * sizeof(float), cudaMemcpyHostToDevice));

  bool ok = true;
  for (int causal = 0; causal <= 1; ++causal) {
    dim3 grid((T + BR - 1) / BR, BH);
    flashForward<D, BR, BC><<<grid, BR>>>(dO, dQ, dK, dV, T, 1.0f / sqrtf((float)D), causal != 0);
    CUDA_ASSERT(cudaGetLastError());
    CUDA_ASSERT(cudaMemcpy(O.data(), dO, n * sizeof(float), cudaMemcpyDeviceToHost));
    attentionCpu(ref, Q, K, V, BH, T, D, causal != 0);
    double maxErr = 0;
    for (size_t i = 0; i < n; ++i) maxErr = std::fmax(maxErr, std::fabs(O[i] - ref[i]));
    printf("%s: max abs error %.3e\n", causal ? "causal" : "full", maxErr);
    ok = ok && maxErr < 1e-4;
  }
  cudaFree(dQ); cudaFree(dK); cudaFree(dV); cudaFree(dO);
  printf("%s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
