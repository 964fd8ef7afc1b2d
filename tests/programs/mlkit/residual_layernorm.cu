// Fused residual add + LayerNorm, the transformer block's
//   residual = x + f(x);  out = layernorm(residual)
// in one pass: each warp owns a row, computes and stores the residual
// sum, keeps it in shared memory (dynamic, one row per warp), and
// normalizes from there. Weight and bias are staged once per block.

#include "mlkit.cuh"

__global__ void fusedResidualLayernorm(floatX *__restrict__ residual, floatX *__restrict__ normed,
                                       float *__restrict__ mean, float *__restrict__ rstd,
                                       const floatX *__restrict__ inp1,
                                       const floatX *__restrict__ inp2,
                                       const floatX *__restrict__ weight,
                                       const floatX *__restrict__ bias, int N, int C) {
  extern __shared__ float smem[];
  const int warps = blockDim.x / WARP_SIZE;
  float *sWeight = smem;
  float *sBias = smem + C;
  float *sRow = smem + 2 * C + (threadIdx.x / WARP_SIZE) * C;

  for (int i = threadIdx.x; i < C; i += blockDim.x) {
    sWeight[i] = toFloat(weight[i]);
    sBias[i] = toFloat(bias[i]);
  }
  __syncthreads();

  const int lane = threadIdx.x % WARP_SIZE;
  const int row = blockIdx.x * warps + threadIdx.x / WARP_SIZE;
  if (row >= N) return; // no barrier after this point

  const size_t base = (size_t)row * C;
  float sum = 0.0f;
  for (int i = lane; i < C; i += WARP_SIZE) {
    floatX r = fromFloat<floatX>(toFloat(inp1[base + i]) + toFloat(inp2[base + i]));
    residual[base + i] = r;
    float rf = toFloat(r); // normalize what was stored, rounded or not
    sRow[i] = rf;
    sum += rf;
  }
  __syncwarp();
  const float m = warpSum(sum) / C;
  float sq = 0.0f;
  for (int i = lane; i < C; i += WARP_SIZE) {
    float d = sRow[i] - m;
    sq += d * d;
  }
  const float s = rsqrtf(warpSum(sq) / C + 1e-5f);
  for (int i = lane; i < C; i += WARP_SIZE)
    normed[base + i] = fromFloat<floatX>((sRow[i] - m) * s * sWeight[i] + sBias[i]);
  if (lane == 0) {
    mean[row] = m;
    rstd[row] = s;
  }
}

int main() {
  const int N = 4 * 1024, C = 1024;
  const int block = 256, warps = block / WARP_SIZE;
  printf("fused residual + layernorm, N=%d C=%d (%s)\n", N, C, FLOATX_NAME);

  float *in1 = makeRandomFloats((size_t)N * C, 71);
  float *in2 = makeRandomFloats((size_t)N * C, 72, -0.5f, 0.5f);
  float *w = makeRandomFloats(C, 73, 0.8f, 1.2f);
  float *b = makeRandomFloats(C, 74, -0.1f, 0.1f);

  floatX *d_in1 = deviceCopyAs<floatX>(in1, (size_t)N * C);
  floatX *d_in2 = deviceCopyAs<floatX>(in2, (size_t)N * C);
  floatX *d_w = deviceCopyAs<floatX>(w, C);
  floatX *d_b = deviceCopyAs<floatX>(b, C);
  floatX *d_res, *d_out;
  float *d_mean, *d_rstd;
  cudaCheck(cudaMalloc(&d_res, (size_t)N * C * sizeof(floatX)));
  cudaCheck(cudaMalloc(&d_out, (size_t)N * C * sizeof(floatX)));
  cudaCheck(cudaMalloc(&d_mean, N * sizeof(float)));
  cudaCheck(cudaMalloc(&d_rstd, N * sizeof(float)));

  // Reference from the inputs as rounded to floatX.
  floatX *tmp = (floatX *)malloc((size_t)N * C * sizeof(floatX));
  cudaCheck(cudaMemcpy(tmp, d_in1, (size_t)N * C * sizeof(floatX), cudaMemcpyDeviceToHost));
  for (size_t i = 0; i < (size_t)N * C; ++i) in1[i] = (float)tmp[i];
  cudaCheck(cudaMemcpy(tmp, d_in2, (size_t)N * C * sizeof(floatX), cudaMemcpyDeviceToHost));
  for (size_t i = 0; i < (size_t)N * C; ++i) in2[i] = (float)tmp[i];
  floatX wx[C], bx[C];
  cudaCheck(cudaMemcpy(wx, d_w, sizeof(wx), cudaMemcpyDeviceToHost));
  cudaCheck(cudaMemcpy(bx, d_b, sizeof(bx), cudaMemcpyDeviceToHost));

  float *resRef = (float *)malloc((size_t)N * C * sizeof(float));
  float *outRef = (float *)malloc((size_t)N * C * sizeof(float));
  for (int r = 0; r < N; ++r) {
    double m = 0, v = 0;
    for (int i = 0; i < C; ++i) {
      size_t k = (size_t)r * C + i;
      resRef[k] = (float)floatX(in1[k] + in2[k]);
      m += resRef[k];
    }
    m /= C;
    for (int i = 0; i < C; ++i) v += (resRef[(size_t)r * C + i] - m) * (resRef[(size_t)r * C + i] - m);
    double s = 1.0 / sqrt(v / C + 1e-5);
    for (int i = 0; i < C; ++i) {
      size_t k = (size_t)r * C + i;
      outRef[k] = (float)((resRef[k] - m) * s * (float)wx[i] + (float)bx[i]);
    }
  }

  size_t smem = (2 + warps) * C * sizeof(float);
  cudaCheck(cudaFuncSetAttribute(fusedResidualLayernorm, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 (int)smem));
  fusedResidualLayernorm<<<CEIL_DIV(N, warps), block, smem>>>(d_res, d_out, d_mean, d_rstd, d_in1,
                                                               d_in2, d_w, d_b, N, C);
  cudaCheck(cudaGetLastError());
  const bool fp32 = std::is_same<floatX, float>::value;
  bool ok = validateResult(d_res, resRef, "residual", (size_t)N * C, fp32 ? 1e-6f : 1e-2f);
  ok &= validateResult(d_out, outRef, "normed", (size_t)N * C, fp32 ? 1e-4f : 2e-2f);

  cudaCheck(cudaFree(d_in1)); cudaCheck(cudaFree(d_in2));
  cudaCheck(cudaFree(d_w)); cudaCheck(cudaFree(d_b));
  cudaCheck(cudaFree(d_res)); cudaCheck(cudaFree(d_out));
  cudaCheck(cudaFree(d_mean)); cudaCheck(cudaFree(d_rstd));
  free(in1); free(in2); free(w); free(b); free(tmp); free(resRef); free(outRef);
  printf("%s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
