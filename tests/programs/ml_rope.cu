// Rotary position embedding applied in place to q and k, layout
// (tokens, heads, headDim), rotating pairs (2i, 2i+1) by pos * theta_i with
// theta_i = base^(-2i / headDim). The inverse frequencies are computed
// once into __constant__ memory; sin and cos come from __sincosf in the
// fast kernel and from a precomputed cos/sin cache in the other.

#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>

#include <cuda_runtime.h>

#define CHECK(x)                                                                 \
  do {                                                                           \
    cudaError_t err_ = (x);                                                      \
    if (err_ != cudaSuccess) {                                                   \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      std::exit(1);                                                              \
    }                                                                            \
  } while (0)

constexpr int kMaxHalfDim = 128;
__constant__ float c_invFreq[kMaxHalfDim];

struct RopeShape {
  int tokens;
  int qHeads;
  int kvHeads;
  int headDim;
};

__device__ __forceinline__ void rotatePair(float *x, int i, float c, float s) {
  float a = x[2 * i], b = x[2 * i + 1];
  x[2 * i] = a * c - b * s;
  x[2 * i + 1] = a * s + b * c;
}

// One block per token; threads stride over (head, pair).
__global__ void ropeSincos(float *q, float *k, const int *positions, RopeShape shape) {
  const int token = blockIdx.x;
  const int half = shape.headDim / 2;
  const float pos = (float)positions[token];
  const int qWork = shape.qHeads * half;
  const int total = (shape.qHeads + shape.kvHeads) * half;
  for (int w = threadIdx.x; w < total; w += blockDim.x) {
    bool isQ = w < qWork;
    int local = isQ ? w : w - qWork;
    int head = local / half, i = local % half;
    float s, c;
    __sincosf(pos * c_invFreq[i], &s, &c);
    float *base = isQ ? q + ((size_t)token * shape.qHeads + head) * shape.headDim
                      : k + ((size_t)token * shape.kvHeads + head) * shape.headDim;
    rotatePair(base, i, c, s);
  }
}

// cosSin is (maxPos, half, 2).
__global__ void ropeCached(float *q, float *k, const int *positions, const float2 *cosSin,
                           RopeShape shape) {
  const int token = blockIdx.x;
  const int half = shape.headDim / 2;
  const float2 *row = cosSin + (size_t)positions[token] * half;
  for (int w = threadIdx.x; w < shape.qHeads * half; w += blockDim.x) {
    float2 cs = row[w % half];
    rotatePair(q + ((size_t)token * shape.qHeads + w / half) * shape.headDim, w % half, cs.x, cs.y);
  }
  for (int w = threadIdx.x; w < shape.kvHeads * half; w += blockDim.x) {
    float2 cs = row[w % half];
    rotatePair(k + ((size_t)token * shape.kvHeads + w / half) * shape.headDim, w % half, cs.x, cs.y);
  }
}

int main() {
  const RopeShape shape{300, 32, 8, 128};
  const int maxPos = 4096, half = shape.headDim / 2;
  const double base = 10000.0;
  std::vector<float> invFreq(half);
  for (int i = 0; i < half; ++i) invFreq[i] = (float)std::pow(base, -2.0 * i / shape.headDim);
  CHECK(cudaMemcpyToSymbol(c_invFreq, invFreq.data(), half * sizeof(float)));

  std::vector<float2> cosSin((size_t)maxPos * half);
  for (int p = 0; p < maxPos; ++p)
    for (int i = 0; i < half; ++i)
      cosSin[(size_t)p * half + i] = make_float2(std::cos(p * (double)invFreq[i]), std::sin(p * (double)invFreq[i]));

  const size_t qN = (size_t)shape.tokens * shape.qHeads * shape.headDim;
  const size_t kN = (size_t)shape.tokens * shape.kvHeads * shape.headDim;
  std::vector<float> q(qN), k(kN);
  std::vector<int> pos(shape.tokens);
  for (size_t i = 0; i < qN; ++i) q[i] = (float)((i * 37) % 101) / 50.0f - 1.0f;
  for (size_t i = 0; i < kN; ++i) k[i] = (float)((i * 53) % 97) / 48.0f - 1.0f;
  // Not monotonic on purpose; below 100 pi, where __sincosf stays accurate.
  for (int t = 0; t < shape.tokens; ++t) pos[t] = (t * 13) % 311;

  float *dq, *dk;
  int *dpos;
  float2 *dcs;
  CHECK(cudaMalloc(&dq, qN * sizeof(float)));
  CHECK(cudaMalloc(&dk, kN * sizeof(float)));
  CHECK(cudaMalloc(&dpos, shape.tokens * sizeof(int)));
  CHECK(cudaMalloc(&dcs, cosSin.size() * sizeof(float2)));
  CHECK(cudaMemcpy(dpos, pos.data(), shape.tokens * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dcs, cosSin.data(), cosSin.size() * sizeof(float2), cudaMemcpyHostToDevice));

  bool ok = true;
  for (int variant = 0; variant < 2; ++variant) {
    CHECK(cudaMemcpy(dq, q.data(), qN * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dk, k.data(), kN * sizeof(float), cudaMemcpyHostToDevice));
    if (variant == 0)
      ropeSincos<<<shape.tokens, 256>>>(dq, dk, dpos, shape);
    else
      ropeCached<<<shape.tokens, 256>>>(dq, dk, dpos, dcs, shape);
    CHECK(cudaGetLastError());
    std::vector<float> gq(qN), gk(kN);
    CHECK(cudaMemcpy(gq.data(), dq, qN * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(gk.data(), dk, kN * sizeof(float), cudaMemcpyDeviceToHost));

    // Variant 0 rounds pos * invFreq to float and uses the approximate
    // __sincosf; the cached table was computed in double.
    const double tol = variant == 0 ? 1e-3 : 1e-5;
    int bad = 0;
    auto check = [&](const std::vector<float> &src, const std::vector<float> &got, int heads) {
      for (int t = 0; t < shape.tokens; ++t)
        for (int h = 0; h < heads; ++h)
          for (int i = 0; i < half; ++i) {
            size_t o = ((size_t)t * heads + h) * shape.headDim + 2 * i;
            double ang = pos[t] * (double)invFreq[i];
            double a = src[o], b = src[o + 1];
            if (std::fabs(got[o] - (a * std::cos(ang) - b * std::sin(ang))) > tol ||
                std::fabs(got[o + 1] - (a * std::sin(ang) + b * std::cos(ang))) > tol)
              ++bad;
          }
    };
    check(q, gq, shape.qHeads);
    check(k, gk, shape.kvHeads);
    std::printf("%s: %d bad pairs\n", variant == 0 ? "sincos" : "cached", bad);
    ok = ok && bad == 0;
  }
  CHECK(cudaFree(dq));
  CHECK(cudaFree(dk));
  CHECK(cudaFree(dpos));
  CHECK(cudaFree(dcs));
  std::printf("%s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
