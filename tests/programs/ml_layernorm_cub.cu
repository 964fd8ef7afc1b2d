// LayerNorm forward and a row softmax, one block per row, with the row
// statistics reduced by cub::BlockReduce, as LLM-training code writes them:
// the mean and the variance are two block sums (the TempStorage reused
// after a barrier), the softmax's maximum a reduction with cuda::maximum,
// and the result broadcast through shared memory from thread 0. A partial
// last pass (`C` not a multiple of the block) uses Sum(x, num_valid).
// The host checks both against a CPU reference and times them with events.
#include <cub/cub.cuh>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                                  \
  do {                                                                                    \
    cudaError_t err_ = (call);                                                            \
    if (err_ != cudaSuccess) {                                                            \
      fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(err_), __FILE__,      \
              __LINE__);                                                                  \
      exit(EXIT_FAILURE);                                                                 \
    }                                                                                     \
  } while (0)

template <int BLOCK>
__global__ void layernormForward(float *__restrict__ out, float *__restrict__ mean,
                                 float *__restrict__ rstd, const float *__restrict__ inp,
                                 const float *__restrict__ weight, const float *__restrict__ bias,
                                 int C) {
  typedef cub::BlockReduce<float, BLOCK> BlockReduce;
  __shared__ typename BlockReduce::TempStorage temp;
  __shared__ float s_mean, s_rstd;
  const float *x = inp + (size_t)blockIdx.x * C;

  float sum = 0.0f;
  for (int i = threadIdx.x; i < C; i += BLOCK) sum += x[i];
  float total = BlockReduce(temp).Sum(sum);
  if (threadIdx.x == 0) s_mean = total / C;
  __syncthreads();
  const float m = s_mean;

  float sq = 0.0f;
  for (int i = threadIdx.x; i < C; i += BLOCK) {
    float d = x[i] - m;
    sq += d * d;
  }
  float var = BlockReduce(temp).Sum(sq);
  if (threadIdx.x == 0) s_rstd = rsqrtf(var / C + 1e-5f);
  __syncthreads();
  const float s = s_rstd;

  for (int i = threadIdx.x; i < C; i += BLOCK) {
    out[(size_t)blockIdx.x * C + i] = (x[i] - m) * s * weight[i] + bias[i];
  }
  if (threadIdx.x == 0) {
    mean[blockIdx.x] = m;
    rstd[blockIdx.x] = s;
  }
}

// Softmax over rows of C <= BLOCK elements: threads past C hold no item.
template <int BLOCK>
__global__ void softmaxRows(float *out, const float *inp, int C) {
  typedef cub::BlockReduce<float, BLOCK> BlockReduce;
  __shared__ typename BlockReduce::TempStorage temp;
  __shared__ float s_max, s_sum;
  const int t = threadIdx.x;
  const float v = t < C ? inp[(size_t)blockIdx.x * C + t] : -INFINITY;
  float mx = BlockReduce(temp).Reduce(v, cuda::maximum<>(), C);
  if (t == 0) s_max = mx;
  __syncthreads();
  const float e = t < C ? expf(v - s_max) : 0.0f;
  float total = BlockReduce(temp).Sum(e, C);
  if (t == 0) s_sum = total;
  __syncthreads();
  if (t < C) out[(size_t)blockIdx.x * C + t] = e / s_sum;
}

static void layernormCpu(std::vector<float> &out, const std::vector<float> &inp,
                         const std::vector<float> &w, const std::vector<float> &b, int N,
                         int C) {
  for (int r = 0; r < N; ++r) {
    const float *x = &inp[(size_t)r * C];
    double m = 0.0;
    for (int i = 0; i < C; ++i) m += x[i];
    m /= C;
    double v = 0.0;
    for (int i = 0; i < C; ++i) v += (x[i] - m) * (x[i] - m);
    double s = 1.0 / std::sqrt(v / C + 1e-5);
    for (int i = 0; i < C; ++i) out[(size_t)r * C + i] = (float)((x[i] - m) * s * w[i] + b[i]);
  }
}

int main() {
  const int N = 64, C = 768, SC = 200;
  std::vector<float> inp((size_t)N * C), w(C), b(C), ref((size_t)N * C), out((size_t)N * C);
  srand(7);
  for (auto &v : inp) v = (float)rand() / RAND_MAX * 2.0f - 1.0f;
  for (int i = 0; i < C; ++i) {
    w[i] = 1.0f + 0.01f * (i % 7);
    b[i] = 0.001f * (i % 5);
  }
  float *d_inp, *d_out, *d_w, *d_b, *d_mean, *d_rstd, *d_soft;
  CUDA_CHECK(cudaMalloc(&d_inp, inp.size() * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_out, out.size() * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_w, C * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_b, C * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_mean, N * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_rstd, N * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_soft, (size_t)N * SC * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d_inp, inp.data(), inp.size() * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_w, w.data(), C * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_b, b.data(), C * sizeof(float), cudaMemcpyHostToDevice));

  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  CUDA_CHECK(cudaEventRecord(start));
  layernormForward<256><<<N, 256>>>(d_out, d_mean, d_rstd, d_inp, d_w, d_b, C);
  layernormForward<128><<<N, 128>>>(d_out, d_mean, d_rstd, d_inp, d_w, d_b, C);
  softmaxRows<256><<<N, 256>>>(d_soft, d_inp, SC);
  CUDA_CHECK(cudaEventRecord(stop));
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaEventSynchronize(stop));
  float ms = 0.0f;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));

  CUDA_CHECK(cudaMemcpy(out.data(), d_out, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
  layernormCpu(ref, inp, w, b, N, C);
  double worst = 0.0;
  for (size_t i = 0; i < out.size(); ++i) worst = std::fmax(worst, std::fabs(out[i] - ref[i]));
  std::vector<float> soft((size_t)N * SC);
  CUDA_CHECK(cudaMemcpy(soft.data(), d_soft, soft.size() * sizeof(float), cudaMemcpyDeviceToHost));
  double rowSum = 0.0;
  for (int i = 0; i < SC; ++i) rowSum += soft[i];
  printf("layernorm max error %g, softmax row sum %.6f, %.3f ms\n", worst, rowSum, ms);

  cudaFree(d_inp);
  cudaFree(d_out);
  cudaFree(d_w);
  cudaFree(d_b);
  cudaFree(d_mean);
  cudaFree(d_rstd);
  cudaFree(d_soft);
  return worst < 1e-3 && std::fabs(rowSum - 1.0) < 1e-4 ? 0 : 1;
}
