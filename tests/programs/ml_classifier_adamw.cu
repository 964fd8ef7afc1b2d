/*
The tail of a GPT training step, as single-file LLM training code writes it:
  - gelu_forward / gelu_backward_inplace over packed 128-bit vectors,
  - fused_classifier: softmax, cross-entropy loss and the logits' gradient in
    one pass per row, the row's max and normalizer from a block-wide
    reduction over a padded vocabulary (V real columns, P in memory),
  - adamw_kernel: the AdamW update with an fp32 master copy and stochastic
    rounding of bf16 parameters from a per-element hash.
Activations are bf16 by default; -DENABLE_FP32 keeps them in float.

Compile: nvcc -O3 --use_fast_math ml_classifier_adamw.cu -o classifier
*/
// nvcc-flags: -DENABLE_FP32
// nvcc-flags:

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#if defined(ENABLE_FP32)
typedef float floatX;
#else
typedef __nv_bfloat16 floatX;
#endif

#define WARP_SIZE 32U
#define CEIL_DIV(M, N) (((M) + (N) - 1) / (N))
#define GELU_SCALING_FACTOR sqrtf(2.0f / M_PI)

#define cudaCheck(call)                                                          \
  do {                                                                           \
    cudaError_t err_ = (call);                                                   \
    if (err_ != cudaSuccess) {                                                   \
      fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(err_),      \
              __FILE__, __LINE__);                                               \
      exit(EXIT_FAILURE);                                                        \
    }                                                                            \
  } while (0)

// ----------------------------------------------------------------------------
// packed access

template <class T>
struct alignas(16) Packed128 {
  static constexpr const int size = sizeof(int4) / sizeof(T);
  T payload[size];

  __device__ Packed128() {}
  __device__ explicit Packed128(int4 bits) { memcpy(&payload, &bits, sizeof(bits)); }
  __device__ T &operator[](int index) { return payload[index]; }
  __device__ const T &operator[](int index) const { return payload[index]; }
  __device__ int4 get_bits() const {
    int4 bits;
    memcpy(&bits, &payload, sizeof(bits));
    return bits;
  }
};
typedef Packed128<floatX> x128;

template <class T>
__device__ Packed128<T> load128cs(const T *address) {
  return Packed128<T>{__ldcs(reinterpret_cast<const int4 *>(address))};
}
template <class T>
__device__ void store128(T *target, Packed128<T> value) {
  *reinterpret_cast<int4 *>(target) = value.get_bits();
}
template <class T>
__device__ void store128cg(T *target, Packed128<T> value) {
  __stcg(reinterpret_cast<int4 *>(target), value.get_bits());
}

// ----------------------------------------------------------------------------
// reductions

__device__ inline float warpReduceSum(float val) {
  for (int offset = 16; offset > 0; offset /= 2) {
    val += __shfl_xor_sync(0xFFFFFFFF, val, offset);
  }
  return val;
}
__device__ inline float warpReduceMax(float val) {
  for (int offset = 16; offset > 0; offset /= 2) {
    val = fmaxf(val, __shfl_xor_sync(0xFFFFFFFF, val, offset));
  }
  return val;
}

using reduction_func_t = float (*)(float);

// Every thread of the block gets the result. final_sync guards the shared
// array when the same reduction runs twice in a row.
template <reduction_func_t warp_reduction>
__device__ inline float blockReduce(float val, bool final_sync = false,
                                    float out_of_bounds = 0.0f) {
  __shared__ float shared_val[WARP_SIZE];
  const int lane_id = threadIdx.x % WARP_SIZE;
  const int warp_id = threadIdx.x / WARP_SIZE;
  const int num_warps = blockDim.x / WARP_SIZE;

  float warp_val = warp_reduction(val);
  if (lane_id == 0) {
    shared_val[warp_id] = warp_val;
  }
  __syncthreads();
  warp_val = (lane_id < num_warps) ? shared_val[lane_id] : out_of_bounds;
  float block_val = warp_reduction(warp_val);
  if (final_sync) {
    __syncthreads();
  }
  return block_val;
}

// ----------------------------------------------------------------------------
// GELU

__global__ void gelu_forward_kernel(floatX *out, const floatX *inp, int N) {
  int i = (blockIdx.x * blockDim.x + threadIdx.x) * x128::size;
  if (i < N) {
    x128 packed_out;
    x128 packed_inp = load128cs(inp + i);
    for (int k = 0; k < packed_inp.size; ++k) {
      float xi = (float)packed_inp[k];
      float cube = 0.044715f * xi * xi * xi;
      packed_out[k] = (floatX)(0.5f * xi * (1.0f + tanhf(GELU_SCALING_FACTOR * (xi + cube))));
    }
    store128(out + i, packed_out);
  }
}

__global__ void gelu_backward_inplace_kernel(floatX *d_in_out, const floatX *inp, int N) {
  int i = (blockIdx.x * blockDim.x + threadIdx.x) * x128::size;
  if (i < N) {
    x128 packed_dinp;
    x128 packed_inp = load128cs(inp + i);
    x128 packed_dout = load128cs(d_in_out + i);
    for (int k = 0; k < packed_inp.size; ++k) {
      float x = (float)packed_inp[k];
      float cube = 0.044715f * x * x * x;
      float tanh_arg = GELU_SCALING_FACTOR * (x + cube);
      float tanh_out = tanhf(tanh_arg);
      float coshf_out = coshf(tanh_arg);
      float sech_out = 1.0f / (coshf_out * coshf_out);
      float local_grad = 0.5f * (1.0f + tanh_out) +
                         x * 0.5f * sech_out * GELU_SCALING_FACTOR * (1.0f + 3.0f * 0.044715f * x * x);
      packed_dinp[k] = (floatX)(local_grad * (float)packed_dout[k]);
    }
    store128(d_in_out + i, packed_dinp);
  }
}

// ----------------------------------------------------------------------------
// fused softmax + cross-entropy + backward

struct SoftmaxParams {
  float Scale;
  float Offset;
};

__device__ SoftmaxParams prepare_softmax_blockwide(int64_t idx, const floatX *inp, int V, int P) {
  // walk the row backwards so that its start is still in cache afterwards
  const floatX *x = inp + idx * P;
  float thread_maxval = -INFINITY;
  float thread_sumval = 0.0f;
  int i = (V + x128::size - 1) / x128::size + threadIdx.x - blockDim.x;
  for (; i >= 0; i -= blockDim.x) {
    x128 packed_x = load128cs(x + i * x128::size);
    for (int k = 0; k < x128::size; ++k) {
      if (i * x128::size + k >= V) {
        break;
      }
      float v = (float)packed_x[k];
      float old_maxval = thread_maxval;
      thread_maxval = fmaxf(thread_maxval, v);
      thread_sumval *= expf(old_maxval - thread_maxval);
      thread_sumval += expf(v - thread_maxval);
    }
  }
  float block_maxval = blockReduce<warpReduceMax>(thread_maxval, false, -INFINITY);
  thread_sumval *= expf(thread_maxval - block_maxval);
  float block_sumval = blockReduce<warpReduceSum>(thread_sumval);
  return SoftmaxParams{1.0f / block_sumval, block_maxval};
}

// One block per row (b, t): writes the loss, and overwrites the logits with
// their gradient. probs may be null.
__global__ void __launch_bounds__(1024, 1)
    fused_classifier_kernel(floatX *logits, float *losses, floatX *probs, const float dloss,
                            const int *targets, int B, int T, int V, int P) {
  int64_t idx = gridDim.x - (blockIdx.x + 1); // reverse order for cache hits on the matmul
  int ix = targets[idx];

  SoftmaxParams sp = prepare_softmax_blockwide(idx, logits, V, P);

  if (threadIdx.x == 0) {
    float prob = expf((float)logits[idx * P + ix] - sp.Offset) * sp.Scale;
    losses[idx] = -logf(prob);
  }

  const floatX *logits_vec = logits + idx * P;
  for (int i = threadIdx.x; i < V / x128::size; i += blockDim.x) {
    x128 packed_logits_vec = load128cs(logits_vec + i * x128::size);
    x128 packed_probs;
    for (int k = 0; k < x128::size; ++k) {
      int element = i * x128::size + k;
      float prob = expf((float)packed_logits_vec[k] - sp.Offset) * sp.Scale;
      packed_probs[k] = (floatX)prob;
      float indicator = (element == ix) ? 1.0f : 0.0f;
      packed_logits_vec[k] = (floatX)((prob - indicator) * dloss);
    }
    if (probs != nullptr) {
      store128(probs + idx * P + i * x128::size, packed_probs);
    }
    store128(logits + idx * P + i * x128::size, packed_logits_vec);
  }

  // the few columns past the last full pack
  int unaligned_start = V & ~(x128::size - 1);
  for (int i = threadIdx.x + unaligned_start; i < V; i += blockDim.x) {
    float prob = expf((float)logits_vec[i] - sp.Offset) * sp.Scale;
    float indicator = (i == ix) ? 1.0f : 0.0f;
    logits[idx * P + i] = (floatX)((prob - indicator) * dloss);
    if (probs != nullptr) {
      probs[idx * P + i] = (floatX)prob;
    }
  }
}

// ----------------------------------------------------------------------------
// AdamW with stochastic rounding

// A small integer hash of a position and a seed (bits mixed with odd
// multipliers and xorshifts).
__device__ __host__ constexpr unsigned int mix_noise(unsigned int position, unsigned int seed) {
  constexpr unsigned int kMul1 = 0xB5297A4Du;
  constexpr unsigned int kMul2 = 0x68E31DA4u;
  constexpr unsigned int kMul3 = 0x1B56C4E9u;
  unsigned int bits = position * kMul1;
  bits += seed;
  bits ^= (bits >> 8);
  bits += kMul2;
  bits ^= (bits << 8);
  bits *= kMul3;
  bits ^= (bits >> 8);
  return bits;
}

__device__ __host__ constexpr unsigned int mix_noise_2d(int x, int y, unsigned int seed) {
  constexpr unsigned int kPrime = 198491317u;
  return mix_noise(x + kPrime * y, seed);
}

// Round a float to bf16 up or down with probability by the distance.
__device__ __forceinline__ void stochastic_rounding(float in, __nv_bfloat16 *out,
                                                    unsigned int seed) {
  unsigned int random = mix_noise_2d(threadIdx.x, blockIdx.x * blockDim.x + blockIdx.y, seed);
  unsigned int threshold = random & 0xFFFF;
  unsigned int float_bits = __float_as_uint(in);
  unsigned int rounded_bits = float_bits & 0x0000FFFF;
  float_bits = (rounded_bits > threshold) ? (float_bits | 0xFFFF) : (float_bits & ~0xFFFF);
  *out = __float2bfloat16_rn(__uint_as_float(float_bits));
}
__device__ __forceinline__ void stochastic_rounding(float in, float *out, unsigned int seed) {
  *out = in;
}

__device__ inline float lerp(float start, float end, float weight) {
  return fma(weight, end, fma(-weight, start, start));
}

template <typename Tp, typename Tg>
__device__ void adamw_update(Tp *params_memory, float *master_params_memory, Tg *grads_memory,
                             float *m_memory, float *v_memory, size_t num_parameters,
                             float learning_rate, float beta1, float beta2,
                             float beta1_correction, float beta2_correction, float eps,
                             float weight_decay, float grad_scale, unsigned int seed) {
  size_t idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= num_parameters) {
    return;
  }
  float grad = grad_scale * (float)grads_memory[idx];
  float m = m_memory[idx];
  float v = v_memory[idx];
  m = lerp(grad, m, beta1);
  m_memory[idx] = m;
  v = lerp(grad * grad, v, beta2);
  v_memory[idx] = v;
  m /= beta1_correction;
  v /= beta2_correction;
  float old_param = (master_params_memory != nullptr) ? master_params_memory[idx]
                                                      : (float)params_memory[idx];
  float param = old_param - (learning_rate * (m / (sqrtf(v) + eps) + weight_decay * old_param));
  stochastic_rounding(param, &params_memory[idx], seed);
  if (master_params_memory != nullptr) {
    master_params_memory[idx] = param;
  }
}

template <typename Tp, typename Tg>
__global__ void adamw_kernel(Tp *params_memory, float *master_params_memory, Tg *grads_memory,
                             float *m_memory, float *v_memory, size_t num_parameters,
                             float learning_rate, float beta1, float beta2,
                             float beta1_correction, float beta2_correction, float eps,
                             float weight_decay, float grad_scale, unsigned int seed) {
  static_assert(std::is_same<Tg, floatX>::value || std::is_same<Tg, float>::value,
                "gradients are floatX or float");
  adamw_update(params_memory, master_params_memory, grads_memory, m_memory, v_memory,
               num_parameters, learning_rate, beta1, beta2, beta1_correction, beta2_correction,
               eps, weight_decay, grad_scale, seed);
}

// ----------------------------------------------------------------------------
// host

static_assert(mix_noise(1u, 2u) != mix_noise(2u, 1u), "the hash mixes its inputs");

template <class T>
T *upload(const float *host, size_t n) {
  T *staging = (T *)malloc(n * sizeof(T));
  for (size_t i = 0; i < n; i++) staging[i] = (T)host[i];
  T *device = nullptr;
  cudaCheck(cudaMalloc(&device, n * sizeof(T)));
  cudaCheck(cudaMemcpy(device, staging, n * sizeof(T), cudaMemcpyHostToDevice));
  free(staging);
  return device;
}

float *random_floats(size_t n, float scale) {
  float *v = (float *)malloc(n * sizeof(float));
  for (size_t i = 0; i < n; i++) v[i] = scale * (2.0f * rand() / (float)RAND_MAX - 1.0f);
  return v;
}

int main() {
  srand(42);
  const int B = 4, T = 64, V = 1000, P = 1024;
  const int BT = B * T;

  // classifier
  float *logits = random_floats((size_t)BT * P, 4.0f);
  int *targets = (int *)malloc(BT * sizeof(int));
  for (int i = 0; i < BT; i++) targets[i] = rand() % V;
  floatX *d_logits = upload<floatX>(logits, (size_t)BT * P);
  floatX *d_probs;
  float *d_losses;
  int *d_targets;
  cudaCheck(cudaMalloc(&d_probs, (size_t)BT * P * sizeof(floatX)));
  cudaCheck(cudaMalloc(&d_losses, BT * sizeof(float)));
  cudaCheck(cudaMalloc(&d_targets, BT * sizeof(int)));
  cudaCheck(cudaMemcpy(d_targets, targets, BT * sizeof(int), cudaMemcpyHostToDevice));
  fused_classifier_kernel<<<BT, 512>>>(d_logits, d_losses, d_probs, 1.0f / BT, d_targets, B, T,
                                       V, P);
  cudaCheck(cudaGetLastError());

  float *losses = (float *)malloc(BT * sizeof(float));
  cudaCheck(cudaMemcpy(losses, d_losses, BT * sizeof(float), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int r = 0; r < BT; r++) {
    const float *row = logits + (size_t)r * P;
    float maxval = -INFINITY;
    for (int i = 0; i < V; i++) maxval = fmaxf(maxval, (float)(floatX)row[i]);
    double sum = 0.0;
    for (int i = 0; i < V; i++) sum += exp((float)(floatX)row[i] - maxval);
    float expected = -(((float)(floatX)row[targets[r]] - maxval) - (float)log(sum));
    if (fabsf(losses[r] - expected) > 2e-2f * fmaxf(1.0f, fabsf(expected))) {
      if (bad < 5) printf("loss %d: %f vs %f\n", r, losses[r], expected);
      bad++;
    }
  }

  // GELU forward and backward
  const int N = BT * 768;
  float *acts = random_floats(N, 3.0f);
  floatX *d_acts = upload<floatX>(acts, N);
  floatX *d_gelu;
  cudaCheck(cudaMalloc(&d_gelu, N * sizeof(floatX)));
  const int block = 128;
  gelu_forward_kernel<<<CEIL_DIV(N, block * x128::size), block>>>(d_gelu, d_acts, N);
  gelu_backward_inplace_kernel<<<CEIL_DIV(N, block * x128::size), block>>>(d_gelu, d_acts, N);
  cudaCheck(cudaGetLastError());

  // AdamW
  const size_t num_parameters = 1 << 20;
  float *params = random_floats(num_parameters, 1.0f);
  float *grads = random_floats(num_parameters, 0.1f);
  floatX *d_params = upload<floatX>(params, num_parameters);
  float *d_master = upload<float>(params, num_parameters);
  floatX *d_grads = upload<floatX>(grads, num_parameters);
  float *d_m, *d_v;
  cudaCheck(cudaMalloc(&d_m, num_parameters * sizeof(float)));
  cudaCheck(cudaMalloc(&d_v, num_parameters * sizeof(float)));
  cudaCheck(cudaMemset(d_m, 0, num_parameters * sizeof(float)));
  cudaCheck(cudaMemset(d_v, 0, num_parameters * sizeof(float)));
  const float beta1 = 0.9f, beta2 = 0.95f;
  cudaEvent_t start, stop;
  cudaCheck(cudaEventCreate(&start));
  cudaCheck(cudaEventCreate(&stop));
  cudaCheck(cudaEventRecord(start));
  for (int step = 1; step <= 10; step++) {
    float beta1_correction = 1.0f - powf(beta1, step);
    float beta2_correction = 1.0f - powf(beta2, step);
    unsigned int seed = mix_noise(step, 1337u);
    adamw_kernel<<<CEIL_DIV(num_parameters, 512), 512>>>(
        d_params, d_master, d_grads, d_m, d_v, num_parameters, 3e-4f, beta1, beta2,
        beta1_correction, beta2_correction, 1e-8f, 0.1f, 1.0f, seed);
  }
  cudaCheck(cudaEventRecord(stop));
  cudaCheck(cudaEventSynchronize(stop));
  float ms = 0.0f;
  cudaCheck(cudaEventElapsedTime(&ms, start, stop));
  printf("adamw: %.3f ms per step\n", ms / 10);

  float *master = (float *)malloc(num_parameters * sizeof(float));
  cudaCheck(cudaMemcpy(master, d_master, num_parameters * sizeof(float), cudaMemcpyDeviceToHost));
  for (size_t i = 0; i < num_parameters; i += 4099) {
    if (!(fabsf(master[i] - params[i]) < 1e-2f)) {
      if (bad < 5) printf("param %zu moved too far: %f -> %f\n", i, params[i], master[i]);
      bad++;
    }
  }

  printf("%s\n", bad == 0 ? "PASSED" : "FAILED");
  free(logits); free(targets); free(losses); free(acts); free(params); free(grads); free(master);
  cudaCheck(cudaFree(d_logits)); cudaCheck(cudaFree(d_probs)); cudaCheck(cudaFree(d_losses));
  cudaCheck(cudaFree(d_targets)); cudaCheck(cudaFree(d_acts)); cudaCheck(cudaFree(d_gelu));
  cudaCheck(cudaFree(d_params)); cudaCheck(cudaFree(d_master)); cudaCheck(cudaFree(d_grads));
  cudaCheck(cudaFree(d_m)); cudaCheck(cudaFree(d_v));
  return bad == 0 ? 0 : 1;
}
