// Fused softmax + cross-entropy over the vocabulary, forward and backward.
// logits are (BT, Vp) with a padded row stride Vp >= V; only the first V
// columns are real. One block per row:
//   losses[bt] = logsumexp(logits[bt, :V]) - logits[bt, target]
//   dlogits[bt, v] = (softmax(logits[bt])[v] - [v == target]) * dloss
// The padded columns of dlogits are zeroed.

#include "mlkit.cuh"

struct SoftmaxStats {
  float scale;  // 1 / sum(exp(x - max))
  float offset; // max
};

__device__ SoftmaxStats rowSoftmaxStats(const floatX *row, int V) {
  float maxval = -INFINITY;
  for (int i = threadIdx.x; i < V; i += blockDim.x) maxval = fmaxf(maxval, toFloat(row[i]));
  maxval = blockReduce<warpMax>(maxval, -INFINITY);
  float sum = 0.0f;
  for (int i = threadIdx.x; i < V; i += blockDim.x) sum += expf(toFloat(row[i]) - maxval);
  sum = blockReduce<warpSum>(sum, 0.0f);
  return SoftmaxStats{1.0f / sum, maxval};
}

__global__ void crossEntropyFused(float *losses, floatX *dlogits, const floatX *logits,
                                  const int *targets, int V, int Vp, float dloss) {
  const size_t rowOffset = (size_t)blockIdx.x * Vp;
  const floatX *row = logits + rowOffset;
  const int target = targets[blockIdx.x];
  SoftmaxStats st = rowSoftmaxStats(row, V);

  if (threadIdx.x == 0) {
    float prob = expf(toFloat(row[target]) - st.offset) * st.scale;
    losses[blockIdx.x] = -logf(prob);
  }
  for (int i = threadIdx.x; i < Vp; i += blockDim.x) {
    float g = 0.0f;
    if (i < V) {
      float prob = expf(toFloat(row[i]) - st.offset) * st.scale;
      g = (prob - (i == target ? 1.0f : 0.0f)) * dloss;
    }
    dlogits[rowOffset + i] = fromFloat<floatX>(g);
  }
}

int main() {
  const int B = 4, T = 64, V = 50257, Vp = 50304;
  const int BT = B * T;
  printf("fused cross-entropy: BT=%d V=%d Vp=%d (%s)\n", BT, V, Vp, FLOATX_NAME);

  float *logits = makeRandomFloats((size_t)BT * Vp, 41, -5.0f, 5.0f);
  int *targets = (int *)malloc(BT * sizeof(int));
  for (int i = 0; i < BT; ++i) targets[i] = (i * 7919) % V;

  floatX *d_logits = deviceCopyAs<floatX>(logits, (size_t)BT * Vp);
  // Reference from the rounded logits, as the device sees them.
  floatX *rounded = (floatX *)malloc((size_t)BT * Vp * sizeof(floatX));
  cudaCheck(cudaMemcpy(rounded, d_logits, (size_t)BT * Vp * sizeof(floatX), cudaMemcpyDeviceToHost));
  float *lossRef = (float *)malloc(BT * sizeof(float));
  float *gradRef = (float *)malloc((size_t)BT * Vp * sizeof(float));
  const float dloss = 1.0f / BT;
  for (int r = 0; r < BT; ++r) {
    const floatX *row = rounded + (size_t)r * Vp;
    double m = -INFINITY, s = 0;
    for (int i = 0; i < V; ++i) m = fmax(m, (double)(float)row[i]);
    for (int i = 0; i < V; ++i) s += exp((double)(float)row[i] - m);
    lossRef[r] = (float)(log(s) + m - (double)(float)row[targets[r]]);
    for (int i = 0; i < Vp; ++i)
      gradRef[(size_t)r * Vp + i] =
          i < V ? (float)((exp((double)(float)row[i] - m) / s - (i == targets[r])) * dloss) : 0.0f;
  }

  int *d_targets;
  float *d_losses;
  floatX *d_dlogits;
  cudaCheck(cudaMalloc(&d_targets, BT * sizeof(int)));
  cudaCheck(cudaMalloc(&d_losses, BT * sizeof(float)));
  cudaCheck(cudaMalloc(&d_dlogits, (size_t)BT * Vp * sizeof(floatX)));
  cudaCheck(cudaMemcpy(d_targets, targets, BT * sizeof(int), cudaMemcpyHostToDevice));

  auto launch = [&] {
    crossEntropyFused<<<BT, 1024>>>(d_losses, d_dlogits, d_logits, d_targets, V, Vp, dloss);
  };
  launch();
  cudaCheck(cudaGetLastError());
  bool ok = validateResult(d_losses, lossRef, "losses", BT, 1e-4f);
  ok &= validateResult(d_dlogits, gradRef, "dlogits", (size_t)BT * Vp,
                       std::is_same<floatX, float>::value ? 1e-6f : 1e-3f);
  printf("fused kernel: %.4f ms\n", benchmarkKernel(5, launch));

  cudaCheck(cudaFree(d_logits));
  cudaCheck(cudaFree(d_targets));
  cudaCheck(cudaFree(d_losses));
  cudaCheck(cudaFree(d_dlogits));
  free(logits); free(targets); free(rounded); free(lossRef); free(gradRef);
  printf("%s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
