// Tiled matrix kernels written with small class templates, in the style of
// a course's "C++ for CUDA" exercise: a strided matrix view with a default
// layout argument, a shared-memory tile whose size is a template argument,
// a functor class template for the epilogue, a full specialization of a
// type-name trait, and a partial specialization that picks the accumulator
// type. Each kernel is instantiated from main for float and double and the
// results are checked on the host.

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#define CHECK(call)                                                                 \
  do {                                                                              \
    cudaError_t err_ = (call);                                                      \
    if (err_ != cudaSuccess) {                                                      \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      std::exit(1);                                                                 \
    }                                                                               \
  } while (0)

namespace tiles {

enum class Layout { RowMajor, ColMajor };

// A view of a rows x cols matrix in global memory.
template <typename T, Layout L = Layout::RowMajor>
struct MatrixView {
  T *data;
  int rows, cols;

  __host__ __device__ MatrixView(T *d, int r, int c) : data(d), rows(r), cols(c) {}
  __device__ int offset(int r, int c) const { return r * cols + c; }
  __device__ T &operator()(int r, int c) { return data[offset(r, c)]; }
  __device__ const T &operator()(int r, int c) const { return data[offset(r, c)]; }
  __device__ bool contains(int r, int c) const { return r < rows && c < cols; }
};

// A TILE x TILE block of a matrix held in shared memory; the extra column
// keeps column reads free of bank conflicts.
template <typename T, int TILE>
struct SharedTile {
  static constexpr int kSize = TILE;
  T cells[TILE][TILE + 1];

  __device__ void load(const MatrixView<T> &m, int row0, int col0) {
    int r = row0 + threadIdx.y, c = col0 + threadIdx.x;
    cells[threadIdx.y][threadIdx.x] = m.contains(r, c) ? m(r, c) : T(0);
  }
  __device__ T at(int r, int c) const { return cells[r][c]; }
};

// The accumulator a product of T sums into.
template <typename T, bool Wide>
struct Accumulator {
  using type = T;
};
template <typename T>
struct Accumulator<T, true> {
  using type = double;
};

// The epilogue: out = alpha * acc + beta * old.
template <typename T>
struct AxpbyEpilogue {
  T alpha, beta;
  __device__ T operator()(T acc, T old) const { return alpha * acc + beta * old; }
};

template <typename T>
struct TypeName {
  static constexpr int id = 0;
};
template <>
struct TypeName<float> {
  static constexpr int id = 1;
};
template <>
struct TypeName<double> {
  static constexpr int id = 2;
};

} // namespace tiles

template <typename T, int TILE>
__global__ void transposeTiled(const T *in, T *out, int rows, int cols) {
  __shared__ tiles::SharedTile<T, TILE> tile;
  tiles::MatrixView<const T> src(in, rows, cols);
  tiles::MatrixView<T> dst(out, cols, rows);
  int r = blockIdx.y * TILE + threadIdx.y, c = blockIdx.x * TILE + threadIdx.x;
  tile.cells[threadIdx.y][threadIdx.x] = src.contains(r, c) ? src(r, c) : T(0);
  __syncthreads();
  int tr = blockIdx.x * TILE + threadIdx.y, tc = blockIdx.y * TILE + threadIdx.x;
  if (dst.contains(tr, tc)) dst(tr, tc) = tile.at(threadIdx.x, threadIdx.y);
}

template <typename T, int TILE, bool WIDE>
__global__ void matmulTiled(const T *a, const T *b, T *c, int n, tiles::AxpbyEpilogue<T> epilogue,
                            int *typeId) {
  using Tile = tiles::SharedTile<T, TILE>;
  using Acc = typename tiles::Accumulator<T, WIDE>::type;
  __shared__ Tile ta, tb;
  tiles::MatrixView<T> ma(const_cast<T *>(a), n, n), mb(const_cast<T *>(b), n, n), mc(c, n, n);
  int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
  Acc acc = 0;
  for (int k0 = 0; k0 < n; k0 += Tile::kSize) {
    ta.load(ma, blockIdx.y * TILE, k0);
    tb.load(mb, k0, blockIdx.x * TILE);
    __syncthreads();
    for (int k = 0; k < TILE; ++k) acc += Acc(ta.at(threadIdx.y, k)) * Acc(tb.at(k, threadIdx.x));
    __syncthreads();
  }
  if (mc.contains(row, col)) mc(row, col) = epilogue(T(acc), mc(row, col));
  if (row == 0 && col == 0) *typeId = tiles::TypeName<T>::id;
}

template <typename T>
static bool run(int n) {
  std::vector<T> a(n * n), b(n * n), c(n * n), t(n * n);
  for (int i = 0; i < n * n; ++i) {
    a[i] = T((i * 7) % 13) / T(4);
    b[i] = T((i * 5) % 11) / T(8);
    c[i] = T(1);
  }
  T *da, *db, *dc, *dt;
  int *dId;
  CHECK(cudaMalloc(&da, n * n * sizeof(T)));
  CHECK(cudaMalloc(&db, n * n * sizeof(T)));
  CHECK(cudaMalloc(&dc, n * n * sizeof(T)));
  CHECK(cudaMalloc(&dt, n * n * sizeof(T)));
  CHECK(cudaMalloc(&dId, sizeof(int)));
  CHECK(cudaMemcpy(da, a.data(), n * n * sizeof(T), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b.data(), n * n * sizeof(T), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dc, c.data(), n * n * sizeof(T), cudaMemcpyHostToDevice));
  dim3 block(16, 16), grid((n + 15) / 16, (n + 15) / 16);
  tiles::AxpbyEpilogue<T> epilogue{T(2), T(0.5)};
  matmulTiled<T, 16, true><<<grid, block>>>(da, db, dc, n, epilogue, dId);
  transposeTiled<T, 16><<<grid, block>>>(dc, dt, n, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(t.data(), dt, n * n * sizeof(T), cudaMemcpyDeviceToHost));
  int id = 0;
  CHECK(cudaMemcpy(&id, dId, sizeof(int), cudaMemcpyDeviceToHost));
  bool ok = true;
  for (int r = 0; r < n && ok; ++r)
    for (int col = 0; col < n && ok; ++col) {
      double acc = 0;
      for (int k = 0; k < n; ++k) acc += double(a[r * n + k]) * double(b[k * n + col]);
      double want = 2 * acc + 0.5;
      ok = std::fabs(double(t[col * n + r]) - want) <= 1e-3 * std::fabs(want) + 1e-3;
    }
  CHECK(cudaFree(da));
  CHECK(cudaFree(db));
  CHECK(cudaFree(dc));
  CHECK(cudaFree(dt));
  CHECK(cudaFree(dId));
  std::printf("%s (type id %d): %s\n", sizeof(T) == 4 ? "float" : "double", id, ok ? "ok" : "WRONG");
  return ok;
}

int main() {
  bool ok = run<float>(100);
  ok = run<double>(72) && ok;
  // A narrow accumulator for the float product too.
  {
    int n = 32;
    float *d;
    int *id;
    CHECK(cudaMalloc(&d, n * n * sizeof(float)));
    CHECK(cudaMalloc(&id, sizeof(int)));
    CHECK(cudaMemset(d, 0, n * n * sizeof(float)));
    matmulTiled<float, 8, false><<<dim3(4, 4), dim3(8, 8)>>>(d, d, d, n, tiles::AxpbyEpilogue<float>{1.0f, 0.0f}, id);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(d));
    CHECK(cudaFree(id));
  }
  return ok ? 0 : 1;
}
