// A conjugate-gradient solver for the 2-D Poisson equation on a CSR matrix,
// in the style of solver samples and numerical-methods homework:
//   - a move-only RAII `DeviceArray<T>` class template (deleted copy,
//     defaulted-by-hand move, `std::exchange`) that owns each buffer;
//   - the five-point Laplacian assembled on the host into CSR;
//   - kernels: CSR SpMV (one warp per row, shuffle sum), a dot product
//     reduced by warp shuffles, shared memory and a `double` atomicAdd into
//     a device scalar, and fused vector updates that read their
//     coefficients (alpha, beta) from device memory, computed by a
//     single-thread kernel, so the iteration loop never waits on the host
//     except to test convergence every few steps;
//   - host output with <iomanip> (setw, setprecision, scientific) and the
//     residual history written with <fstream> when a path is given.
// The host checks the final residual ||b - A x|| with its own SpMV.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <numeric>
#include <utility>
#include <vector>

#include <cuda_runtime.h>

#define CUDA_TRY(call)                                                                  \
  do {                                                                                  \
    cudaError_t status_ = (call);                                                       \
    if (status_ != cudaSuccess) {                                                       \
      std::cerr << "CUDA error: " << cudaGetErrorString(status_) << " (" << #call       \
                << ") at " << __FILE__ << ":" << __LINE__ << std::endl;                 \
      std::exit(EXIT_FAILURE);                                                          \
    }                                                                                   \
  } while (0)

template <typename T>
class DeviceArray {
 public:
  DeviceArray() = default;
  explicit DeviceArray(size_t n) : size_(n) { CUDA_TRY(cudaMalloc(&ptr_, n * sizeof(T))); }
  explicit DeviceArray(const std::vector<T> &host) : DeviceArray(host.size()) { upload(host); }
  ~DeviceArray() {
    if (ptr_) cudaFree(ptr_);
  }
  DeviceArray(const DeviceArray &) = delete;
  DeviceArray &operator=(const DeviceArray &) = delete;
  DeviceArray(DeviceArray &&other) noexcept
      : ptr_(std::exchange(other.ptr_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  DeviceArray &operator=(DeviceArray &&other) noexcept {
    std::swap(ptr_, other.ptr_);
    std::swap(size_, other.size_);
    return *this;
  }

  void upload(const std::vector<T> &host) {
    CUDA_TRY(cudaMemcpy(ptr_, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  }
  std::vector<T> download() const {
    std::vector<T> host(size_);
    CUDA_TRY(cudaMemcpy(host.data(), ptr_, size_ * sizeof(T), cudaMemcpyDeviceToHost));
    return host;
  }
  void zero() { CUDA_TRY(cudaMemset(ptr_, 0, size_ * sizeof(T))); }
  T *get() const { return ptr_; }
  size_t size() const { return size_; }

 private:
  T *ptr_ = nullptr;
  size_t size_ = 0;
};

// ---- kernels ----------------------------------------------------------

constexpr int kWarp = 32;
constexpr int kBlock = 256;

__device__ __forceinline__ double warpReduceSum(double v) {
#pragma unroll
  for (int offset = kWarp / 2; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffff, v, offset);
  return v;
}

// y = A x, one warp per row.
__global__ void spmvCsrVector(int rows, const int *__restrict__ rowPtr, const int *__restrict__ cols,
                              const double *__restrict__ vals, const double *__restrict__ x,
                              double *__restrict__ y) {
  const int warpId = (blockIdx.x * blockDim.x + threadIdx.x) / kWarp;
  const int lane = threadIdx.x % kWarp;
  if (warpId >= rows) return;
  double sum = 0.0;
  for (int j = rowPtr[warpId] + lane; j < rowPtr[warpId + 1]; j += kWarp) sum += vals[j] * x[cols[j]];
  sum = warpReduceSum(sum);
  if (lane == 0) y[warpId] = sum;
}

// *result += a . b (the caller zeroes *result).
__global__ void dotProduct(int n, const double *__restrict__ a, const double *__restrict__ b,
                           double *result) {
  __shared__ double partial[kBlock / kWarp];
  double sum = 0.0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) sum += a[i] * b[i];
  sum = warpReduceSum(sum);
  const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
  if (lane == 0) partial[warp] = sum;
  __syncthreads();
  if (warp == 0) {
    sum = lane < blockDim.x / kWarp ? partial[lane] : 0.0;
    sum = warpReduceSum(sum);
    if (lane == 0) atomicAdd(result, sum);
  }
}

// scalars: [0] = r.r, [1] = p.Ap, [2] = new r.r, [3] = alpha, [4] = beta.
enum Scalar { kRR = 0, kPAP = 1, kRRNew = 2, kAlpha = 3, kBeta = 4 };

__global__ void computeAlpha(double *s) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    s[kAlpha] = s[kPAP] != 0.0 ? s[kRR] / s[kPAP] : 0.0;
    s[kRRNew] = 0.0;
  }
}

__global__ void computeBeta(double *s) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    s[kBeta] = s[kRR] != 0.0 ? s[kRRNew] / s[kRR] : 0.0;
    s[kRR] = s[kRRNew];
    s[kPAP] = 0.0;
  }
}

// x += alpha p; r -= alpha Ap
__global__ void updateSolution(int n, const double *__restrict__ s, const double *__restrict__ p,
                               const double *__restrict__ ap, double *__restrict__ x,
                               double *__restrict__ r) {
  const double alpha = s[kAlpha];
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    x[i] += alpha * p[i];
    r[i] -= alpha * ap[i];
  }
}

// p = r + beta p
__global__ void updateDirection(int n, const double *__restrict__ s, const double *__restrict__ r,
                                double *__restrict__ p) {
  const double beta = s[kBeta];
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) p[i] = r[i] + beta * p[i];
}

// ---- host -----------------------------------------------------------------

struct Csr {
  int rows = 0;
  std::vector<int> rowPtr, cols;
  std::vector<double> vals;
};

// The five-point Laplacian on an m x m grid with Dirichlet boundaries.
static Csr laplacian2d(int m) {
  Csr a;
  a.rows = m * m;
  a.rowPtr.push_back(0);
  for (int j = 0; j < m; ++j) {
    for (int i = 0; i < m; ++i) {
      const int row = j * m + i;
      auto put = [&](int col, double v) {
        a.cols.push_back(col);
        a.vals.push_back(v);
      };
      if (j > 0) put(row - m, -1.0);
      if (i > 0) put(row - 1, -1.0);
      put(row, 4.0);
      if (i + 1 < m) put(row + 1, -1.0);
      if (j + 1 < m) put(row + m, -1.0);
      a.rowPtr.push_back(static_cast<int>(a.cols.size()));
    }
  }
  return a;
}

static std::vector<double> hostSpmv(const Csr &a, const std::vector<double> &x) {
  std::vector<double> y(a.rows, 0.0);
  for (int r = 0; r < a.rows; ++r)
    for (int j = a.rowPtr[r]; j < a.rowPtr[r + 1]; ++j) y[r] += a.vals[j] * x[a.cols[j]];
  return y;
}

int main(int argc, char **argv) {
  const int m = 48, n = m * m, maxIter = 1000, checkEvery = 10;
  const double tol = 1e-8;
  Csr a = laplacian2d(m);
  std::vector<double> b(n);
  for (int k = 0; k < n; ++k) b[k] = std::sin(0.01 * k) + 1.0;

  DeviceArray<int> dRowPtr(a.rowPtr), dCols(a.cols);
  DeviceArray<double> dVals(a.vals), dB(b), dX(n), dR(b), dP(b), dAp(n), dS(5);
  dX.zero();
  dS.zero();

  const int blocks = std::min((n + kBlock - 1) / kBlock, 120);
  const int spmvBlocks = (n * kWarp + kBlock - 1) / kBlock;
  dotProduct<<<blocks, kBlock>>>(n, dR.get(), dR.get(), dS.get() + kRR);
  const double rr0 = dS.download()[kRR];

  std::vector<double> history;
  int it = 0;
  double rr = rr0;
  for (; it < maxIter; ++it) {
    spmvCsrVector<<<spmvBlocks, kBlock>>>(n, dRowPtr.get(), dCols.get(), dVals.get(), dP.get(), dAp.get());
    dotProduct<<<blocks, kBlock>>>(n, dP.get(), dAp.get(), dS.get() + kPAP);
    computeAlpha<<<1, 1>>>(dS.get());
    updateSolution<<<blocks, kBlock>>>(n, dS.get(), dP.get(), dAp.get(), dX.get(), dR.get());
    dotProduct<<<blocks, kBlock>>>(n, dR.get(), dR.get(), dS.get() + kRRNew);
    computeBeta<<<1, 1>>>(dS.get());
    updateDirection<<<blocks, kBlock>>>(n, dS.get(), dR.get(), dP.get());
    CUDA_TRY(cudaGetLastError());
    if ((it + 1) % checkEvery == 0) {
      rr = dS.download()[kRR];
      history.push_back(std::sqrt(rr / rr0));
      if (std::sqrt(rr / rr0) < tol) {
        ++it;
        break;
      }
    }
  }

  std::vector<double> x = dX.download();
  std::vector<double> ax = hostSpmv(a, x);
  double res2 = 0.0;
  for (int k = 0; k < n; ++k) res2 += (b[k] - ax[k]) * (b[k] - ax[k]);
  const double relres = std::sqrt(res2 / std::inner_product(b.begin(), b.end(), b.begin(), 0.0));

  std::cout << "grid " << m << "x" << m << ", " << a.vals.size() << " nonzeros\n"
            << "iterations: " << std::setw(5) << it << "\n"
            << "relative residual: " << std::scientific << std::setprecision(3) << relres << std::endl;
  if (argc > 1) {
    std::ofstream out(argv[1]);
    for (size_t k = 0; k < history.size(); ++k)
      out << std::setw(6) << (k + 1) * checkEvery << ' ' << std::setprecision(6) << history[k] << '\n';
  }
  const bool ok = relres < 1e-6;
  std::cout << (ok ? "PASSED" : "FAILED") << std::endl;
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
