// AdamW optimizer step. Parameters live in floatX with an fp32 master
// copy; gradients are floatX; the moments m and v are fp32. When the
// parameters are bf16, the master weight is rounded to bf16 stochastically
// with a per-element hash as the random source, so small updates are not
// lost on average.

#include "mlkit.cuh"

struct AdamWConfig {
  float lr, beta1, beta2, eps, weightDecay;
  float beta1Correction, beta2Correction; // 1 - beta^t
};

__device__ __host__ inline unsigned int hashIndex(unsigned int x, unsigned int seed) {
  x ^= seed * 0x9E3779B9u;
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

template <typename T>
__device__ inline T roundParam(float value, unsigned int random) {
  if constexpr (std::is_same<T, __nv_bfloat16>::value) {
    // Add random bits below the bf16 mantissa, then truncate.
    unsigned int bits = __float_as_uint(value);
    bits += (random & 0xFFFFu);
    bits &= 0xFFFF0000u;
    return __float2bfloat16_rz(__uint_as_float(bits));
  } else {
    return fromFloat<T>(value);
  }
}

__device__ inline float lerpf(float start, float end, float weight) {
  return fmaf(weight, end, fmaf(-weight, start, start));
}

template <typename Tp, typename Tg>
__global__ void adamwKernel(Tp *params, float *masterParams, const Tg *grads, float *m,
                            float *v, size_t numParams, AdamWConfig cfg, unsigned int seed) {
  size_t idx = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (idx >= numParams) return;
  float grad = toFloat(grads[idx]);
  float mi = lerpf(grad, m[idx], cfg.beta1);
  float vi = lerpf(grad * grad, v[idx], cfg.beta2);
  m[idx] = mi;
  v[idx] = vi;
  mi /= cfg.beta1Correction;
  vi /= cfg.beta2Correction;
  float old = masterParams != nullptr ? masterParams[idx] : toFloat(params[idx]);
  float updated = old - cfg.lr * (mi / (sqrtf(vi) + cfg.eps) + cfg.weightDecay * old);
  params[idx] = roundParam<Tp>(updated, hashIndex((unsigned int)idx, seed));
  if (masterParams != nullptr) masterParams[idx] = updated;
}

static void adamwCpu(float *params, const float *grads, float *m, float *v, size_t n,
                     const AdamWConfig &cfg) {
  for (size_t i = 0; i < n; ++i) {
    float mi = cfg.beta1 * m[i] + (1 - cfg.beta1) * grads[i];
    float vi = cfg.beta2 * v[i] + (1 - cfg.beta2) * grads[i] * grads[i];
    m[i] = mi;
    v[i] = vi;
    float mh = mi / cfg.beta1Correction, vh = vi / cfg.beta2Correction;
    params[i] -= cfg.lr * (mh / (sqrtf(vh) + cfg.eps) + cfg.weightDecay * params[i]);
  }
}

int main() {
  const size_t numParams = 1 << 22;
  const int steps = 3;
  printf("AdamW, %zu %s parameters, %d steps\n", numParams, FLOATX_NAME, steps);

  float *params = makeRandomFloats(numParams, 21);
  float *grads = makeRandomFloats(numParams, 22, -0.1f, 0.1f);
  float *m = (float *)calloc(numParams, sizeof(float));
  float *v = (float *)calloc(numParams, sizeof(float));

  floatX *d_params = deviceCopyAs<floatX>(params, numParams);
  floatX *d_grads = deviceCopyAs<floatX>(grads, numParams);
  float *d_master = deviceCopyAs<float>(params, numParams);
  float *d_m, *d_v;
  cudaCheck(cudaMalloc(&d_m, numParams * sizeof(float)));
  cudaCheck(cudaMalloc(&d_v, numParams * sizeof(float)));
  cudaCheck(cudaMemset(d_m, 0, numParams * sizeof(float)));
  cudaCheck(cudaMemset(d_v, 0, numParams * sizeof(float)));

  // The CPU sees the gradients as the device does (rounded to floatX).
  floatX *roundedGrads = (floatX *)malloc(numParams * sizeof(floatX));
  cudaCheck(cudaMemcpy(roundedGrads, d_grads, numParams * sizeof(floatX), cudaMemcpyDeviceToHost));
  for (size_t i = 0; i < numParams; ++i) grads[i] = (float)roundedGrads[i];

  AdamWConfig cfg = {1e-3f, 0.9f, 0.999f, 1e-8f, 0.01f, 0.0f, 0.0f};
  for (int t = 1; t <= steps; ++t) {
    cfg.beta1Correction = 1.0f - powf(cfg.beta1, (float)t);
    cfg.beta2Correction = 1.0f - powf(cfg.beta2, (float)t);
    const int block = 512;
    adamwKernel<<<CEIL_DIV(numParams, block), block>>>(d_params, d_master, d_grads, d_m, d_v,
                                                        numParams, cfg, 1234u + t);
    cudaCheck(cudaGetLastError());
    adamwCpu(params, grads, m, v, numParams, cfg);
  }

  bool ok = validateResult(d_master, params, "master params", numParams, 1e-5f);
  ok &= validateResult(d_m, m, "m", numParams, 1e-5f);
  ok &= validateResult(d_v, v, "v", numParams, 1e-5f);
  ok &= validateResult(d_params, params, "params", numParams,
                       std::is_same<floatX, float>::value ? 1e-5f : 1e-2f);

  cudaCheck(cudaFree(d_params));
  cudaCheck(cudaFree(d_grads));
  cudaCheck(cudaFree(d_master));
  cudaCheck(cudaFree(d_m));
  cudaCheck(cudaFree(d_v));
  free(params); free(grads); free(m); free(v); free(roundedGrads);
  printf("%s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
