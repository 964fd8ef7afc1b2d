// A bootstrap particle filter tracking a robot on a 1-D corridor from noisy
// range measurements to a wall, with the device API of cuRAND:
//   - one Philox generator state per particle (curandStatePhilox4_32_10_t),
//     set up by curand_init with the particle's index as subsequence;
//   - predict: move every particle by the control input plus Gaussian
//     noise (curand_normal2, two draws per call);
//   - weight: a Gaussian likelihood of the measurement, the block's sum of
//     weights by shared-memory tree reduction and one atomicAdd per block;
//   - resample: systematic resampling, the CDF built by a one-block scan
//     and each new particle found by binary search from a single uniform
//     draw (curand_uniform) shared by all;
//   - estimate: the weighted mean by atomicAdd.
// The host simulates the true trajectory with <random> and reports the
// tracking error, which must stay within a few noise widths.

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include <cuda_runtime.h>
#include <curand_kernel.h>

#define CHECK_CUDA(call)                                                              \
  {                                                                                   \
    cudaError_t status = (call);                                                      \
    if (status != cudaSuccess) {                                                      \
      fprintf(stderr, "%s:%d %s -> %s\n", __FILE__, __LINE__, #call,                  \
              cudaGetErrorString(status));                                            \
      exit(EXIT_FAILURE);                                                             \
    }                                                                                 \
  }

#define BLOCK 256
#define WALL 100.0f

typedef curandStatePhilox4_32_10_t RngState;

__global__ void setupRng(RngState *states, unsigned long long seed, int n) {
  int id = blockIdx.x * blockDim.x + threadIdx.x;
  if (id < n) curand_init(seed, id, 0, &states[id]);
}

__global__ void initParticles(float *pos, RngState *states, float lo, float hi, int n) {
  int id = blockIdx.x * blockDim.x + threadIdx.x;
  if (id >= n) return;
  RngState local = states[id];
  pos[id] = lo + (hi - lo) * curand_uniform(&local);
  states[id] = local;
}

// Pairs of particles share one curand_normal2 call; n is even.
__global__ void predict(float *pos, RngState *states, float control, float sigma, int n) {
  int pair = blockIdx.x * blockDim.x + threadIdx.x;
  if (2 * pair >= n) return;
  RngState local = states[pair];
  float2 noise = curand_normal2(&local);
  pos[2 * pair] += control + sigma * noise.x;
  pos[2 * pair + 1] += control + sigma * noise.y;
  states[pair] = local;
}

__device__ __forceinline__ float likelihood(float predicted, float measured, float sigma) {
  float d = (predicted - measured) / sigma;
  return __expf(-0.5f * d * d);
}

// w[i] = p(z | x_i); *total += sum of w.
__global__ void weigh(float *__restrict__ w, float *__restrict__ total,
                      const float *__restrict__ pos, float z, float sigma, int n) {
  __shared__ float partial[BLOCK];
  int id = blockIdx.x * blockDim.x + threadIdx.x;
  float wi = 0.0f;
  if (id < n) {
    wi = likelihood(WALL - pos[id], z, sigma);
    w[id] = wi;
  }
  partial[threadIdx.x] = wi;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(total, partial[0]);
}

// Inclusive scan of normalized weights into cdf, by one block of BLOCK
// threads, each owning a contiguous chunk.
__global__ void buildCdf(float *__restrict__ cdf, const float *__restrict__ w,
                         const float *__restrict__ total, int n) {
  __shared__ float chunkSums[BLOCK];
  const int per = (n + blockDim.x - 1) / blockDim.x;
  const int begin = threadIdx.x * per, end = min(begin + per, n);
  const float inv = 1.0f / *total;
  float running = 0.0f;
  for (int i = begin; i < end; ++i) {
    running += w[i] * inv;
    cdf[i] = running;
  }
  chunkSums[threadIdx.x] = running;
  __syncthreads();
  for (int offset = 1; offset < blockDim.x; offset <<= 1) {
    float add = threadIdx.x >= offset ? chunkSums[threadIdx.x - offset] : 0.0f;
    __syncthreads();
    chunkSums[threadIdx.x] += add;
    __syncthreads();
  }
  const float before = threadIdx.x > 0 ? chunkSums[threadIdx.x - 1] : 0.0f;
  for (int i = begin; i < end; ++i) cdf[i] += before;
}

__device__ int lowerBound(const float *cdf, int n, float u) {
  int lo = 0, hi = n - 1;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (cdf[mid] < u) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// Systematic resampling: particle i takes the one where the CDF crosses
// (u0 + i) / n.
__global__ void resample(float *__restrict__ out, const float *__restrict__ pos,
                         const float *__restrict__ cdf, float u0, int n) {
  int id = blockIdx.x * blockDim.x + threadIdx.x;
  if (id < n) out[id] = pos[lowerBound(cdf, n, (u0 + id) / n)];
}

__global__ void drawOffset(float *u0, RngState *states) {
  RngState local = states[0];
  *u0 = curand_uniform(&local);
  states[0] = local;
}

__global__ void weightedMean(float *__restrict__ mean, const float *__restrict__ pos,
                             const float *__restrict__ w, const float *__restrict__ total, int n) {
  int id = blockIdx.x * blockDim.x + threadIdx.x;
  if (id < n) atomicAdd(mean, pos[id] * w[id] / *total);
}

int main(int argc, char **argv) {
  const int n = argc > 1 ? atoi(argv[1]) & ~1 : 1 << 14;
  const int steps = 40;
  const float motionSigma = 0.3f, sensorSigma = 1.0f, control = 1.0f;
  const int blocks = (n + BLOCK - 1) / BLOCK;

  float *pos, *next, *w, *cdf, *scalars;  // scalars: total, mean, u0
  RngState *states;
  CHECK_CUDA(cudaMalloc(&pos, n * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&next, n * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&w, n * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&cdf, n * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&scalars, 3 * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&states, n * sizeof(RngState)));

  setupRng<<<blocks, BLOCK>>>(states, 2024ULL, n);
  initParticles<<<blocks, BLOCK>>>(pos, states, 0.0f, 40.0f, n);
  CHECK_CUDA(cudaGetLastError());

  std::mt19937 gen(7);
  std::normal_distribution<float> motion(0.0f, motionSigma), sensor(0.0f, sensorSigma);
  float truth = 10.0f, worst = 0.0f;
  for (int t = 0; t < steps; ++t) {
    truth += control + motion(gen);
    const float z = WALL - truth + sensor(gen);

    predict<<<(n / 2 + BLOCK - 1) / BLOCK, BLOCK>>>(pos, states, control, motionSigma, n);
    CHECK_CUDA(cudaMemset(scalars, 0, 3 * sizeof(float)));
    weigh<<<blocks, BLOCK>>>(w, scalars, pos, z, sensorSigma, n);
    weightedMean<<<blocks, BLOCK>>>(scalars + 1, pos, w, scalars, n);
    buildCdf<<<1, BLOCK>>>(cdf, w, scalars, n);
    drawOffset<<<1, 1>>>(scalars + 2, states);
    resample<<<blocks, BLOCK>>>(next, pos, cdf, 0.0f, n);
    CHECK_CUDA(cudaGetLastError());

    float host[3];
    CHECK_CUDA(cudaMemcpy(host, scalars, sizeof(host), cudaMemcpyDeviceToHost));
    // The offset drawn on the device only reaches the resampler through
    // the host here, as a plain float argument.
    resample<<<blocks, BLOCK>>>(next, pos, cdf, host[2], n);
    std::swap(pos, next);
    const float err = std::fabs(host[1] - truth);
    if (t >= 5) worst = std::fmax(worst, err);
    if (t % 10 == 0) printf("step %2d truth %7.3f estimate %7.3f\n", t, truth, host[1]);
  }
  CHECK_CUDA(cudaDeviceSynchronize());
  printf("worst error after burn-in: %.3f\n", worst);

  cudaFree(pos);
  cudaFree(next);
  cudaFree(w);
  cudaFree(cdf);
  cudaFree(scalars);
  cudaFree(states);
  return worst < 3.0f ? 0 : 1;
}
