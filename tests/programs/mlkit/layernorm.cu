// LayerNorm forward over rows of C channels: out = (x - mean) * rstd * w + b,
// also saving mean and rstd for the backward pass. Three kernels:
//   1. one thread per row (the baseline),
//   2. one warp per row, shuffles for the two reductions,
//   3. one warp per row with 128-bit loads and stores of floatX and the
//      row kept in registers between the passes.
// Build with -DMLKIT_BF16 to store activations in bf16.
//
// nvcc-flags:
// nvcc-flags: -DMLKIT_BF16

#include "mlkit.cuh"

// ---- CPU reference ---------------------------------------------------------

static void layernormCpu(float *out, float *mean, float *rstd, const float *inp,
                         const float *weight, const float *bias, int N, int C) {
  const float eps = 1e-5f;
  for (int n = 0; n < N; n++) {
    const float *x = inp + n * C;
    float m = 0.0f;
    for (int i = 0; i < C; i++) m += x[i];
    m /= C;
    float v = 0.0f;
    for (int i = 0; i < C; i++) v += (x[i] - m) * (x[i] - m);
    v /= C;
    float s = 1.0f / sqrtf(v + eps);
    for (int i = 0; i < C; i++) out[n * C + i] = (x[i] - m) * s * weight[i] + bias[i];
    mean[n] = m;
    rstd[n] = s;
  }
}

// ---- kernels -------------------------------------------------------------

__global__ void layernormRowPerThread(floatX *out, float *mean, float *rstd,
                                      const floatX *inp, const floatX *weight,
                                      const floatX *bias, int N, int C) {
  int n = blockIdx.x * blockDim.x + threadIdx.x;
  if (n >= N) return;
  const floatX *x = inp + n * C;
  float m = 0.0f;
  for (int i = 0; i < C; i++) m += toFloat(x[i]);
  m /= C;
  float v = 0.0f;
  for (int i = 0; i < C; i++) {
    float d = toFloat(x[i]) - m;
    v += d * d;
  }
  float s = rsqrtf(v / C + 1e-5f);
  for (int i = 0; i < C; i++) {
    float y = (toFloat(x[i]) - m) * s * toFloat(weight[i]) + toFloat(bias[i]);
    out[n * C + i] = fromFloat<floatX>(y);
  }
  mean[n] = m;
  rstd[n] = s;
}

__global__ void layernormWarpPerRow(floatX *__restrict__ out, float *__restrict__ mean,
                                    float *__restrict__ rstd, const floatX *__restrict__ inp,
                                    const floatX *__restrict__ weight,
                                    const floatX *__restrict__ bias, int N, int C) {
  int lane = threadIdx.x % WARP_SIZE;
  int n = (blockIdx.x * blockDim.x + threadIdx.x) / WARP_SIZE;
  if (n >= N) return; // whole warps leave together
  const floatX *x = inp + n * C;

  float sum = 0.0f;
  for (int i = lane; i < C; i += WARP_SIZE) sum += toFloat(x[i]);
  float m = warpSum(sum) / C;
  float sq = 0.0f;
  for (int i = lane; i < C; i += WARP_SIZE) {
    float d = toFloat(x[i]) - m;
    sq += d * d;
  }
  float s = rsqrtf(warpSum(sq) / C + 1e-5f);
  for (int i = lane; i < C; i += WARP_SIZE) {
    float y = (toFloat(x[i]) - m) * s * toFloat(weight[i]) + toFloat(bias[i]);
    out[n * C + i] = fromFloat<floatX>(y);
  }
  if (lane == 0) {
    mean[n] = m;
    rstd[n] = s;
  }
}

// C must be a multiple of WARP_SIZE * Pack128<floatX>::size and at most
// MAX_PACKS of them per lane.
template <int MAX_PACKS>
__global__ void __launch_bounds__(256)
layernormPacked(floatX *__restrict__ out, float *__restrict__ mean, float *__restrict__ rstd,
                const floatX *__restrict__ inp, const floatX *__restrict__ weight,
                const floatX *__restrict__ bias, int N, int C) {
  using P = Pack128<floatX>;
  int lane = threadIdx.x % WARP_SIZE;
  int n = (blockIdx.x * blockDim.x + threadIdx.x) / WARP_SIZE;
  if (n >= N) return;
  const int packs = C / (WARP_SIZE * P::size);
  const floatX *x = inp + (size_t)n * C;

  P cache[MAX_PACKS];
  float sum = 0.0f;
#pragma unroll
  for (int p = 0; p < MAX_PACKS; p++) {
    if (p < packs) {
      cache[p] = load128cs(x + (p * WARP_SIZE + lane) * P::size);
      for (int k = 0; k < P::size; k++) sum += toFloat(cache[p][k]);
    }
  }
  float m = warpSum(sum) / C;
  float sq = 0.0f;
#pragma unroll
  for (int p = 0; p < MAX_PACKS; p++) {
    if (p < packs)
      for (int k = 0; k < P::size; k++) {
        float d = toFloat(cache[p][k]) - m;
        sq += d * d;
      }
  }
  float s = rsqrtf(warpSum(sq) / C + 1e-5f);
#pragma unroll
  for (int p = 0; p < MAX_PACKS; p++) {
    if (p < packs) {
      int c = (p * WARP_SIZE + lane) * P::size;
      P w = load128(weight + c), b = load128(bias + c), y;
      for (int k = 0; k < P::size; k++)
        y[k] = fromFloat<floatX>((toFloat(cache[p][k]) - m) * s * toFloat(w[k]) + toFloat(b[k]));
      store128cs(out + (size_t)n * C + c, y);
    }
  }
  if (lane == 0) {
    mean[n] = m;
    rstd[n] = s;
  }
}

int main(int argc, char **argv) {
  const int B = 8, T = 512, C = 768;
  const int N = B * T;
  int kernel = argc > 1 ? atoi(argv[1]) : 0; // 0: run all
  printf("layernorm forward, %s activations, N=%d C=%d\n", FLOATX_NAME, N, C);

  float *inp = makeRandomFloats(N * C, 1);
  float *weight = makeRandomFloats(C, 2, 0.5f, 1.5f);
  float *bias = makeRandomFloats(C, 3, -0.2f, 0.2f);
  float *out = (float *)malloc(N * C * sizeof(float));
  float *mean = (float *)malloc(N * sizeof(float));
  float *rstd = (float *)malloc(N * sizeof(float));
  layernormCpu(out, mean, rstd, inp, weight, bias, N, C);

  floatX *d_inp = deviceCopyAs<floatX>(inp, N * C);
  floatX *d_weight = deviceCopyAs<floatX>(weight, C);
  floatX *d_bias = deviceCopyAs<floatX>(bias, C);
  floatX *d_out;
  float *d_mean, *d_rstd;
  cudaCheck(cudaMalloc(&d_out, N * C * sizeof(floatX)));
  cudaCheck(cudaMalloc(&d_mean, N * sizeof(float)));
  cudaCheck(cudaMalloc(&d_rstd, N * sizeof(float)));

  const float tol = std::is_same<floatX, float>::value ? 1e-4f : 3e-2f;
  bool ok = true;
  for (int k = 1; k <= 3; k++) {
    if (kernel && kernel != k) continue;
    auto launch = [&]() {
      const int block = 256;
      switch (k) {
      case 1:
        layernormRowPerThread<<<CEIL_DIV(N, block), block>>>(d_out, d_mean, d_rstd, d_inp,
                                                              d_weight, d_bias, N, C);
        break;
      case 2:
        layernormWarpPerRow<<<CEIL_DIV(N * WARP_SIZE, block), block>>>(
            d_out, d_mean, d_rstd, d_inp, d_weight, d_bias, N, C);
        break;
      default:
        layernormPacked<8><<<CEIL_DIV(N * WARP_SIZE, block), block>>>(
            d_out, d_mean, d_rstd, d_inp, d_weight, d_bias, N, C);
        break;
      }
    };
    cudaCheck(cudaMemset(d_out, 0, N * C * sizeof(floatX)));
    launch();
    cudaCheck(cudaGetLastError());
    printf("kernel %d\n", k);
    ok &= validateResult(d_out, out, "out", N * C, tol);
    ok &= validateResult(d_mean, mean, "mean", N, 1e-4f);
    ok &= validateResult(d_rstd, rstd, "rstd", N, 1e-3f);
    float ms = benchmarkKernel(20, launch);
    printf("kernel %d: %.4f ms\n", k, ms);
  }

  cudaCheck(cudaFree(d_inp));
  cudaCheck(cudaFree(d_weight));
  cudaCheck(cudaFree(d_bias));
  cudaCheck(cudaFree(d_out));
  cudaCheck(cudaFree(d_mean));
  cudaCheck(cudaFree(d_rstd));
  free(inp); free(weight); free(bias); free(out); free(mean); free(rstd);
  printf("%s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
