// Sparse matrix-vector products over three storage formats, as sparse
// linear-algebra libraries lay them out: CSR read through a small view
// struct with member functions, ELLPACK (column-major slabs padded with -1)
// and COO (one thread per nonzero, atomics into y). The CSR kernel gives
// each row a segment of THREADS_PER_ROW lanes that reduce with
// __shfl_down_sync; the host picks the segment width from the mean row
// length with a switch, as the "vector" CSR kernels of public libraries do.
// Everything is instantiated for float and double and checked against a
// CPU product.

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include <cuda_runtime.h>

#define CUDA_TRY(expr)                                                                    \
  do {                                                                                    \
    const cudaError_t err_ = (expr);                                                      \
    if (err_ != cudaSuccess) {                                                            \
      std::fprintf(stderr, "CUDA failure %d (%s) at %s:%d: %s\n", static_cast<int>(err_), \
                   cudaGetErrorName(err_), __FILE__, __LINE__, #expr);                    \
      std::abort();                                                                       \
    }                                                                                     \
  } while (0)

namespace sparse {

template <typename T>
struct CsrView {
  int rows;
  const int *rowptr;
  const int *colidx;
  const T *values;

  __device__ int row_begin(int r) const { return __ldg(rowptr + r); }
  __device__ int row_len(int r) const { return __ldg(rowptr + r + 1) - __ldg(rowptr + r); }
  __device__ T entry(int k, const T *__restrict__ x) const { return values[k] * x[colidx[k]]; }
};

// Sum over the lanes of one segment; lane 0 of the segment ends with the
// total. Segments are aligned groups of WIDTH lanes of one warp.
template <int WIDTH, typename T>
__device__ __forceinline__ T segmentSum(T v) {
  static_assert((WIDTH & (WIDTH - 1)) == 0 && WIDTH <= 32, "segment width is a power of two");
#pragma unroll
  for (int offset = WIDTH / 2; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset, WIDTH);
  return v;
}

template <typename T, int THREADS_PER_ROW>
__global__ void spmvCsrVector(CsrView<T> A, const T *__restrict__ x, T *__restrict__ y) {
  const int thread = blockIdx.x * blockDim.x + threadIdx.x;
  const int lane = thread & (THREADS_PER_ROW - 1);
  const int row = thread / THREADS_PER_ROW;
  // Whole warps stay in the loop so every shuffle has all its lanes.
  const bool active = row < A.rows;
  T sum = T(0);
  if (active) {
    const int begin = A.row_begin(row);
    const int end = begin + A.row_len(row);
    for (int k = begin + lane; k < end; k += THREADS_PER_ROW) sum += A.entry(k, x);
  }
  sum = segmentSum<THREADS_PER_ROW>(sum);
  if (active && lane == 0) y[row] = sum;
}

// ELLPACK: `width` slots per row stored slot-major (entry s of row r at
// s * rows + r); padding slots hold column -1.
template <typename T>
__global__ void spmvEll(int rows, int width, const int *__restrict__ cols, const T *__restrict__ vals,
                        const T *__restrict__ x, int n, T *__restrict__ y) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  T sum = T(0);
  for (int s = 0; s < width; ++s) {
    const int c = cols[s * rows + row];
    if (c >= 0 && c < n) sum += vals[s * rows + row] * x[c];
  }
  y[row] = sum;
}

template <typename T>
__global__ void spmvCoo(int nnz, const int *__restrict__ rowidx, const int *__restrict__ colidx,
                        const T *__restrict__ vals, const T *__restrict__ x, T *y) {
  for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < nnz; k += gridDim.x * blockDim.x)
    atomicAdd(&y[rowidx[k]], vals[k] * x[colidx[k]]);
}

}  // namespace sparse

// ---- host -------------------------------------------------------------------------

struct HostCsr {
  int rows = 0, cols = 0;
  std::vector<int> rowptr, colidx;
};

static HostCsr randomPattern(int rows, int cols, int meanLen, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> len(0, 2 * meanLen), col(0, cols - 1);
  HostCsr m;
  m.rows = rows;
  m.cols = cols;
  m.rowptr.push_back(0);
  for (int r = 0; r < rows; ++r) {
    const int n = len(rng);
    for (int i = 0; i < n; ++i) m.colidx.push_back(col(rng));
    m.rowptr.push_back(static_cast<int>(m.colidx.size()));
  }
  return m;
}

template <typename T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(const std::vector<T> &host) : size_(host.size()) {
    CUDA_TRY(cudaMalloc(&ptr_, bytes()));
    CUDA_TRY(cudaMemcpy(ptr_, host.data(), bytes(), cudaMemcpyHostToDevice));
  }
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  ~DeviceBuffer() { cudaFree(ptr_); }
  T *get() const { return ptr_; }
  std::vector<T> download() const {
    std::vector<T> out(size_);
    CUDA_TRY(cudaMemcpy(out.data(), ptr_, bytes(), cudaMemcpyDeviceToHost));
    return out;
  }

 private:
  size_t bytes() const { return size_ * sizeof(T); }
  T *ptr_ = nullptr;
  size_t size_;
};

template <typename T, int TPR>
static void launchCsr(const sparse::CsrView<T> &A, const T *x, T *y) {
  const int threads = 128;
  const int blocks = static_cast<int>((static_cast<long long>(A.rows) * TPR + threads - 1) / threads);
  sparse::spmvCsrVector<T, TPR><<<blocks, threads>>>(A, x, y);
}

template <typename T>
static int dispatchCsr(const sparse::CsrView<T> &A, const T *x, T *y, double meanLen) {
  const int bucket = meanLen <= 2 ? 0 : meanLen <= 4 ? 1 : meanLen <= 8 ? 2 : meanLen <= 16 ? 3 : 4;
  switch (bucket) {
    case 0: launchCsr<T, 2>(A, x, y); return 2;
    case 1: launchCsr<T, 4>(A, x, y); return 4;
    case 2: launchCsr<T, 8>(A, x, y); return 8;
    case 3: launchCsr<T, 16>(A, x, y); return 16;
    default: launchCsr<T, 32>(A, x, y); return 32;
  }
}

template <typename T>
static int compare(const char *what, const std::vector<T> &got, const std::vector<T> &want) {
  int bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double tol = (sizeof(T) == 4 ? 1e-4 : 1e-10) * (1.0 + std::fabs(static_cast<double>(want[i])));
    if (std::fabs(static_cast<double>(got[i] - want[i])) > tol) ++bad;
  }
  std::printf("  %-4s %zu rows, %d wrong\n", what, got.size(), bad);
  return bad;
}

template <typename T>
static int testFormats(const HostCsr &m, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> uni(-1.0, 1.0);
  std::vector<T> values(m.colidx.size()), x(m.cols);
  for (T &v : values) v = static_cast<T>(uni(rng));
  for (T &v : x) v = static_cast<T>(uni(rng));

  std::vector<T> reference(m.rows, T(0));
  int widest = 0;
  for (int r = 0; r < m.rows; ++r) {
    widest = std::max(widest, m.rowptr[r + 1] - m.rowptr[r]);
    for (int k = m.rowptr[r]; k < m.rowptr[r + 1]; ++k) reference[r] += values[k] * x[m.colidx[k]];
  }

  DeviceBuffer<int> dRowptr(m.rowptr), dCols(m.colidx);
  DeviceBuffer<T> dVals(values), dX(x), dY(std::vector<T>(m.rows, T(0)));
  const double meanLen = static_cast<double>(m.colidx.size()) / m.rows;
  const sparse::CsrView<T> A{m.rows, dRowptr.get(), dCols.get(), dVals.get()};
  const int tpr = dispatchCsr(A, dX.get(), dY.get(), meanLen);
  CUDA_TRY(cudaGetLastError());
  std::printf("%s, mean row length %.1f, %d threads per row\n", sizeof(T) == 4 ? "float" : "double",
              meanLen, tpr);
  int bad = compare("csr", dY.download(), reference);

  std::vector<int> ellCols(static_cast<size_t>(widest) * m.rows, -1);
  std::vector<T> ellVals(ellCols.size(), T(0));
  std::vector<int> cooRows;
  for (int r = 0; r < m.rows; ++r)
    for (int k = m.rowptr[r]; k < m.rowptr[r + 1]; ++k) {
      const int slot = k - m.rowptr[r];
      ellCols[static_cast<size_t>(slot) * m.rows + r] = m.colidx[k];
      ellVals[static_cast<size_t>(slot) * m.rows + r] = values[k];
      cooRows.push_back(r);
    }
  DeviceBuffer<int> dEllCols(ellCols), dCooRows(cooRows);
  DeviceBuffer<T> dEllVals(ellVals), dEllY(std::vector<T>(m.rows, T(0)));
  sparse::spmvEll<T><<<(m.rows + 127) / 128, 128>>>(m.rows, widest, dEllCols.get(), dEllVals.get(), dX.get(),
                                                    m.cols, dEllY.get());
  CUDA_TRY(cudaGetLastError());
  bad += compare("ell", dEllY.download(), reference);

  DeviceBuffer<T> dCooY(std::vector<T>(m.rows, T(0)));
  const int nnz = static_cast<int>(cooRows.size());
  sparse::spmvCoo<T><<<64, 256>>>(nnz, dCooRows.get(), dCols.get(), dVals.get(), dX.get(), dCooY.get());
  CUDA_TRY(cudaGetLastError());
  bad += compare("coo", dCooY.download(), reference);
  return bad;
}

int main() {
  int failures = 0;
  const int meanLengths[] = {1, 3, 7, 12, 40};
  unsigned seed = 2024;
  for (int meanLen : meanLengths) {
    const HostCsr pattern = randomPattern(3001, 2500, meanLen, seed++);
    failures += testFormats<float>(pattern, seed);
    failures += testFormats<double>(pattern, seed + 100);
  }
  CUDA_TRY(cudaDeviceSynchronize());
  std::printf("%s\n", failures == 0 ? "Test passed" : "Test FAILED");
  return failures == 0 ? 0 : 1;
}
