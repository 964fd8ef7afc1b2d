// Row softmax over the last dimension, out[n, :] = softmax(inp[n, :]),
// three ways:
//   softmaxBlock<BLOCK>: one block per row, block-wide max and sum
//                        (template over the block size),
//   softmaxOnline:       one warp per row, the "online" single pass that
//                        keeps a running max and rescales the running sum,
//   softmaxCausal:       the attention variant: row t of each (b, h) only
//                        sees columns 0..t, the rest become 0.
// Inputs are fp32; outputs are floatX.

#include "mlkit.cuh"

template <int BLOCK>
__global__ void softmaxBlock(floatX *__restrict__ out, const float *__restrict__ inp, int C) {
  static_assert(BLOCK % WARP_SIZE == 0 && BLOCK <= 1024, "block must be whole warps");
  const float *x = inp + (size_t)blockIdx.x * C;
  float maxval = -INFINITY;
  for (int i = threadIdx.x; i < C; i += BLOCK) maxval = fmaxf(maxval, x[i]);
  maxval = blockReduce<warpMax>(maxval, -INFINITY);
  float sum = 0.0f;
  for (int i = threadIdx.x; i < C; i += BLOCK) sum += expf(x[i] - maxval);
  sum = blockReduce<warpSum>(sum, 0.0f);
  float norm = 1.0f / sum;
  for (int i = threadIdx.x; i < C; i += BLOCK)
    out[(size_t)blockIdx.x * C + i] = fromFloat<floatX>(expf(x[i] - maxval) * norm);
}

__global__ void softmaxOnline(floatX *__restrict__ out, const float *__restrict__ inp, int N,
                              int C) {
  int lane = threadIdx.x % WARP_SIZE;
  int row = blockIdx.x * (blockDim.x / WARP_SIZE) + threadIdx.x / WARP_SIZE;
  if (row >= N) return;
  const float *x = inp + (size_t)row * C;

  float runningMax = -INFINITY, runningSum = 0.0f;
  for (int i = lane; i < C; i += WARP_SIZE) {
    float v = x[i];
    if (v > runningMax) {
      runningSum *= expf(runningMax - v);
      runningMax = v;
    }
    runningSum += expf(v - runningMax);
  }
  // Merge the lanes' (max, sum) pairs.
  float rowMax = warpMax(runningMax);
  runningSum *= expf(runningMax - rowMax);
  float rowSum = warpSum(runningSum);
  for (int i = lane; i < C; i += WARP_SIZE)
    out[(size_t)row * C + i] = fromFloat<floatX>(expf(x[i] - rowMax) / rowSum);
}

// inp and out are (B * NH, T, T); one warp per row t.
__global__ void softmaxCausal(floatX *out, const float *inp, int BNH, int T, float scale) {
  int lane = threadIdx.x % WARP_SIZE;
  int row = blockIdx.x * (blockDim.x / WARP_SIZE) + threadIdx.x / WARP_SIZE;
  if (row >= BNH * T) return;
  int t = row % T;
  const float *x = inp + (size_t)row * T;
  float maxval = -INFINITY;
  for (int i = lane; i <= t; i += WARP_SIZE) maxval = fmaxf(maxval, x[i] * scale);
  maxval = warpMax(maxval);
  float sum = 0.0f;
  for (int i = lane; i <= t; i += WARP_SIZE) sum += expf(x[i] * scale - maxval);
  sum = warpSum(sum);
  for (int i = lane; i < T; i += WARP_SIZE) {
    float p = i <= t ? expf(x[i] * scale - maxval) / sum : 0.0f;
    out[(size_t)row * T + i] = fromFloat<floatX>(p);
  }
}

static void softmaxCpu(float *out, const float *inp, int N, int C, int causalT, float scale) {
  for (int n = 0; n < N; ++n) {
    const float *x = inp + (size_t)n * C;
    int limit = causalT ? (n % causalT) + 1 : C;
    double maxval = -INFINITY;
    for (int i = 0; i < limit; ++i) maxval = fmax(maxval, x[i] * scale);
    double sum = 0;
    for (int i = 0; i < limit; ++i) sum += exp(x[i] * scale - maxval);
    for (int i = 0; i < C; ++i)
      out[(size_t)n * C + i] = i < limit ? (float)(exp(x[i] * scale - maxval) / sum) : 0.0f;
  }
}

int main() {
  const int N = 4096, C = 2000; // C is not a multiple of anything in particular
  const int B = 4, NH = 6, T = 128;
  float *inp = makeRandomFloats((size_t)N * C, 31, -8.0f, 8.0f);
  float *ref = (float *)malloc((size_t)N * C * sizeof(float));
  softmaxCpu(ref, inp, N, C, 0, 1.0f);

  float *d_inp = deviceCopyAs<float>(inp, (size_t)N * C);
  floatX *d_out;
  cudaCheck(cudaMalloc(&d_out, (size_t)N * C * sizeof(floatX)));
  const float tol = std::is_same<floatX, float>::value ? 1e-5f : 1e-2f;
  bool ok = true;

  softmaxBlock<256><<<N, 256>>>(d_out, d_inp, C);
  cudaCheck(cudaGetLastError());
  ok &= validateResult(d_out, ref, "softmaxBlock<256>", (size_t)N * C, tol);
  softmaxBlock<512><<<N, 512>>>(d_out, d_inp, C);
  cudaCheck(cudaGetLastError());
  ok &= validateResult(d_out, ref, "softmaxBlock<512>", (size_t)N * C, tol);
  cudaCheck(cudaMemset(d_out, 0, (size_t)N * C * sizeof(floatX)));
  softmaxOnline<<<CEIL_DIV(N, 8), 256>>>(d_out, d_inp, N, C);
  cudaCheck(cudaGetLastError());
  ok &= validateResult(d_out, ref, "softmaxOnline", (size_t)N * C, tol);

  // causal attention scores
  const int rows = B * NH * T;
  const float scale = 1.0f / sqrtf(64.0f);
  float *att = makeRandomFloats((size_t)rows * T, 32, -20.0f, 20.0f);
  float *attRef = (float *)malloc((size_t)rows * T * sizeof(float));
  softmaxCpu(attRef, att, rows, T, T, scale);
  float *d_att = deviceCopyAs<float>(att, (size_t)rows * T);
  floatX *d_probs;
  cudaCheck(cudaMalloc(&d_probs, (size_t)rows * T * sizeof(floatX)));
  softmaxCausal<<<CEIL_DIV(rows, 4), 128>>>(d_probs, d_att, B * NH, T, scale);
  cudaCheck(cudaGetLastError());
  ok &= validateResult(d_probs, attRef, "softmaxCausal", (size_t)rows * T, tol);

  cudaCheck(cudaFree(d_inp));
  cudaCheck(cudaFree(d_out));
  cudaCheck(cudaFree(d_att));
  cudaCheck(cudaFree(d_probs));
  free(inp); free(ref); free(att); free(attRef);
  printf("%s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
