// GELU (tanh approximation) forward and backward over a flat activation
// tensor, with Pack128 loads/stores of floatX and a grid sized so that
// each thread handles exactly one pack. N must be a multiple of the pack
// size (it is, for any realistic hidden size).
//
// nvcc-flags:
// nvcc-flags: -DMLKIT_BF16

#include "mlkit.cuh"

#define GELU_SCALING_FACTOR 0.7978845608028654f // sqrt(2 / pi)

__host__ __device__ inline float geluForward(float x) {
  float cube = 0.044715f * x * x * x;
  return 0.5f * x * (1.0f + tanhf(GELU_SCALING_FACTOR * (x + cube)));
}

__host__ __device__ inline float geluDerivative(float x) {
  float cube = 0.044715f * x * x * x;
  float tanhArg = GELU_SCALING_FACTOR * (x + cube);
  float tanhOut = tanhf(tanhArg);
  float coshOut = coshf(tanhArg);
  float sech2 = 1.0f / (coshOut * coshOut);
  return 0.5f * (1.0f + tanhOut) +
         x * 0.5f * sech2 * GELU_SCALING_FACTOR * (1.0f + 3.0f * 0.044715f * x * x);
}

// Scalar version, one element per thread.
__global__ void geluForwardScalar(floatX *out, const floatX *inp, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) out[i] = fromFloat<floatX>(geluForward(toFloat(inp[i])));
}

__global__ void geluForwardPacked(floatX *out, const floatX *inp, int N) {
  using P = Pack128<floatX>;
  int i = (blockIdx.x * blockDim.x + threadIdx.x) * P::size;
  if (i >= N) return;
  P in = load128cs(inp + i);
  P result;
#pragma unroll
  for (int k = 0; k < P::size; ++k) result[k] = fromFloat<floatX>(geluForward(toFloat(in[k])));
  store128(out + i, result);
}

// dinp = dout * gelu'(inp), in place over dinout (which holds dout on entry).
__global__ void geluBackwardInplace(floatX *dinout, const floatX *inp, int N) {
  using P = Pack128<floatX>;
  int i = (blockIdx.x * blockDim.x + threadIdx.x) * P::size;
  if (i >= N) return;
  P x = load128cs(inp + i);
  P d = load128(dinout + i);
#pragma unroll
  for (int k = 0; k < P::size; ++k)
    d[k] = fromFloat<floatX>(toFloat(d[k]) * geluDerivative(toFloat(x[k])));
  store128(dinout + i, d);
}

int main() {
  const int B = 8, T = 1024, C = 768;
  const int N = B * T * 4 * C; // the MLP's hidden activation
  printf("GELU over %d %s elements\n", N, FLOATX_NAME);

  float *inp = makeRandomFloats(N, 11, -4.0f, 4.0f);
  float *dout = makeRandomFloats(N, 12);
  float *outRef = (float *)malloc(N * sizeof(float));
  float *dinpRef = (float *)malloc(N * sizeof(float));
  for (int i = 0; i < N; ++i) {
    outRef[i] = geluForward(inp[i]);
    dinpRef[i] = dout[i] * geluDerivative(inp[i]);
  }

  floatX *d_inp = deviceCopyAs<floatX>(inp, N);
  floatX *d_dinout = deviceCopyAs<floatX>(dout, N);
  floatX *d_out;
  cudaCheck(cudaMalloc(&d_out, N * sizeof(floatX)));

  const float tol = std::is_same<floatX, float>::value ? 1e-5f : 2e-2f;
  const int block = 512;
  const int packSize = Pack128<floatX>::size;
  bool ok = true;

  geluForwardScalar<<<CEIL_DIV(N, block), block>>>(d_out, d_inp, N);
  cudaCheck(cudaGetLastError());
  ok &= validateResult(d_out, outRef, "gelu scalar", N, tol);

  cudaCheck(cudaMemset(d_out, 0, N * sizeof(floatX)));
  auto forward = [&] { geluForwardPacked<<<CEIL_DIV(N / packSize, block), block>>>(d_out, d_inp, N); };
  forward();
  cudaCheck(cudaGetLastError());
  ok &= validateResult(d_out, outRef, "gelu packed", N, tol);
  printf("packed forward: %.4f ms\n", benchmarkKernel(10, forward));

  geluBackwardInplace<<<CEIL_DIV(N / packSize, block), block>>>(d_dinout, d_inp, N);
  cudaCheck(cudaGetLastError());
  ok &= validateResult(d_dinout, dinpRef, "gelu backward", N, std::is_same<floatX, float>::value ? 1e-4f : 3e-2f);

  cudaCheck(cudaFree(d_inp));
  cudaCheck(cudaFree(d_dinout));
  cudaCheck(cudaFree(d_out));
  free(inp); free(dout); free(outRef); free(dinpRef);
  printf("%s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
