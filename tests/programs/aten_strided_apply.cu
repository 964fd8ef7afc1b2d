// Strided element-wise kernels in the style of a tensor library's
// "apply" utilities: a TensorInfo<T, IndexType> describes a strided view
// (sizes and strides up to MAX_DIMS), IndexToOffset is a class template
// specialized on the dimension count (-1 for "any", 1 and 2 unrolled), and
// kernels over <scalar_t, IndexType, ADims, BDims> are instantiated by a
// host dispatcher that collapses contiguous dimensions, picks 32-bit
// indexing when the tensor fits, and switches over the dimension counts.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <type_traits>

#define C10_CUDA_CHECK(EXPR)                                                               \
  do {                                                                                     \
    const cudaError_t __err = EXPR;                                                        \
    if (__err != cudaSuccess) {                                                            \
      fprintf(stderr, "CUDA error: %s (%s:%d)\n", cudaGetErrorString(__err), __FILE__, __LINE__); \
      abort();                                                                             \
    }                                                                                      \
  } while (0)
#define C10_CUDA_KERNEL_LAUNCH_CHECK() C10_CUDA_CHECK(cudaGetLastError())

#define C10_HOST_DEVICE __host__ __device__
#define C10_DEVICE __device__
#define C10_MAX_THREADS_PER_BLOCK(val) (((val) <= 1024) ? (val) : 1024)
#define C10_LAUNCH_BOUNDS_1(max_threads_per_block) __launch_bounds__((C10_MAX_THREADS_PER_BLOCK((max_threads_per_block))))

namespace at {
namespace cuda {
namespace detail {

constexpr int MAX_TENSORINFO_DIMS = 25;

template <typename T, typename IndexType>
struct TensorInfo {
  TensorInfo();
  TensorInfo(T *p, int dim, IndexType sz[MAX_TENSORINFO_DIMS], IndexType st[MAX_TENSORINFO_DIMS]);

  // Merges adjacent dimensions that are contiguous in memory.
  int collapseDims();

  C10_HOST_DEVICE inline bool isContiguous() const { return (dims == 1 && strides[0] == 1); }

  T *data;
  IndexType sizes[MAX_TENSORINFO_DIMS];
  IndexType strides[MAX_TENSORINFO_DIMS];
  int dims;
};

template <typename T, typename IndexType>
TensorInfo<T, IndexType>::TensorInfo() {
  data = nullptr;
  dims = 0;
}

template <typename T, typename IndexType>
TensorInfo<T, IndexType>::TensorInfo(T *p, int dim, IndexType sz[MAX_TENSORINFO_DIMS],
                                     IndexType st[MAX_TENSORINFO_DIMS]) {
  data = p;
  dims = dim;
  for (int i = 0; i < dim; ++i) {
    sizes[i] = sz[i];
    strides[i] = st[i];
  }
}

template <typename T, typename IndexType>
int TensorInfo<T, IndexType>::collapseDims() {
  int out = 0;
  for (int i = 1; i < dims; ++i) {
    if (strides[out] == sizes[i] * strides[i]) {
      sizes[out] *= sizes[i];
      strides[out] = strides[i];
    } else {
      ++out;
      sizes[out] = sizes[i];
      strides[out] = strides[i];
    }
  }
  dims = out + 1;
  return dims;
}

// Translates a linear index into an offset, dimension by dimension.
template <typename T, typename IndexType, int Dims>
struct IndexToOffset {
  static C10_HOST_DEVICE IndexType get(IndexType linearId, const TensorInfo<T, IndexType> &info) {
    IndexType offset = 0;
#pragma unroll
    for (int i = Dims - 1; i > 0; --i) {
      IndexType curDimIndex = linearId % info.sizes[i];
      IndexType curDimOffset = curDimIndex * info.strides[i];
      offset += curDimOffset;
      linearId /= info.sizes[i];
    }
    return offset + linearId * info.strides[0];
  }
};

// Dims = -1: the count is known only at run time.
template <typename T, typename IndexType>
struct IndexToOffset<T, IndexType, -1> {
  static inline C10_HOST_DEVICE IndexType get(IndexType linearId, const TensorInfo<T, IndexType> &info) {
    IndexType offset = 0;
    for (int i = info.dims - 1; i > 0; --i) {
      IndexType curDimIndex = linearId % info.sizes[i];
      offset += curDimIndex * info.strides[i];
      linearId /= info.sizes[i];
    }
    return offset + linearId * info.strides[0];
  }
};

template <typename T, typename IndexType>
struct IndexToOffset<T, IndexType, 1> {
  static inline C10_HOST_DEVICE IndexType get(IndexType linearId, const TensorInfo<T, IndexType> &info) {
    return linearId * info.strides[0];
  }
};

}  // namespace detail
}  // namespace cuda
}  // namespace at

namespace at {
namespace native {

using cuda::detail::IndexToOffset;
using cuda::detail::TensorInfo;

constexpr int kApplyThreads = 512;

template <typename scalar_t>
struct AddScaledOp {
  scalar_t alpha;
  C10_DEVICE void operator()(scalar_t &a, const scalar_t &b) const { a = a + alpha * b; }
};

template <typename scalar_t>
struct CopyOp {
  C10_DEVICE void operator()(scalar_t &a, const scalar_t &b) const { a = b; }
};

template <typename Op, typename scalar_t, typename IndexType, int ADims, int BDims>
C10_LAUNCH_BOUNDS_1(kApplyThreads)
__global__ void kernelPointwiseApply2(TensorInfo<scalar_t, IndexType> a, TensorInfo<scalar_t, IndexType> b,
                                      IndexType totalElements, const Op op) {
  for (IndexType linearIndex = blockIdx.x * blockDim.x + threadIdx.x; linearIndex < totalElements;
       linearIndex += gridDim.x * blockDim.x) {
    const IndexType aOffset = IndexToOffset<scalar_t, IndexType, ADims>::get(linearIndex, a);
    const IndexType bOffset = IndexToOffset<scalar_t, IndexType, BDims>::get(linearIndex, b);
    op(a.data[aOffset], b.data[bOffset]);
  }
}

// A plain-pointer variant over one 2-D strided view, for standalone runs.
template <typename scalar_t, typename IndexType>
C10_LAUNCH_BOUNDS_1(kApplyThreads)
__global__ void strided_copy_2d(scalar_t *dst, const scalar_t *src, IndexType rows, IndexType cols,
                                IndexType srcRowStride, IndexType srcColStride) {
  const IndexType total = rows * cols;
  for (IndexType i = blockIdx.x * blockDim.x + threadIdx.x; i < total; i += gridDim.x * blockDim.x) {
    const IndexType r = i / cols, c = i % cols;
    dst[i] = src[r * srcRowStride + c * srcColStride];
  }
}

template <typename scalar_t>
C10_LAUNCH_BOUNDS_1(256)
__global__ void fill_kernel(scalar_t *out, int64_t n, scalar_t value) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = value;
}

template <typename scalar_t, typename IndexType>
static TensorInfo<scalar_t, IndexType> makeInfo(scalar_t *data, const std::vector<int64_t> &sizes,
                                                const std::vector<int64_t> &strides) {
  IndexType sz[cuda::detail::MAX_TENSORINFO_DIMS], st[cuda::detail::MAX_TENSORINFO_DIMS];
  for (size_t i = 0; i < sizes.size(); ++i) {
    sz[i] = (IndexType)sizes[i];
    st[i] = (IndexType)strides[i];
  }
  return TensorInfo<scalar_t, IndexType>(data, (int)sizes.size(), sz, st);
}

#define HANDLE_CASE(TYPE, A, B)                                                                       \
  kernelPointwiseApply2<Op, scalar_t, TYPE, A, B><<<grid, kApplyThreads, 0, stream>>>(aInfo, bInfo, \
                                                                                        (TYPE)total, op);

#define HANDLE_B_CASE(TYPE, A, B) \
  {                               \
    switch (B) {                  \
      case 1:                     \
        HANDLE_CASE(TYPE, A, 1);  \
        break;                    \
      case 2:                     \
        HANDLE_CASE(TYPE, A, 2);  \
        break;                    \
      default:                    \
        HANDLE_CASE(TYPE, A, -1); \
        break;                    \
    }                             \
  }

#define HANDLE_A_CASE(TYPE, A, B)   \
  {                                 \
    switch (A) {                    \
      case 1:                       \
        HANDLE_B_CASE(TYPE, 1, B);  \
        break;                      \
      case 2:                       \
        HANDLE_B_CASE(TYPE, 2, B);  \
        break;                      \
      default:                      \
        HANDLE_B_CASE(TYPE, -1, B); \
        break;                      \
    }                               \
  }

template <typename scalar_t, typename Op>
void apply2(scalar_t *a, const std::vector<int64_t> &aSizes, const std::vector<int64_t> &aStrides, scalar_t *b,
            const std::vector<int64_t> &bStrides, const Op op, cudaStream_t stream = 0) {
  int64_t total = 1;
  for (int64_t s : aSizes) total *= s;
  const dim3 grid((unsigned)((total + kApplyThreads - 1) / kApplyThreads));
  if (total <= INT32_MAX) {
    auto aInfo = makeInfo<scalar_t, unsigned int>(a, aSizes, aStrides);
    auto bInfo = makeInfo<scalar_t, unsigned int>(b, aSizes, bStrides);
    aInfo.collapseDims();
    bInfo.collapseDims();
    HANDLE_A_CASE(unsigned int, aInfo.dims, bInfo.dims);
  } else {
    auto aInfo = makeInfo<scalar_t, uint64_t>(a, aSizes, aStrides);
    auto bInfo = makeInfo<scalar_t, uint64_t>(b, aSizes, bStrides);
    aInfo.collapseDims();
    bInfo.collapseDims();
    if (aInfo.dims == 1 && bInfo.dims == 1) {
      HANDLE_CASE(uint64_t, 1, 1);
    } else {
      HANDLE_CASE(uint64_t, -1, -1);
    }
  }
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

}  // namespace native
}  // namespace at

// At file scope: kernelc does not see a using-directive in a host
// function's body when it types the arguments of host template calls
// (tests/programs/README.md, "What kernelc refuses").
using namespace at::native;

int main() {
  const int64_t R = 37, C = 53;
  std::vector<float> hostA(R * C), hostB(C * R);
  for (int64_t i = 0; i < R * C; ++i) {
    hostA[i] = (float)(i % 11);
    hostB[i] = (float)(i % 7) - 3.0f;
  }
  float *a, *b, *t;
  C10_CUDA_CHECK(cudaMalloc(&a, R * C * sizeof(float)));
  C10_CUDA_CHECK(cudaMalloc(&b, R * C * sizeof(float)));
  C10_CUDA_CHECK(cudaMalloc(&t, R * C * sizeof(float)));
  C10_CUDA_CHECK(cudaMemcpy(a, hostA.data(), R * C * sizeof(float), cudaMemcpyHostToDevice));
  C10_CUDA_CHECK(cudaMemcpy(b, hostB.data(), R * C * sizeof(float), cudaMemcpyHostToDevice));

  // a (R x C, contiguous) += 0.5 * b^T, where b is stored C x R: b's view has strides (1, R).
  apply2(a, {R, C}, {C, 1}, b, {1, R}, AddScaledOp<float>{0.5f});
  // t = a viewed as contiguous (collapses to one dimension)
  apply2(t, {R, C}, {C, 1}, a, {C, 1}, CopyOp<float>{});
  // a 3-D view with a broadcast (stride 0) dimension
  apply2(t, {R, 1, C}, {C, C, 1}, a, {C, 0, 1}, CopyOp<float>{});

  strided_copy_2d<float, int><<<(R * C + 255) / 256, 256>>>(t, b, (int)R, (int)C, 1, (int)R);
  fill_kernel<double><<<1, 256>>>(nullptr, 0, 1.0);
  fill_kernel<float><<<(R * C + 255) / 256, 256>>>(b, R * C, 2.0f);
  C10_CUDA_KERNEL_LAUNCH_CHECK();

  std::vector<float> got(R * C), trans(R * C);
  C10_CUDA_CHECK(cudaMemcpy(got.data(), a, R * C * sizeof(float), cudaMemcpyDeviceToHost));
  C10_CUDA_CHECK(cudaMemcpy(trans.data(), t, R * C * sizeof(float), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int64_t r = 0; r < R; ++r)
    for (int64_t c = 0; c < C; ++c) {
      float expect = hostA[r * C + c] + 0.5f * hostB[c * R + r];
      if (got[r * C + c] != expect) ++bad;
      if (trans[r * C + c] != hostB[c * R + r]) ++bad;
    }
  cudaFree(a);
  cudaFree(b);
  cudaFree(t);
  printf("%s (%d mismatches)\n", bad ? "FAIL" : "OK", bad);
  return bad ? 1 : 0;
}
