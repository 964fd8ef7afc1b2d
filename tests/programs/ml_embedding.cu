// Token + position embedding, forward and backward.
//   forward:  out[b, t, :] = wte[tokens[b, t], :] + wpe[t, :]   (float4 loads)
//   backward: dwte[tokens[b, t], :] += dout[b, t, :]  (atomicAdd: tokens repeat)
//             dwpe[t, :] += sum over b of dout[b, t, :] (no atomics needed)
// C must be a multiple of 4.

#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>

#include <cuda_runtime.h>

#define cudaOk(call)                                                              \
  do {                                                                            \
    cudaError_t e = (call);                                                       \
    if (e != cudaSuccess) {                                                       \
      fprintf(stderr, "%s failed at line %d: %s\n", #call, __LINE__, cudaGetErrorString(e)); \
      exit(1);                                                                    \
    }                                                                             \
  } while (0)

__global__ void embeddingForward(float4 *__restrict__ out, const int *__restrict__ tokens,
                                 const float4 *__restrict__ wte, const float4 *__restrict__ wpe,
                                 int B, int T, int C4) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= B * T * C4) return;
  int bt = idx / C4, c = idx % C4;
  int t = bt % T;
  float4 a = wte[(size_t)tokens[bt] * C4 + c];
  float4 p = wpe[(size_t)t * C4 + c];
  out[idx] = make_float4(a.x + p.x, a.y + p.y, a.z + p.z, a.w + p.w);
}

__global__ void embeddingBackwardWte(float *dwte, const float *__restrict__ dout,
                                     const int *__restrict__ tokens, int BT, int C) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= BT * C) return;
  int bt = idx / C, c = idx % C;
  atomicAdd(&dwte[(size_t)tokens[bt] * C + c], dout[idx]);
}

__global__ void embeddingBackwardWpe(float *dwpe, const float *__restrict__ dout, int B, int T,
                                     int C) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= T * C) return;
  int t = idx / C, c = idx % C;
  float acc = 0.0f;
  for (int b = 0; b < B; ++b) acc += dout[((size_t)b * T + t) * C + c];
  dwpe[idx] += acc;
}

static bool close(const std::vector<float> &got, const std::vector<float> &want, float tol,
                  const char *what) {
  size_t bad = 0;
  for (size_t i = 0; i < want.size(); ++i)
    if (std::fabs(got[i] - want[i]) > tol) ++bad;
  printf("%-6s %zu bad of %zu\n", what, bad, want.size());
  return bad == 0;
}

int main() {
  const int B = 8, T = 128, C = 256, V = 1000;
  const int BT = B * T, C4 = C / 4;
  std::vector<int> tokens(BT);
  for (int i = 0; i < BT; ++i) tokens[i] = (i * i + 3 * i) % 97; // few distinct tokens: contention
  std::vector<float> wte((size_t)V * C), wpe((size_t)T * C), dout((size_t)BT * C);
  for (size_t i = 0; i < wte.size(); ++i) wte[i] = std::sin((float)i);
  for (size_t i = 0; i < wpe.size(); ++i) wpe[i] = std::cos((float)i) * 0.1f;
  for (size_t i = 0; i < dout.size(); ++i) dout[i] = (float)((i * 7) % 13) * 0.125f - 0.75f;

  int *dTokens;
  float *dWte, *dWpe, *dOut, *dDout, *dDwte, *dDwpe;
  cudaOk(cudaMalloc(&dTokens, BT * sizeof(int)));
  cudaOk(cudaMalloc(&dWte, wte.size() * sizeof(float)));
  cudaOk(cudaMalloc(&dWpe, wpe.size() * sizeof(float)));
  cudaOk(cudaMalloc(&dOut, (size_t)BT * C * sizeof(float)));
  cudaOk(cudaMalloc(&dDout, dout.size() * sizeof(float)));
  cudaOk(cudaMalloc(&dDwte, wte.size() * sizeof(float)));
  cudaOk(cudaMalloc(&dDwpe, wpe.size() * sizeof(float)));
  cudaOk(cudaMemcpy(dTokens, tokens.data(), BT * sizeof(int), cudaMemcpyHostToDevice));
  cudaOk(cudaMemcpy(dWte, wte.data(), wte.size() * sizeof(float), cudaMemcpyHostToDevice));
  cudaOk(cudaMemcpy(dWpe, wpe.data(), wpe.size() * sizeof(float), cudaMemcpyHostToDevice));
  cudaOk(cudaMemcpy(dDout, dout.data(), dout.size() * sizeof(float), cudaMemcpyHostToDevice));
  cudaOk(cudaMemset(dDwte, 0, wte.size() * sizeof(float)));
  cudaOk(cudaMemset(dDwpe, 0, wpe.size() * sizeof(float)));

  const int threads = 256;
  embeddingForward<<<(BT * C4 + threads - 1) / threads, threads>>>(
      reinterpret_cast<float4 *>(dOut), dTokens, reinterpret_cast<const float4 *>(dWte),
      reinterpret_cast<const float4 *>(dWpe), B, T, C4);
  embeddingBackwardWte<<<(BT * C + threads - 1) / threads, threads>>>(dDwte, dDout, dTokens, BT, C);
  embeddingBackwardWpe<<<(T * C + threads - 1) / threads, threads>>>(dDwpe, dDout, B, T, C);
  cudaOk(cudaGetLastError());

  std::vector<float> out((size_t)BT * C), dwte(wte.size()), dwpe(wpe.size());
  cudaOk(cudaMemcpy(out.data(), dOut, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
  cudaOk(cudaMemcpy(dwte.data(), dDwte, dwte.size() * sizeof(float), cudaMemcpyDeviceToHost));
  cudaOk(cudaMemcpy(dwpe.data(), dDwpe, dwpe.size() * sizeof(float), cudaMemcpyDeviceToHost));

  std::vector<float> outRef(out.size()), dwteRef(wte.size(), 0.0f), dwpeRef(wpe.size(), 0.0f);
  for (int bt = 0; bt < BT; ++bt)
    for (int c = 0; c < C; ++c) {
      size_t o = (size_t)bt * C + c;
      outRef[o] = wte[(size_t)tokens[bt] * C + c] + wpe[(size_t)(bt % T) * C + c];
      dwteRef[(size_t)tokens[bt] * C + c] += dout[o];
      dwpeRef[(size_t)(bt % T) * C + c] += dout[o];
    }
  // dout values are multiples of 1/8, so every sum is exact in any order.
  bool ok = close(out, outRef, 1e-6f, "out") & close(dwte, dwteRef, 0.0f, "dwte") &
            close(dwpe, dwpeRef, 0.0f, "dwpe");

  cudaFree(dTokens); cudaFree(dWte); cudaFree(dWpe); cudaFree(dOut);
  cudaFree(dDout); cudaFree(dDwte); cudaFree(dDwpe);
  printf("%s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
