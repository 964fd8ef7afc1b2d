// nvcc-flags: -I tests/programs/options/include
// nvcc-flags: -I tests/programs/options/include -DUSE_FAST_MATH_PATH
//
// European option pricing: closed-form Black-Scholes in float and double
// through the templates of finmath.cuh (shared with the host reference),
// a Monte Carlo estimate whose normal draws come from an inverse CDF over
// a Weyl sequence, and a binomial-tree check of one option from lgamma
// weights. USE_FAST_MATH_PATH switches the float kernel to the polynomial
// CDF and intrinsics (__expf, __logf, __fdividef, rsqrtf).

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "finmath.cuh"

#define CUDA_CHECK(expr)                                                     \
  do {                                                                       \
    cudaError_t _e = (expr);                                                 \
    if (_e != cudaSuccess) {                                                 \
      fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(_e),    \
              __FILE__, __LINE__);                                           \
      std::exit(1);                                                          \
    }                                                                        \
  } while (0)

static const float RISKFREE = 0.02f;
static const float VOLATILITY = 0.30f;

template <typename T>
__global__ void priceOptions(T *call, T *put, const T *S, const T *X,
                             const T *years, T r, T v, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x) {
    fm::OptionPrice<T> p = fm::blackScholes(S[i], X[i], years[i], r, v);
    call[i] = p.call;
    put[i] = p.put;
  }
}

#ifdef USE_FAST_MATH_PATH
template <>
__global__ void priceOptions<float>(float *call, float *put, const float *S,
                                    const float *X, const float *years,
                                    float r, float v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float t = years[i];
  float sqrtT = t * rsqrtf(t);
  float d1 = __fdividef(__logf(S[i] / X[i]) + (r + 0.5f * v * v) * t,
                        v * sqrtT);
  float d2 = d1 - v * sqrtT;
  float expRT = __expf(-r * t);
  float c1 = fm::cndPoly(d1), c2 = fm::cndPoly(d2);
  call[i] = S[i] * c1 - X[i] * expRT * c2;
  put[i] = X[i] * expRT * (1.0f - c2) - S[i] * (1.0f - c1);
}
#endif

// Monte Carlo: thread i averages `paths` terminal payoffs; draws are the
// inverse normal CDF of a Weyl sequence offset by the thread.
__global__ void monteCarloCall(float *partial, float S, float X, float t,
                               float r, float v, int paths) {
  __shared__ float sums[128];
  const float alpha = 0.6180339887498949f;
  float u = fmodf((blockIdx.x * blockDim.x + threadIdx.x) * 0.7548776662f, 1.0f);
  float drift = (r - 0.5f * v * v) * t, vol = v * sqrtf(t);
  float acc = 0.f;
  for (int p = 0; p < paths; ++p) {
    u += alpha;
    u -= floorf(u);
    float z = fm::invCnd(fminf(fmaxf(u, 1e-6f), 1.0f - 1e-6f));
    float ST = S * expf(drift + vol * z);
    acc += fmaxf(ST - X, 0.f);
  }
  sums[threadIdx.x] = acc;
  __syncthreads();
  for (int s = blockDim.x >> 1; s > 0; s >>= 1) {
    if (threadIdx.x < s) sums[threadIdx.x] += sums[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = sums[0] * expf(-r * t) / paths;
}

// Binomial model with `steps` steps: thread k computes the weight of the
// k-th terminal node and its payoff; the host sums.
__global__ void binomialTerms(float *terms, float S, float X, float t,
                              float r, float v, int steps) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k > steps) return;
  float dt = t / steps;
  float up = expf(v * sqrtf(dt)), down = 1.0f / up;
  float q = (expf(r * dt) - down) / (up - down);
  float logW = fm::logChoose((float)steps, (float)k) + k * logf(q) +
               (steps - k) * log1pf(-q);
  float ST = S * powf(up, 2.0f * k - steps);
  float payoff = fmaxf(ST - X, 0.f);
  terms[k] = fm::signedMagnitude(expf(logW) * payoff * expf(-r * t), 1.0f);
}

// Rescales prices in place by a power of two and back; checks frexp/ldexp.
__global__ void roundTrip(float *v, int n, int shift) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = fm::scaleByPow2(fm::scaleByPow2(v[i], shift), -shift);
}

template <typename T>
static int runBlackScholes(int n, double tol) {
  std::vector<T> S(n), X(n), Y(n), call(n), put(n);
  for (int i = 0; i < n; ++i) {
    S[i] = T(5 + (i % 25));
    X[i] = T(1 + (i % 97));
    Y[i] = T(0.25 + (i % 10) * 0.5);
  }
  T *d[5];
  for (auto &p : d) CUDA_CHECK(cudaMalloc(&p, n * sizeof(T)));
  CUDA_CHECK(cudaMemcpy(d[2], S.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d[3], X.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d[4], Y.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  priceOptions<T><<<120, 256>>>(d[0], d[1], d[2], d[3], d[4], T(RISKFREE),
                                T(VOLATILITY), n);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(call.data(), d[0], n * sizeof(T), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(put.data(), d[1], n * sizeof(T), cudaMemcpyDeviceToHost));
  double maxErr = 0;
  for (int i = 0; i < n; ++i) {
    fm::OptionPrice<T> ref = fm::blackScholes<T>(S[i], X[i], Y[i], T(RISKFREE),
                                                 T(VOLATILITY));
    maxErr = fmax(maxErr, fabs((double)ref.call - call[i]));
    maxErr = fmax(maxErr, fabs((double)ref.put - put[i]));
  }
  for (auto p : d) cudaFree(p);
  printf("Black-Scholes (%zu-byte) max abs error %.3e\n", sizeof(T), maxErr);
  return maxErr < tol ? 0 : 1;
}

int main() {
  int failures = runBlackScholes<float>(1 << 16, 1e-3);
  failures += runBlackScholes<double>(1 << 16, 1e-9);

  const float S = 40.f, X = 42.f, T = 1.0f;
  const int blocks = 64, threads = 128, paths = 256, steps = 500;
  float *d_partial, *d_terms;
  CUDA_CHECK(cudaMalloc(&d_partial, blocks * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_terms, (steps + 1) * sizeof(float)));
  monteCarloCall<<<blocks, threads>>>(d_partial, S, X, T, RISKFREE,
                                      VOLATILITY, paths);
  binomialTerms<<<(steps + 128) / 128, 128>>>(d_terms, S, X, T, RISKFREE,
                                              VOLATILITY, steps);
  roundTrip<<<1, 128>>>(d_partial, blocks, 7);
  std::vector<float> partial(blocks), terms(steps + 1);
  CUDA_CHECK(cudaMemcpy(partial.data(), d_partial, blocks * sizeof(float),
                        cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(terms.data(), d_terms, (steps + 1) * sizeof(float),
                        cudaMemcpyDeviceToHost));
  double mc = 0, tree = 0;
  for (float p : partial) mc += p;
  mc /= blocks * threads;
  for (float t : terms) tree += t;
  double exact = fm::blackScholes<double>(S, X, T, RISKFREE, VOLATILITY).call;
  printf("call: closed form %.4f, Monte Carlo %.4f, binomial %.4f\n", exact,
         mc, tree);
  failures += fabs(mc - exact) > 0.05 * exact;
  failures += fabs(tree - exact) > 0.01 * exact;
  cudaFree(d_partial);
  cudaFree(d_terms);
  printf("%s\n", failures ? "FAILED" : "PASSED");
  return failures;
}
