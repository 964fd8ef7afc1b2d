// Multi-head causal self-attention forward, unfused, in the four steps a
// first implementation takes:
//   1. permuteQkv: (B, T, 3, NH, HS) -> q, k, v each (B, NH, T, HS)
//   2. attentionScores: preatt = q k^T (one thread per (b, h, t, t2))
//   3. causal softmax with scale (one warp per row)
//   4. attentionValues + unpermute: out (B, T, NH, HS) = att v
// All in fp32; checked against a direct CPU implementation.

#include "mlkit.cuh"

__global__ void permuteQkv(float *q, float *k, float *v, const float *qkv, int B, int T,
                           int NH, int HS) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= B * NH * T * HS) return;
  int b = idx / (NH * T * HS);
  int rest = idx % (NH * T * HS);
  int h = rest / (T * HS);
  rest %= T * HS;
  int t = rest / HS;
  int d = rest % HS;
  int src = b * T * 3 * NH * HS + t * 3 * NH * HS + h * HS + d;
  q[idx] = __ldg(&qkv[src]);
  k[idx] = __ldg(&qkv[src + NH * HS]);
  v[idx] = __ldg(&qkv[src + 2 * NH * HS]);
}

__global__ void attentionScores(float *preatt, const float *q, const float *k, int BNH, int T,
                                int HS) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= BNH * T * T) return;
  int bh = idx / (T * T);
  int t = (idx / T) % T;
  int t2 = idx % T;
  if (t2 > t) {
    preatt[idx] = -INFINITY; // masked: never read by the causal softmax
    return;
  }
  const float4 *qr = reinterpret_cast<const float4 *>(q + ((size_t)bh * T + t) * HS);
  const float4 *kr = reinterpret_cast<const float4 *>(k + ((size_t)bh * T + t2) * HS);
  float acc = 0.0f;
#pragma unroll 4
  for (int i = 0; i < HS / 4; i++) {
    float4 a = qr[i], b = kr[i];
    acc += a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
  }
  preatt[idx] = acc;
}

__global__ void causalSoftmax(float *att, const float *preatt, int BNH, int T, float scale) {
  int lane = threadIdx.x % WARP_SIZE;
  int row = (blockIdx.x * blockDim.x + threadIdx.x) / WARP_SIZE;
  if (row >= BNH * T) return;
  int t = row % T;
  const float *x = preatt + (size_t)row * T;
  float m = -INFINITY;
  for (int i = lane; i <= t; i += WARP_SIZE) m = fmaxf(m, x[i]);
  m = warpMax(m);
  float s = 0.0f;
  for (int i = lane; i <= t; i += WARP_SIZE) s += __expf((x[i] - m) * scale);
  s = warpSum(s);
  for (int i = lane; i < T; i += WARP_SIZE)
    att[(size_t)row * T + i] = i <= t ? __expf((x[i] - m) * scale) / s : 0.0f;
}

// out[b, t, h, d] = sum_t2 att[b, h, t, t2] * v[b, h, t2, d]
__global__ void attentionValues(float *out, const float *att, const float *v, int B, int T,
                                int NH, int HS) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= B * T * NH * HS) return;
  int d = idx % HS;
  int h = (idx / HS) % NH;
  int t = (idx / (HS * NH)) % T;
  int b = idx / (HS * NH * T);
  const float *a = att + (((size_t)b * NH + h) * T + t) * T;
  const float *vv = v + ((size_t)b * NH + h) * T * HS;
  float acc = 0.0f;
  for (int t2 = 0; t2 <= t; t2++) acc += a[t2] * vv[t2 * HS + d];
  out[idx] = acc;
}

static void attentionCpu(float *out, const float *qkv, int B, int T, int NH, int HS) {
  const int C = NH * HS;
  float *row = (float *)malloc(T * sizeof(float));
  const float scale = 1.0f / sqrtf((float)HS);
  for (int b = 0; b < B; b++)
    for (int t = 0; t < T; t++)
      for (int h = 0; h < NH; h++) {
        const float *q = qkv + (b * T + t) * 3 * C + h * HS;
        float m = -INFINITY;
        for (int t2 = 0; t2 <= t; t2++) {
          const float *k = qkv + (b * T + t2) * 3 * C + C + h * HS;
          float dot = 0;
          for (int i = 0; i < HS; i++) dot += q[i] * k[i];
          row[t2] = dot;
          m = fmaxf(m, dot);
        }
        float s = 0;
        for (int t2 = 0; t2 <= t; t2++) {
          row[t2] = expf((row[t2] - m) * scale);
          s += row[t2];
        }
        float *o = out + (b * T + t) * C + h * HS;
        for (int i = 0; i < HS; i++) o[i] = 0;
        for (int t2 = 0; t2 <= t; t2++) {
          const float *v = qkv + (b * T + t2) * 3 * C + 2 * C + h * HS;
          for (int i = 0; i < HS; i++) o[i] += row[t2] / s * v[i];
        }
      }
  free(row);
}

int main() {
  const int B = 2, T = 256, NH = 12, HS = 64, C = NH * HS;
  printf("attention forward B=%d T=%d NH=%d HS=%d\n", B, T, NH, HS);
  float *qkv = makeRandomFloats((size_t)B * T * 3 * C, 51);
  float *ref = (float *)malloc((size_t)B * T * C * sizeof(float));
  attentionCpu(ref, qkv, B, T, NH, HS);

  float *d_qkv = deviceCopyAs<float>(qkv, (size_t)B * T * 3 * C);
  float *d_q, *d_k, *d_v, *d_preatt, *d_att, *d_out;
  cudaCheck(cudaMalloc(&d_q, (size_t)B * T * C * sizeof(float)));
  cudaCheck(cudaMalloc(&d_k, (size_t)B * T * C * sizeof(float)));
  cudaCheck(cudaMalloc(&d_v, (size_t)B * T * C * sizeof(float)));
  cudaCheck(cudaMalloc(&d_preatt, (size_t)B * NH * T * T * sizeof(float)));
  cudaCheck(cudaMalloc(&d_att, (size_t)B * NH * T * T * sizeof(float)));
  cudaCheck(cudaMalloc(&d_out, (size_t)B * T * C * sizeof(float)));

  auto forward = [&] {
    const int block = 256;
    permuteQkv<<<CEIL_DIV(B * T * C, block), block>>>(d_q, d_k, d_v, d_qkv, B, T, NH, HS);
    attentionScores<<<CEIL_DIV(B * NH * T * T, block), block>>>(d_preatt, d_q, d_k, B * NH, T, HS);
    causalSoftmax<<<CEIL_DIV(B * NH * T * WARP_SIZE, block), block>>>(d_att, d_preatt, B * NH, T,
                                                                      1.0f / sqrtf((float)HS));
    attentionValues<<<CEIL_DIV(B * T * C, block), block>>>(d_out, d_att, d_v, B, T, NH, HS);
  };
  forward();
  cudaCheck(cudaGetLastError());
  bool ok = validateResult(d_out, ref, "attention out", (size_t)B * T * C, 1e-4f);
  printf("forward: %.4f ms\n", benchmarkKernel(10, forward));

  cudaCheck(cudaFree(d_qkv));
  cudaCheck(cudaFree(d_q));
  cudaCheck(cudaFree(d_k));
  cudaCheck(cudaFree(d_v));
  cudaCheck(cudaFree(d_preatt));
  cudaCheck(cudaFree(d_att));
  cudaCheck(cudaFree(d_out));
  free(qkv);
  free(ref);
  printf("%s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
