// A templated GEMM in the style of CUTLASS's device-wide kernels, written
// small: tile shapes are policy structs (GemmShape<M, N, K>), coordinates a
// MatrixCoord class with operators, operand tiles are loaded by iterators
// that advance along K with operator++, and the threadblock size and
// __launch_bounds__ come from the policy. The epilogue is a functor
// (alpha * accumulator + beta * source) chosen at compile time; the host
// instantiates a few policies and checks each against a CPU GEMM.

#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include <chrono>

#define CUTLASS_HOST_DEVICE __forceinline__ __device__ __host__
#define CUTLASS_DEVICE __forceinline__ __device__
#define CUTLASS_PRAGMA_UNROLL _Pragma("unroll")
#define CUTLASS_CHECK(status)                                                         \
  {                                                                                   \
    cudaError_t error = status;                                                       \
    if (error != cudaSuccess) {                                                       \
      std::fprintf(stderr, "Got cuda error: %s at: %d\n", cudaGetErrorString(error), \
                   __LINE__);                                                         \
      std::exit(EXIT_FAILURE);                                                        \
    }                                                                                 \
  }

namespace cutlite {

template <int M = 1, int N = 1, int K = 1>
struct GemmShape {
  static constexpr int kM = M;
  static constexpr int kN = N;
  static constexpr int kK = K;
  static constexpr int kMN = M * N;
  static constexpr int kMNK = M * N * K;
  static constexpr int kCount = kMNK;
};

struct MatrixCoord {
  using Index = int;

 private:
  Index row_;
  Index column_;

 public:
  CUTLASS_HOST_DEVICE MatrixCoord() : row_(0), column_(0) {}
  CUTLASS_HOST_DEVICE MatrixCoord(Index row, Index column) : row_(row), column_(column) {}

  CUTLASS_HOST_DEVICE Index const &row() const { return row_; }
  CUTLASS_HOST_DEVICE Index &row() { return row_; }
  CUTLASS_HOST_DEVICE Index const &column() const { return column_; }
  CUTLASS_HOST_DEVICE Index &column() { return column_; }

  CUTLASS_HOST_DEVICE MatrixCoord operator+(MatrixCoord const &b) const {
    return MatrixCoord(row_ + b.row_, column_ + b.column_);
  }
  CUTLASS_HOST_DEVICE MatrixCoord &operator+=(MatrixCoord const &b) {
    row_ += b.row_;
    column_ += b.column_;
    return *this;
  }
  CUTLASS_HOST_DEVICE bool operator<(MatrixCoord const &extent) const {
    return row_ < extent.row_ && column_ < extent.column_;
  }
};

struct GemmCoord {
  int m_, n_, k_;
  CUTLASS_HOST_DEVICE GemmCoord(int m, int n, int k) : m_(m), n_(n), k_(k) {}
  CUTLASS_HOST_DEVICE int m() const { return m_; }
  CUTLASS_HOST_DEVICE int n() const { return n_; }
  CUTLASS_HOST_DEVICE int k() const { return k_; }
  CUTLASS_HOST_DEVICE MatrixCoord mk() const { return MatrixCoord(m_, k_); }
  CUTLASS_HOST_DEVICE MatrixCoord kn() const { return MatrixCoord(k_, n_); }
};

namespace layout {
struct RowMajor {
  using Index = int;
  using LongIndex = long long;
  Index stride_;
  CUTLASS_HOST_DEVICE explicit RowMajor(Index ldm = 0) : stride_(ldm) {}
  CUTLASS_HOST_DEVICE LongIndex operator()(MatrixCoord const &coord) const {
    return LongIndex(coord.row()) * LongIndex(stride_) + coord.column();
  }
  CUTLASS_HOST_DEVICE Index stride() const { return stride_; }
};
}  // namespace layout

template <typename Element, typename Layout>
struct TensorRef {
  Element *ptr_;
  Layout layout_;
  CUTLASS_HOST_DEVICE TensorRef() : ptr_(nullptr), layout_() {}
  CUTLASS_HOST_DEVICE TensorRef(Element *ptr, Layout const &layout) : ptr_(ptr), layout_(layout) {}
  CUTLASS_HOST_DEVICE Element &at(MatrixCoord const &coord) const { return ptr_[layout_(coord)]; }
  CUTLASS_HOST_DEVICE Element *data() const { return ptr_; }
};

namespace epilogue {
template <typename Element>
struct LinearCombination {
  struct Params {
    Element alpha, beta;
    CUTLASS_HOST_DEVICE Params(Element a = Element(1), Element b = Element(0)) : alpha(a), beta(b) {}
  };
  Element alpha_, beta_;
  CUTLASS_HOST_DEVICE explicit LinearCombination(Params const &p) : alpha_(p.alpha), beta_(p.beta) {}
  CUTLASS_HOST_DEVICE Element operator()(Element accum, Element source) const {
    return alpha_ * accum + beta_ * source;
  }
};

template <typename Element>
struct LinearCombinationRelu : LinearCombination<Element> {
  using Base = LinearCombination<Element>;
  CUTLASS_HOST_DEVICE explicit LinearCombinationRelu(typename Base::Params const &p) : Base(p) {}
  CUTLASS_HOST_DEVICE Element operator()(Element accum, Element source) const {
    Element v = Base::operator()(accum, source);
    return v > Element(0) ? v : Element(0);
  }
};
}  // namespace epilogue

namespace threadblock {

// Loads a kRows x kColumns tile of a row-major operand into shared memory,
// then steps along K: A moves right by kColumns, B down by kRows.
template <typename Shape_, typename Element, int kThreads, bool kAdvanceRows>
class TileIterator {
 public:
  static constexpr int kRows = Shape_::kM;
  static constexpr int kColumns = Shape_::kN;
  static constexpr int kElementsPerThread = (kRows * kColumns + kThreads - 1) / kThreads;

 private:
  TensorRef<Element const, layout::RowMajor> ref_;
  MatrixCoord offset_;
  MatrixCoord extent_;

 public:
  CUTLASS_DEVICE TileIterator(TensorRef<Element const, layout::RowMajor> ref, MatrixCoord extent,
                              MatrixCoord offset)
      : ref_(ref), offset_(offset), extent_(extent) {}

  CUTLASS_DEVICE void load(Element (&tile)[kRows][kColumns], int thread_idx) const {
    CUTLASS_PRAGMA_UNROLL
    for (int i = 0; i < kElementsPerThread; ++i) {
      int linear = thread_idx + i * kThreads;
      if (linear < kRows * kColumns) {
        int r = linear / kColumns;
        int c = linear % kColumns;
        MatrixCoord coord = offset_ + MatrixCoord(r, c);
        tile[r][c] = coord < extent_ ? ref_.at(coord) : Element(0);
      }
    }
  }

  CUTLASS_DEVICE TileIterator &operator++() {
    if (kAdvanceRows) {
      offset_ += MatrixCoord(kRows, 0);
    } else {
      offset_ += MatrixCoord(0, kColumns);
    }
    return *this;
  }
};

}  // namespace threadblock

namespace kernel {

template <typename ThreadblockShape_, typename ThreadShape_, typename Element_, typename Epilogue_>
struct Gemm {
  using ThreadblockShape = ThreadblockShape_;
  using ThreadShape = ThreadShape_;
  using Element = Element_;
  using Epilogue = Epilogue_;

  static constexpr int kThreadsM = ThreadblockShape::kM / ThreadShape::kM;
  static constexpr int kThreadsN = ThreadblockShape::kN / ThreadShape::kN;
  static constexpr int kThreadCount = kThreadsM * kThreadsN;

  static_assert(ThreadblockShape::kM % ThreadShape::kM == 0, "M must divide");
  static_assert(ThreadblockShape::kN % ThreadShape::kN == 0, "N must divide");

  using IteratorA = threadblock::TileIterator<GemmShape<ThreadblockShape::kM, ThreadblockShape::kK>, Element,
                                              kThreadCount, false>;
  using IteratorB = threadblock::TileIterator<GemmShape<ThreadblockShape::kK, ThreadblockShape::kN>, Element,
                                              kThreadCount, true>;

  struct SharedStorage {
    Element a[ThreadblockShape::kM][ThreadblockShape::kK];
    Element b[ThreadblockShape::kK][ThreadblockShape::kN];
  };

  struct Params {
    GemmCoord problem_size;
    TensorRef<Element const, layout::RowMajor> ref_A;
    TensorRef<Element const, layout::RowMajor> ref_B;
    TensorRef<Element const, layout::RowMajor> ref_C;
    TensorRef<Element, layout::RowMajor> ref_D;
    typename Epilogue::Params epilogue;
  };

  CUTLASS_DEVICE void operator()(Params const &params, SharedStorage &storage) {
    int const thread_idx = threadIdx.x;
    MatrixCoord tb_offset(blockIdx.y * ThreadblockShape::kM, blockIdx.x * ThreadblockShape::kN);

    IteratorA iterator_A(params.ref_A, params.problem_size.mk(), MatrixCoord(tb_offset.row(), 0));
    IteratorB iterator_B(params.ref_B, params.problem_size.kn(), MatrixCoord(0, tb_offset.column()));

    int const thread_m = (thread_idx / kThreadsN) * ThreadShape::kM;
    int const thread_n = (thread_idx % kThreadsN) * ThreadShape::kN;

    Element accum[ThreadShape::kM][ThreadShape::kN];
    CUTLASS_PRAGMA_UNROLL
    for (int m = 0; m < ThreadShape::kM; ++m) {
      CUTLASS_PRAGMA_UNROLL
      for (int n = 0; n < ThreadShape::kN; ++n) {
        accum[m][n] = Element(0);
      }
    }

    int gemm_k_iterations = (params.problem_size.k() + ThreadblockShape::kK - 1) / ThreadblockShape::kK;
    for (; gemm_k_iterations > 0; --gemm_k_iterations) {
      iterator_A.load(storage.a, thread_idx);
      iterator_B.load(storage.b, thread_idx);
      __syncthreads();

      CUTLASS_PRAGMA_UNROLL
      for (int k = 0; k < ThreadblockShape::kK; ++k) {
        Element frag_a[ThreadShape::kM];
        Element frag_b[ThreadShape::kN];
        CUTLASS_PRAGMA_UNROLL
        for (int m = 0; m < ThreadShape::kM; ++m) frag_a[m] = storage.a[thread_m + m][k];
        CUTLASS_PRAGMA_UNROLL
        for (int n = 0; n < ThreadShape::kN; ++n) frag_b[n] = storage.b[k][thread_n + n];
        CUTLASS_PRAGMA_UNROLL
        for (int m = 0; m < ThreadShape::kM; ++m) {
          CUTLASS_PRAGMA_UNROLL
          for (int n = 0; n < ThreadShape::kN; ++n) {
            accum[m][n] += frag_a[m] * frag_b[n];
          }
        }
      }
      __syncthreads();
      ++iterator_A;
      ++iterator_B;
    }

    Epilogue op(params.epilogue);
    MatrixCoord extent(params.problem_size.m(), params.problem_size.n());
    CUTLASS_PRAGMA_UNROLL
    for (int m = 0; m < ThreadShape::kM; ++m) {
      CUTLASS_PRAGMA_UNROLL
      for (int n = 0; n < ThreadShape::kN; ++n) {
        MatrixCoord coord = tb_offset + MatrixCoord(thread_m + m, thread_n + n);
        if (coord < extent) {
          params.ref_D.at(coord) = op(accum[m][n], params.ref_C.at(coord));
        }
      }
    }
  }
};

}  // namespace kernel

template <typename Operator>
__global__ void __launch_bounds__(Operator::kThreadCount) Kernel(typename Operator::Params params) {
  __shared__ typename Operator::SharedStorage shared_storage;
  Operator op;
  op(params, shared_storage);
}

// The same kernels with raw pointers, for launches that take no structs.
template <typename Operator>
__global__ void __launch_bounds__(Operator::kThreadCount)
    KernelPtr(int m, int n, int k, float alpha, const float *A, int lda, const float *B, int ldb,
                  float beta, const float *C, int ldc, float *D) {
  __shared__ typename Operator::SharedStorage shared_storage;
  typename Operator::Params params{
      GemmCoord(m, n, k),
      TensorRef<float const, layout::RowMajor>(A, layout::RowMajor(lda)),
      TensorRef<float const, layout::RowMajor>(B, layout::RowMajor(ldb)),
      TensorRef<float const, layout::RowMajor>(C, layout::RowMajor(ldc)),
      TensorRef<float, layout::RowMajor>(D, layout::RowMajor(ldc)),
      typename Operator::Epilogue::Params(alpha, beta)};
  Operator op;
  op(params, shared_storage);
}

namespace device {
template <typename ThreadblockShape, typename ThreadShape, typename Epilogue = epilogue::LinearCombination<float>>
class Gemm {
 public:
  using GemmKernel = kernel::Gemm<ThreadblockShape, ThreadShape, float, Epilogue>;

  cudaError_t operator()(GemmCoord problem, float alpha, const float *A, const float *B, float beta, const float *C,
                         float *D, cudaStream_t stream = nullptr) {
    dim3 grid((problem.n() + ThreadblockShape::kN - 1) / ThreadblockShape::kN,
              (problem.m() + ThreadblockShape::kM - 1) / ThreadblockShape::kM);
    dim3 block(GemmKernel::kThreadCount);
    KernelPtr<GemmKernel><<<grid, block, 0, stream>>>(problem.m(), problem.n(), problem.k(), alpha, A,
                                                           problem.k(), B, problem.n(), beta, C, problem.n(), D);
    return cudaGetLastError();
  }

  cudaError_t run_params(typename GemmKernel::Params const &params, cudaStream_t stream = nullptr) {
    dim3 grid((params.problem_size.n() + ThreadblockShape::kN - 1) / ThreadblockShape::kN,
              (params.problem_size.m() + ThreadblockShape::kM - 1) / ThreadblockShape::kM);
    cutlite::Kernel<GemmKernel><<<grid, GemmKernel::kThreadCount, 0, stream>>>(params);
    return cudaGetLastError();
  }
};
}  // namespace device

}  // namespace cutlite

using namespace cutlite;

static void reference_gemm(int M, int N, int K, float alpha, const std::vector<float> &A,
                           const std::vector<float> &B, float beta, const std::vector<float> &C,
                           std::vector<float> &D, bool relu) {
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double acc = 0.0;
      for (int k = 0; k < K; ++k) acc += (double)A[i * K + k] * B[k * N + j];
      float v = alpha * (float)acc + beta * C[i * N + j];
      D[i * N + j] = relu && v < 0.0f ? 0.0f : v;
    }
}

template <typename GemmOp>
static bool run_case(const char *name, int M, int N, int K, bool relu) {
  std::vector<float> A(M * K), B(K * N), C(M * N), D(M * N), ref(M * N);
  for (auto &v : A) v = (rand() % 17 - 8) / 8.0f;
  for (auto &v : B) v = (rand() % 13 - 6) / 4.0f;
  for (auto &v : C) v = (rand() % 5 - 2) * 1.0f;
  float *dA, *dB, *dC, *dD;
  CUTLASS_CHECK(cudaMalloc(&dA, A.size() * sizeof(float)));
  CUTLASS_CHECK(cudaMalloc(&dB, B.size() * sizeof(float)));
  CUTLASS_CHECK(cudaMalloc(&dC, C.size() * sizeof(float)));
  CUTLASS_CHECK(cudaMalloc(&dD, D.size() * sizeof(float)));
  CUTLASS_CHECK(cudaMemcpy(dA, A.data(), A.size() * sizeof(float), cudaMemcpyHostToDevice));
  CUTLASS_CHECK(cudaMemcpy(dB, B.data(), B.size() * sizeof(float), cudaMemcpyHostToDevice));
  CUTLASS_CHECK(cudaMemcpy(dC, C.data(), C.size() * sizeof(float), cudaMemcpyHostToDevice));

  GemmOp gemm_op;
  auto start = std::chrono::high_resolution_clock::now();
  CUTLASS_CHECK(gemm_op(GemmCoord(M, N, K), 1.5f, dA, dB, 0.5f, dC, dD));
  CUTLASS_CHECK(cudaDeviceSynchronize());
  auto stop = std::chrono::high_resolution_clock::now();

  CUTLASS_CHECK(cudaMemcpy(D.data(), dD, D.size() * sizeof(float), cudaMemcpyDeviceToHost));
  reference_gemm(M, N, K, 1.5f, A, B, 0.5f, C, ref, relu);
  int bad = 0;
  for (int i = 0; i < M * N; ++i)
    if (std::fabs(D[i] - ref[i]) > 1e-3f * (1.0f + std::fabs(ref[i]))) ++bad;
  printf("%-24s %4dx%4dx%4d  %8.3f ms  %s\n", name, M, N, K,
         std::chrono::duration<double, std::milli>(stop - start).count(), bad ? "FAILED" : "ok");
  cudaFree(dA);
  cudaFree(dB);
  cudaFree(dC);
  cudaFree(dD);
  return bad == 0;
}

int main() {
  srand(2024);
  bool ok = true;
  ok &= run_case<device::Gemm<GemmShape<64, 64, 8>, GemmShape<8, 8, 1>>>("64x64x8 / 8x8", 200, 136, 72, false);
  ok &= run_case<device::Gemm<GemmShape<32, 32, 16>, GemmShape<4, 4, 1>>>("32x32x16 / 4x4", 97, 65, 33, false);
  ok &= run_case<device::Gemm<GemmShape<32, 64, 8>, GemmShape<4, 8, 1>,
                              epilogue::LinearCombinationRelu<float>>>("32x64x8 / 4x8 relu", 64, 128, 40, true);

  // The Params path: one struct passed by value.
  using Simple = device::Gemm<GemmShape<16, 16, 16>, GemmShape<2, 2, 1>>;
  int M = 48, N = 40, K = 24;
  std::vector<float> A(M * K, 1.0f), B(K * N, 0.5f), C(M * N, 0.0f), D(M * N);
  float *dA, *dB, *dC, *dD;
  CUTLASS_CHECK(cudaMalloc(&dA, A.size() * sizeof(float)));
  CUTLASS_CHECK(cudaMalloc(&dB, B.size() * sizeof(float)));
  CUTLASS_CHECK(cudaMalloc(&dC, C.size() * sizeof(float)));
  CUTLASS_CHECK(cudaMalloc(&dD, D.size() * sizeof(float)));
  cudaMemcpy(dA, A.data(), A.size() * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(dB, B.data(), B.size() * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(dC, C.data(), C.size() * sizeof(float), cudaMemcpyHostToDevice);
  Simple::GemmKernel::Params params{GemmCoord(M, N, K),
                                    {dA, layout::RowMajor(K)},
                                    {dB, layout::RowMajor(N)},
                                    {dC, layout::RowMajor(N)},
                                    {dD, layout::RowMajor(N)},
                                    {1.0f, 0.0f}};
  Simple simple;
  CUTLASS_CHECK(simple.run_params(params));
  CUTLASS_CHECK(cudaMemcpy(D.data(), dD, D.size() * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < M * N; ++i) ok &= D[i] == 0.5f * K;
  cudaFree(dA);
  cudaFree(dB);
  cudaFree(dC);
  cudaFree(dD);
  printf("%s\n", ok ? "Passed" : "Failed");
  return ok ? 0 : 1;
}
