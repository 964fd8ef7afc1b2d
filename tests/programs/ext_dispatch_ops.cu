// The shape of a PyTorch C++/CUDA extension's kernel file, without torch:
// kernels templated on `scalar_t` with `__restrict__` pointers, an
// accumulation type chosen by a traits template (`acc_type<scalar_t>`: float
// for half, double for double), a grid-stride loop macro, launch-bounds
// macros, and host entry points that switch over a runtime dtype with a
// dispatch macro whose body is a lambda that sees `scalar_t` as a local
// alias. A tiny `Tensor` struct stands in for at::Tensor. Ops: a fused
// bias + GELU forward and its backward, a row-wise log-sum-exp with a warp
// reduction, and an index_select over rows. The host checks each dtype
// against a double-precision reference.

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include <cuda_fp16.h>
#include <cuda_runtime.h>

// ---- what c10/macros and ATen/cuda would provide -------------------------

#define EXT_MAX_THREADS_PER_BLOCK 1024
#define EXT_LAUNCH_BOUNDS_1(max_threads) __launch_bounds__((max_threads))
#define EXT_LAUNCH_BOUNDS_2(max_threads, min_blocks) __launch_bounds__((max_threads), (min_blocks))
#define EXT_KERNEL_LOOP(i, n)                                                   \
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < (n);    \
       i += (int64_t)blockDim.x * gridDim.x)

#define EXT_CHECK(cond, msg)                                                   \
  do {                                                                         \
    if (!(cond)) throw std::runtime_error(std::string("check failed: ") + msg); \
  } while (0)

#define EXT_CUDA_CHECK(expr)                                                   \
  do {                                                                         \
    cudaError_t err__ = (expr);                                                \
    EXT_CHECK(err__ == cudaSuccess, cudaGetErrorString(err__));                \
  } while (0)

enum class ScalarType { Half, Float, Double };

inline const char *toString(ScalarType t) {
  switch (t) {
    case ScalarType::Half: return "Half";
    case ScalarType::Float: return "Float";
    default: return "Double";
  }
}

#define EXT_PRIVATE_CASE_TYPE(enum_type, type, ...) \
  case enum_type: {                                 \
    using scalar_t = type;                          \
    return __VA_ARGS__();                           \
  }

#define EXT_DISPATCH_FLOATING_TYPES_AND_HALF(TYPE, NAME, ...)                    \
  [&] {                                                                          \
    const ScalarType the_type = TYPE;                                            \
    switch (the_type) {                                                          \
      EXT_PRIVATE_CASE_TYPE(ScalarType::Double, double, __VA_ARGS__)             \
      EXT_PRIVATE_CASE_TYPE(ScalarType::Float, float, __VA_ARGS__)               \
      EXT_PRIVATE_CASE_TYPE(ScalarType::Half, __half, __VA_ARGS__)               \
      default:                                                                   \
        throw std::runtime_error(std::string(NAME) + " not implemented for " +   \
                                 toString(the_type));                            \
    }                                                                            \
  }()

template <typename T> struct acc_type { using type = float; };
template <> struct acc_type<double> { using type = double; };

template <typename T> struct ScalarConvert {
  static __host__ __device__ T from(double v) { return static_cast<T>(v); }
};
template <> struct ScalarConvert<__half> {
  static __host__ __device__ __half from(double v) { return __float2half(static_cast<float>(v)); }
};

__device__ __forceinline__ float toAcc(__half v) { return __half2float(v); }
__device__ __forceinline__ float toAcc(float v) { return v; }
__device__ __forceinline__ double toAcc(double v) { return v; }

struct Tensor {
  void *data = nullptr;
  int64_t rows = 0, cols = 0;
  ScalarType dtype = ScalarType::Float;
  int64_t numel() const { return rows * cols; }
  template <typename T> T *data_ptr() const { return static_cast<T *>(data); }
};

inline size_t elementSize(ScalarType t) {
  return t == ScalarType::Half ? 2 : t == ScalarType::Float ? 4 : 8;
}

inline int blocksFor(int64_t n, int threads) {
  int64_t b = (n + threads - 1) / threads;
  return static_cast<int>(b < 65535 ? b : 65535);
}

// ---- kernels --------------------------------------------------------------

namespace {

template <typename acc_t>
__device__ __forceinline__ acc_t geluTanh(acc_t x) {
  const acc_t k0 = acc_t(0.7978845608028654), k1 = acc_t(0.044715);
  return acc_t(0.5) * x * (acc_t(1) + tanh(k0 * (x + k1 * x * x * x)));
}

template <typename acc_t>
__device__ __forceinline__ acc_t geluTanhGrad(acc_t x) {
  const acc_t k0 = acc_t(0.7978845608028654), k1 = acc_t(0.044715);
  acc_t inner = k0 * (x + k1 * x * x * x);
  acc_t t = tanh(inner);
  acc_t sech2 = acc_t(1) - t * t;
  return acc_t(0.5) * (acc_t(1) + t) + acc_t(0.5) * x * sech2 * k0 * (acc_t(1) + acc_t(3) * k1 * x * x);
}

}  // namespace

template <typename scalar_t, typename acc_t = typename acc_type<scalar_t>::type>
__global__ EXT_LAUNCH_BOUNDS_1(256) void bias_gelu_forward_kernel(
    scalar_t *__restrict__ out, const scalar_t *__restrict__ in, const scalar_t *__restrict__ bias,
    int64_t numel, int64_t cols) {
  EXT_KERNEL_LOOP(i, numel) {
    acc_t x = static_cast<acc_t>(toAcc(in[i])) + static_cast<acc_t>(toAcc(bias[i % cols]));
    out[i] = ScalarConvert<scalar_t>::from(geluTanh<acc_t>(x));
  }
}

template <typename scalar_t, typename acc_t = typename acc_type<scalar_t>::type>
__global__ EXT_LAUNCH_BOUNDS_2(256, 4) void bias_gelu_backward_kernel(
    scalar_t *__restrict__ grad_in, const scalar_t *__restrict__ grad_out,
    const scalar_t *__restrict__ in, const scalar_t *__restrict__ bias, int64_t numel, int64_t cols) {
  EXT_KERNEL_LOOP(i, numel) {
    acc_t x = static_cast<acc_t>(toAcc(in[i])) + static_cast<acc_t>(toAcc(bias[i % cols]));
    grad_in[i] = ScalarConvert<scalar_t>::from(static_cast<acc_t>(toAcc(grad_out[i])) * geluTanhGrad<acc_t>(x));
  }
}

template <typename acc_t>
__device__ __forceinline__ acc_t warpMax(acc_t v) {
  for (int o = 16; o > 0; o >>= 1) v = max(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

template <typename acc_t>
__device__ __forceinline__ acc_t warpSum(acc_t v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// One warp per row.
template <typename scalar_t, typename acc_t = typename acc_type<scalar_t>::type>
__global__ EXT_LAUNCH_BOUNDS_1(128) void logsumexp_rows_kernel(
    acc_t *__restrict__ out, const scalar_t *__restrict__ in, int64_t rows, int64_t cols) {
  const int lane = threadIdx.x & 31;
  const int64_t row = (int64_t)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  if (row >= rows) return;
  const scalar_t *x = in + row * cols;
  acc_t m = -INFINITY;
  for (int64_t c = lane; c < cols; c += 32) m = max(m, static_cast<acc_t>(toAcc(x[c])));
  m = warpMax(m);
  acc_t s = 0;
  for (int64_t c = lane; c < cols; c += 32) s += exp(static_cast<acc_t>(toAcc(x[c])) - m);
  s = warpSum(s);
  if (lane == 0) out[row] = m + log(s);
}

template <typename scalar_t, typename index_t>
__global__ void index_select_rows_kernel(scalar_t *__restrict__ out, const scalar_t *__restrict__ in,
                                         const index_t *__restrict__ index, int64_t n_index,
                                         int64_t cols) {
  EXT_KERNEL_LOOP(i, n_index * cols) {
    int64_t r = i / cols, c = i % cols;
    out[i] = in[static_cast<int64_t>(index[r]) * cols + c];
  }
}

// ---- host entry points, as an extension's .cu file exports them ----------

void bias_gelu_forward(Tensor &out, const Tensor &in, const Tensor &bias) {
  EXT_CHECK(in.dtype == bias.dtype && in.dtype == out.dtype, "dtype mismatch");
  EXT_CHECK(bias.numel() == in.cols, "bias must have one value per column");
  const int threads = 256;
  EXT_DISPATCH_FLOATING_TYPES_AND_HALF(in.dtype, "bias_gelu_forward", [&] {
    bias_gelu_forward_kernel<scalar_t><<<blocksFor(in.numel(), threads), threads>>>(
        out.data_ptr<scalar_t>(), in.data_ptr<scalar_t>(), bias.data_ptr<scalar_t>(), in.numel(),
        in.cols);
  });
  EXT_CUDA_CHECK(cudaGetLastError());
}

void bias_gelu_backward(Tensor &grad_in, const Tensor &grad_out, const Tensor &in, const Tensor &bias) {
  const int threads = 256;
  EXT_DISPATCH_FLOATING_TYPES_AND_HALF(in.dtype, "bias_gelu_backward", [&] {
    bias_gelu_backward_kernel<scalar_t><<<blocksFor(in.numel(), threads), threads>>>(
        grad_in.data_ptr<scalar_t>(), grad_out.data_ptr<scalar_t>(), in.data_ptr<scalar_t>(),
        bias.data_ptr<scalar_t>(), in.numel(), in.cols);
  });
  EXT_CUDA_CHECK(cudaGetLastError());
}

// The result is in the accumulation type (float for half).
void logsumexp_rows(void *out, const Tensor &in) {
  const int threads = 128, rowsPerBlock = threads / 32;
  const int blocks = static_cast<int>((in.rows + rowsPerBlock - 1) / rowsPerBlock);
  EXT_DISPATCH_FLOATING_TYPES_AND_HALF(in.dtype, "logsumexp_rows", [&] {
    using acc_t = typename acc_type<scalar_t>::type;
    logsumexp_rows_kernel<scalar_t><<<blocks, threads>>>(static_cast<acc_t *>(out),
                                                         in.data_ptr<scalar_t>(), in.rows, in.cols);
  });
  EXT_CUDA_CHECK(cudaGetLastError());
}

template <typename index_t>
void index_select_rows(Tensor &out, const Tensor &in, const index_t *index, int64_t n_index) {
  const int threads = 256;
  EXT_DISPATCH_FLOATING_TYPES_AND_HALF(in.dtype, "index_select_rows", [&] {
    index_select_rows_kernel<scalar_t, index_t><<<blocksFor(n_index * in.cols, threads), threads>>>(
        out.data_ptr<scalar_t>(), in.data_ptr<scalar_t>(), index, n_index, in.cols);
  });
  EXT_CUDA_CHECK(cudaGetLastError());
}

// ---- a test driver --------------------------------------------------------

static Tensor empty(int64_t rows, int64_t cols, ScalarType t) {
  Tensor x;
  x.rows = rows;
  x.cols = cols;
  x.dtype = t;
  EXT_CUDA_CHECK(cudaMalloc(&x.data, x.numel() * elementSize(t)));
  return x;
}

static void upload(Tensor &x, const std::vector<double> &v) {
  std::vector<unsigned char> bytes(v.size() * elementSize(x.dtype));
  for (size_t i = 0; i < v.size(); ++i) {
    if (x.dtype == ScalarType::Half) reinterpret_cast<__half *>(bytes.data())[i] = __float2half((float)v[i]);
    else if (x.dtype == ScalarType::Float) reinterpret_cast<float *>(bytes.data())[i] = (float)v[i];
    else reinterpret_cast<double *>(bytes.data())[i] = v[i];
  }
  EXT_CUDA_CHECK(cudaMemcpy(x.data, bytes.data(), bytes.size(), cudaMemcpyHostToDevice));
}

static std::vector<double> download(const Tensor &x) {
  std::vector<unsigned char> bytes(x.numel() * elementSize(x.dtype));
  EXT_CUDA_CHECK(cudaMemcpy(bytes.data(), x.data, bytes.size(), cudaMemcpyDeviceToHost));
  std::vector<double> v(x.numel());
  for (size_t i = 0; i < v.size(); ++i) {
    if (x.dtype == ScalarType::Half) v[i] = __half2float(reinterpret_cast<__half *>(bytes.data())[i]);
    else if (x.dtype == ScalarType::Float) v[i] = reinterpret_cast<float *>(bytes.data())[i];
    else v[i] = reinterpret_cast<double *>(bytes.data())[i];
  }
  return v;
}

static double refGelu(double x) { return 0.5 * x * (1 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x))); }

static int checkDtype(ScalarType t) {
  const int64_t rows = 37, cols = 200;
  const double tol = t == ScalarType::Half ? 2e-2 : t == ScalarType::Float ? 1e-5 : 1e-12;
  std::vector<double> x(rows * cols), b(cols), g(rows * cols);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.37 * i) * 3.0;
  for (size_t i = 0; i < g.size(); ++i) g[i] = std::cos(0.11 * i);
  for (int64_t c = 0; c < cols; ++c) b[c] = 0.01 * (c % 17) - 0.08;

  Tensor in = empty(rows, cols, t), bias = empty(1, cols, t), out = empty(rows, cols, t);
  Tensor gout = empty(rows, cols, t), gin = empty(rows, cols, t), sel = empty(5, cols, t);
  upload(in, x);
  upload(bias, b);
  upload(gout, g);
  bias_gelu_forward(out, in, bias);
  bias_gelu_backward(gin, gout, in, bias);

  void *lse;
  EXT_CUDA_CHECK(cudaMalloc(&lse, rows * sizeof(double)));
  logsumexp_rows(lse, in);

  const int32_t picks[5] = {3, 0, 36, 3, 17};
  int32_t *dPicks;
  EXT_CUDA_CHECK(cudaMalloc(&dPicks, sizeof(picks)));
  EXT_CUDA_CHECK(cudaMemcpy(dPicks, picks, sizeof(picks), cudaMemcpyHostToDevice));
  index_select_rows(sel, in, dPicks, 5);
  EXT_CUDA_CHECK(cudaDeviceSynchronize());

  int errors = 0;
  std::vector<double> y = download(out), gi = download(gin), s = download(sel), xin = download(in);
  for (int64_t i = 0; i < rows * cols; ++i) {
    double z = xin[i] + b[i % cols];
    if (std::fabs(y[i] - refGelu(z)) > tol * (1 + std::fabs(refGelu(z)))) ++errors;
    double h = 1e-6, d = (refGelu(z + h) - refGelu(z - h)) / (2 * h);
    if (std::fabs(gi[i] - g[i] * d) > 1e-3 + tol * 10) ++errors;
    if (i == cols * 8) break;  // the rest is the same code path
  }
  std::vector<double> lseHost(rows);
  if (t == ScalarType::Double) {
    EXT_CUDA_CHECK(cudaMemcpy(lseHost.data(), lse, rows * sizeof(double), cudaMemcpyDeviceToHost));
  } else {
    std::vector<float> f(rows);
    EXT_CUDA_CHECK(cudaMemcpy(f.data(), lse, rows * sizeof(float), cudaMemcpyDeviceToHost));
    for (int64_t r = 0; r < rows; ++r) lseHost[r] = f[r];
  }
  for (int64_t r = 0; r < rows; ++r) {
    double m = -INFINITY, sum = 0;
    for (int64_t c = 0; c < cols; ++c) m = std::max(m, xin[r * cols + c]);
    for (int64_t c = 0; c < cols; ++c) sum += std::exp(xin[r * cols + c] - m);
    if (std::fabs(lseHost[r] - (m + std::log(sum))) > 1e-4) ++errors;
  }
  for (int k = 0; k < 5; ++k)
    for (int64_t c = 0; c < cols; ++c)
      if (s[k * cols + c] != xin[picks[k] * cols + c]) ++errors;

  printf("%-6s: %s\n", toString(t), errors ? "FAILED" : "ok");
  for (Tensor *p : {&in, &bias, &out, &gout, &gin, &sel}) cudaFree(p->data);
  cudaFree(lse);
  cudaFree(dPicks);
  return errors;
}

int main() {
  int errors = 0;
  try {
    for (ScalarType t : {ScalarType::Half, ScalarType::Float, ScalarType::Double}) errors += checkDtype(t);
  } catch (const std::exception &e) {
    fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return errors ? 1 : 0;
}
