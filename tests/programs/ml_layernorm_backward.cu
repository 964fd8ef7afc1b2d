/*
LayerNorm forward and backward for a transformer training loop, written the
way single-file LLM training code writes its kernels: activations in bf16
(floatX; -DENABLE_FP32 keeps them in float), 128-bit packed loads and stores
with streaming cache hints (__ldcs / __stcs), one warp per row through
cooperative groups (tiled_partition<32>, meta_group_rank, cg::reduce), and a
backward pass that accumulates dweight / dbias per block in dynamic shared
memory before one float atomicAdd per channel into a global scratch buffer.
A final kernel casts the scratch into floatX gradients.

Compile: nvcc -O3 --use_fast_math ml_layernorm_backward.cu -o layernorm_bwd
Run:     ./layernorm_bwd
*/
// nvcc-flags: -DENABLE_FP32
// nvcc-flags:

#include <cassert>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

// ----------------------------------------------------------------------------
// precision and utilities

#if defined(ENABLE_FP32)
typedef float floatX;
#define PRECISION_NAME "fp32"
#else
typedef __nv_bfloat16 floatX;
#define PRECISION_NAME "bf16"
#endif

#define WARP_SIZE 32U
#define CEIL_DIV(M, N) (((M) + (N) - 1) / (N))

void cuda_check(cudaError_t error, const char *file, int line) {
  if (error != cudaSuccess) {
    printf("[CUDA ERROR] at file %s:%d:\n%s\n", file, line, cudaGetErrorString(error));
    exit(EXIT_FAILURE);
  }
}
#define cudaCheck(err) (cuda_check(err, __FILE__, __LINE__))

// Sixteen bytes of elements that travel together through one ld/st.v4.
template <class Element>
struct alignas(16) Vec128 {
  static constexpr const size_t lanes = sizeof(int4) / sizeof(Element);
  Element data[lanes];

  Vec128() = default;
  __device__ explicit Vec128(int4 raw) {
    static_assert(sizeof(raw) == sizeof(data), "Vec128 must hold exactly 16 bytes");
    memcpy(&data, &raw, sizeof(raw));
  }
  __device__ static Vec128 filled(Element value) {
    Vec128 out;
#pragma unroll
    for (int k = 0; k < lanes; ++k) out.data[k] = value;
    return out;
  }
  __device__ static Vec128 zeros() { return filled(Element(0.0f)); }
  __device__ Element &operator[](int k) { return data[k]; }
  __device__ const Element &operator[](int k) const { return data[k]; }
  __device__ int4 raw() const {
    int4 bits;
    memcpy(&bits, &data, sizeof(bits));
    return bits;
  }
};

typedef Vec128<float> f128;
typedef Vec128<floatX> x128;

template <class Element>
__device__ Vec128<Element> load128(const Element *address) {
  return Vec128<Element>{*reinterpret_cast<const int4 *>(address)};
}
template <class Element>
__device__ Vec128<Element> load128cs(const Element *address) {
  return Vec128<Element>{__ldcs(reinterpret_cast<const int4 *>(address))};
}
template <class Element>
__device__ void store128(Element *target, Vec128<Element> value) {
  *reinterpret_cast<int4 *>(target) = value.raw();
}
template <class Element>
__device__ void store128cs(Element *target, Vec128<Element> value) {
  __stcs(reinterpret_cast<int4 *>(target), value.raw());
}

// ----------------------------------------------------------------------------
// kernels

// One warp per row of C channels; C must be a multiple of x128::lanes.
__global__ void layernorm_forward_kernel(floatX *__restrict__ out, float *__restrict__ mean,
                                         float *__restrict__ rstd, const floatX *__restrict__ inp,
                                         const floatX *__restrict__ weight,
                                         const floatX *__restrict__ bias, int N, int C) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  int idx = blockIdx.x * warp.meta_group_size() + warp.meta_group_rank();
  if (idx >= N) {
    return;
  }
  const floatX *x = inp + idx * C;

  float sum = 0.0f;
  for (int i = warp.thread_rank(); i < C; i += warp.size()) {
    sum += (float)x[i];
  }
  sum = cg::reduce(warp, sum, cg::plus<float>{});
  float m = sum / C;
  if (warp.thread_rank() == 0 && mean != nullptr) {
    __stcs(mean + idx, m);
  }

  sum = 0.0f;
  for (int i = warp.thread_rank(); i < C; i += warp.size()) {
    float diff = (float)x[i] - m;
    sum += diff * diff;
  }
  sum = cg::reduce(warp, sum, cg::plus<float>{});
  float s = rsqrtf(sum / C + 1e-5f);
  if (warp.thread_rank() == 0 && rstd != nullptr) {
    __stcs(rstd + idx, s);
  }

  floatX *o = out + idx * C;
  for (int c = warp.thread_rank() * x128::lanes; c < C; c += warp.size() * x128::lanes) {
    const x128 in = load128cs(x + c);
    const x128 w = load128(weight + c);
    const x128 b = load128(bias + c);
    x128 result;
#pragma unroll
    for (int k = 0; k < x128::lanes; ++k) {
      float n = s * ((float)in[k] - m);
      result[k] = (floatX)(n * (float)w[k] + (float)b[k]);
    }
    store128cs(o + c, result);
  }
}

// Each block walks rows with a stride of gridDim.x * warps; per-channel
// partial sums of dbias and dweight live in dynamic shared memory.
// Shared memory: 2 * C floats.
__global__ void __launch_bounds__(512, 2)
    layernorm_backward_kernel(floatX *dinp, float *dweight_scratch, float *dbias_scratch,
                              const floatX *dout, const floatX *inp, const floatX *weight,
                              const float *mean, const float *rstd, int B, int T, int C) {
  extern __shared__ float shared[];
  float *dbias_shared = shared;
  float *dweight_shared = shared + C;

  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  const int warps_in_grid = gridDim.x * warp.meta_group_size();
  const int base_idx = blockIdx.x * warp.meta_group_size() + warp.meta_group_rank();

  for (int i = threadIdx.x; i < C; i += blockDim.x) {
    dbias_shared[i] = 0.0f;
    dweight_shared[i] = 0.0f;
  }
  block.sync();

  for (int idx = base_idx; idx < B * T; idx += warps_in_grid) {
    const floatX *dout_bt = dout + idx * C;
    const floatX *inp_bt = inp + idx * C;
    floatX *dinp_bt = dinp + idx * C;
    const float mean_bt = mean[idx];
    const float rstd_bt = rstd[idx];

    // the two reductions of the backward pass, over the row
    float dnorm_mean = 0.0f;
    float dnorm_norm_mean = 0.0f;
    for (int i = warp.thread_rank(); i < C; i += warp.size()) {
      float norm_bti = ((float)inp_bt[i] - mean_bt) * rstd_bt;
      float dnorm_i = (float)weight[i] * (float)dout_bt[i];
      dnorm_mean += dnorm_i;
      dnorm_norm_mean += dnorm_i * norm_bti;
    }
    dnorm_mean = cg::reduce(warp, dnorm_mean, cg::plus<float>{}) / C;
    dnorm_norm_mean = cg::reduce(warp, dnorm_norm_mean, cg::plus<float>{}) / C;

    for (int i = warp.thread_rank(); i < C; i += warp.size()) {
      float norm_bti = ((float)inp_bt[i] - mean_bt) * rstd_bt;
      float dout_i = (float)__ldcs(&dout_bt[i]);
      float dnorm_i = (float)weight[i] * dout_i;
      atomicAdd(&dbias_shared[i], dout_i);
      atomicAdd(&dweight_shared[i], norm_bti * dout_i);
      float dval = dnorm_i - dnorm_mean - norm_bti * dnorm_norm_mean;
      dinp_bt[i] = (floatX)((float)dinp_bt[i] + dval * rstd_bt);
    }
  }
  block.sync();

  for (int i = threadIdx.x; i < C; i += blockDim.x) {
    atomicAdd(&dbias_scratch[i], dbias_shared[i]);
    atomicAdd(&dweight_scratch[i], dweight_shared[i]);
  }
}

__global__ void copy_and_cast_kernel(floatX *dst, const float *src, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    dst[i] = (floatX)src[i];
  }
}

// ----------------------------------------------------------------------------
// CPU reference

void layernorm_forward_cpu(float *out, float *mean, float *rstd, const float *inp,
                           const float *weight, const float *bias, int N, int C) {
  for (int n = 0; n < N; n++) {
    const float *x = inp + n * C;
    double m = 0.0;
    for (int i = 0; i < C; i++) m += x[i];
    m /= C;
    double v = 0.0;
    for (int i = 0; i < C; i++) v += (x[i] - m) * (x[i] - m);
    v /= C;
    float s = 1.0f / sqrtf((float)v + 1e-5f);
    for (int i = 0; i < C; i++) out[n * C + i] = s * (x[i] - (float)m) * weight[i] + bias[i];
    mean[n] = (float)m;
    rstd[n] = s;
  }
}

void layernorm_backward_cpu(float *dinp, float *dweight, float *dbias, const float *dout,
                            const float *inp, const float *weight, const float *mean,
                            const float *rstd, int N, int C) {
  for (int n = 0; n < N; n++) {
    const float *d = dout + n * C;
    const float *x = inp + n * C;
    float dnorm_mean = 0.0f, dnorm_norm_mean = 0.0f;
    for (int i = 0; i < C; i++) {
      float norm = (x[i] - mean[n]) * rstd[n];
      dnorm_mean += weight[i] * d[i];
      dnorm_norm_mean += weight[i] * d[i] * norm;
    }
    dnorm_mean /= C;
    dnorm_norm_mean /= C;
    for (int i = 0; i < C; i++) {
      float norm = (x[i] - mean[n]) * rstd[n];
      dbias[i] += d[i];
      dweight[i] += norm * d[i];
      dinp[n * C + i] += (weight[i] * d[i] - dnorm_mean - norm * dnorm_norm_mean) * rstd[n];
    }
  }
}

// ----------------------------------------------------------------------------
// host driver

float *make_random_float(size_t n) {
  float *v = (float *)malloc(n * sizeof(float));
  for (size_t i = 0; i < n; i++) v[i] = ((float)rand() / (float)RAND_MAX) * 2.0f - 1.0f;
  return v;
}

floatX *to_device(const float *host, size_t n) {
  floatX *converted = (floatX *)malloc(n * sizeof(floatX));
  for (size_t i = 0; i < n; i++) converted[i] = (floatX)host[i];
  floatX *device;
  cudaCheck(cudaMalloc(&device, n * sizeof(floatX)));
  cudaCheck(cudaMemcpy(device, converted, n * sizeof(floatX), cudaMemcpyHostToDevice));
  free(converted);
  return device;
}

int validate(const char *name, const floatX *device, const float *reference, size_t n,
             float tolerance) {
  floatX *host = (floatX *)malloc(n * sizeof(floatX));
  cudaCheck(cudaMemcpy(host, device, n * sizeof(floatX), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (size_t i = 0; i < n; i++) {
    float got = (float)host[i];
    if (fabsf(got - reference[i]) > tolerance + tolerance * fabsf(reference[i])) {
      if (bad < 5) printf("%s mismatch at %zu: %f vs %f\n", name, i, got, reference[i]);
      bad++;
    }
  }
  free(host);
  printf("%s: %s\n", name, bad == 0 ? "OK" : "FAILED");
  return bad;
}

int main(int argc, char **argv) {
  srand(0);
  const int B = 8, T = 256, C = 768;
  const int N = B * T;
  const float tolerance = sizeof(floatX) == 4 ? 1e-3f : 5e-2f;
  printf("layernorm forward/backward, %s, B=%d T=%d C=%d\n", PRECISION_NAME, B, T, C);

  float *inp = make_random_float(N * C);
  float *weight = make_random_float(C);
  float *bias = make_random_float(C);
  float *dout = make_random_float(N * C);
  float *out = (float *)malloc(N * C * sizeof(float));
  float *mean = (float *)malloc(N * sizeof(float));
  float *rstd = (float *)malloc(N * sizeof(float));
  float *dinp = (float *)calloc(N * C, sizeof(float));
  float *dweight = (float *)calloc(C, sizeof(float));
  float *dbias = (float *)calloc(C, sizeof(float));
  layernorm_forward_cpu(out, mean, rstd, inp, weight, bias, N, C);
  layernorm_backward_cpu(dinp, dweight, dbias, dout, inp, weight, mean, rstd, N, C);

  floatX *d_inp = to_device(inp, N * C);
  floatX *d_weight = to_device(weight, C);
  floatX *d_bias = to_device(bias, C);
  floatX *d_dout = to_device(dout, N * C);
  floatX *d_out, *d_dinp, *d_dweight, *d_dbias;
  float *d_mean, *d_rstd, *d_scratch;
  cudaCheck(cudaMalloc(&d_out, N * C * sizeof(floatX)));
  cudaCheck(cudaMalloc(&d_dinp, N * C * sizeof(floatX)));
  cudaCheck(cudaMalloc(&d_dweight, C * sizeof(floatX)));
  cudaCheck(cudaMalloc(&d_dbias, C * sizeof(floatX)));
  cudaCheck(cudaMalloc(&d_mean, N * sizeof(float)));
  cudaCheck(cudaMalloc(&d_rstd, N * sizeof(float)));
  cudaCheck(cudaMalloc(&d_scratch, 2 * C * sizeof(float)));
  cudaCheck(cudaMemset(d_dinp, 0, N * C * sizeof(floatX)));
  cudaCheck(cudaMemset(d_scratch, 0, 2 * C * sizeof(float)));

  cudaDeviceProp props;
  cudaCheck(cudaGetDeviceProperties(&props, 0));

  const int block_size = 256;
  const int grid_forward = CEIL_DIV(N * (int)WARP_SIZE, block_size);
  layernorm_forward_kernel<<<grid_forward, block_size>>>(d_out, d_mean, d_rstd, d_inp, d_weight,
                                                         d_bias, N, C);
  cudaCheck(cudaGetLastError());

  const size_t shared_bytes = 2 * C * sizeof(float);
  cudaCheck(cudaFuncSetAttribute(layernorm_backward_kernel,
                                 cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared_bytes));
  const int grid_backward = 2 * props.multiProcessorCount;
  cudaEvent_t start, stop;
  cudaCheck(cudaEventCreate(&start));
  cudaCheck(cudaEventCreate(&stop));
  cudaCheck(cudaEventRecord(start));
  layernorm_backward_kernel<<<grid_backward, 512, shared_bytes>>>(
      d_dinp, d_scratch, d_scratch + C, d_dout, d_inp, d_weight, d_mean, d_rstd, B, T, C);
  cudaCheck(cudaGetLastError());
  copy_and_cast_kernel<<<CEIL_DIV(C, 256), 256>>>(d_dweight, d_scratch, C);
  copy_and_cast_kernel<<<CEIL_DIV(C, 256), 256>>>(d_dbias, d_scratch + C, C);
  cudaCheck(cudaEventRecord(stop));
  cudaCheck(cudaEventSynchronize(stop));
  float elapsed_ms = 0.0f;
  cudaCheck(cudaEventElapsedTime(&elapsed_ms, start, stop));
  printf("backward: %.3f ms\n", elapsed_ms);

  int bad = 0;
  bad += validate("out", d_out, out, N * C, tolerance);
  bad += validate("dinp", d_dinp, dinp, N * C, tolerance);
  bad += validate("dweight", d_dweight, dweight, C, tolerance * 10);
  bad += validate("dbias", d_dbias, dbias, C, tolerance * 10);

  free(inp); free(weight); free(bias); free(dout); free(out);
  free(mean); free(rstd); free(dinp); free(dweight); free(dbias);
  cudaCheck(cudaFree(d_inp)); cudaCheck(cudaFree(d_weight)); cudaCheck(cudaFree(d_bias));
  cudaCheck(cudaFree(d_dout)); cudaCheck(cudaFree(d_out)); cudaCheck(cudaFree(d_dinp));
  cudaCheck(cudaFree(d_dweight)); cudaCheck(cudaFree(d_dbias)); cudaCheck(cudaFree(d_mean));
  cudaCheck(cudaFree(d_rstd)); cudaCheck(cudaFree(d_scratch));
  cudaCheck(cudaEventDestroy(start));
  cudaCheck(cudaEventDestroy(stop));
  return bad == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
