// <cub/cub.cuh> for kernelc (and <cub/block/block_reduce.cuh>,
// <cub/warp/warp_reduce.cuh>, <cub/block/block_scan.cuh>, which name this
// header too): CUB's block- and warp-wide reductions and the block-wide
// sums of integers, with the functors of libcu++ that CUB's headers bring
// (`cuda::std::plus<>`, `cuda::maximum<>`, `cuda::minimum<>`), written for
// kernelc as class templates of CUDA source.
//
// A floating sum depends on its order, so each reduction combines values
// in CUB 3's order (the CUB of CUDA 13), and its results are CUB's bit for
// bit:
// - a warp (or a logical warp of 2^k lanes) folds lane i+d into lane i for
//   d = 1, 2, 4, ... below its size, as op(lane i, lane i+d), when lane
//   i+d holds a valid item (a `shfl.down` ladder);
// - a block (the default algorithm, `BLOCK_REDUCE_WARP_REDUCTIONS`)
//   reduces each warp so, then thread 0 folds the warps' results in warp
//   order, op(sum so far, warp w), leaving out the warps past `num_valid`.
// As with CUB, the result is valid in thread 0 (lane 0 of each logical
// warp for `WarpReduce`), and reusing a `TempStorage` needs a
// `__syncthreads()` between the uses.
//
// CUB names outside this subset are refused where device code writes them
// (`frontend/src/libraries.rs`, E0002); docs/language.md lists the subset.
#pragma once

// libcu++ declares them in its ABI's inline namespace, which kernel names
// instantiated with them spell (`cuda::std::__4::plus<void>`).
namespace cuda {
namespace std {
inline namespace __4 {

template <class T = void> struct plus {
  __host__ __device__ T operator()(const T &a, const T &b) const { return a + b; }
};

template <> struct plus<void> {
  template <class A, class B>
  __host__ __device__ auto operator()(const A &a, const B &b) const -> decltype(a + b) {
    return a + b;
  }
};

} // namespace __4
} // namespace std

inline namespace __4 {

namespace __kernelc_cub {

// libcu++'s `maximum` and `minimum` are `fmax` and `fmin` on floating types
// (a NaN loses to a number) and a comparison on the others.
template <class T> __host__ __device__ T larger(const T &a, const T &b) { return a < b ? b : a; }
__host__ __device__ inline float larger(const float &a, const float &b) { return fmaxf(a, b); }
__host__ __device__ inline double larger(const double &a, const double &b) { return fmax(a, b); }
template <class T> __host__ __device__ T smaller(const T &a, const T &b) { return a < b ? a : b; }
__host__ __device__ inline float smaller(const float &a, const float &b) { return fminf(a, b); }
__host__ __device__ inline double smaller(const double &a, const double &b) { return fmin(a, b); }

} // namespace __kernelc_cub

template <class T = void> struct maximum {
  __host__ __device__ T operator()(const T &a, const T &b) const {
    return __kernelc_cub::larger(a, b);
  }
};

template <> struct maximum<void> {
  template <class T> __host__ __device__ T operator()(const T &a, const T &b) const {
    return __kernelc_cub::larger(a, b);
  }
};

template <class T = void> struct minimum {
  __host__ __device__ T operator()(const T &a, const T &b) const {
    return __kernelc_cub::smaller(a, b);
  }
};

template <> struct minimum<void> {
  template <class T> __host__ __device__ T operator()(const T &a, const T &b) const {
    return __kernelc_cub::smaller(a, b);
  }
};

} // namespace __4
} // namespace cuda

namespace cub {

enum BlockReduceAlgorithm {
  BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY,
  BLOCK_REDUCE_RAKING,
  BLOCK_REDUCE_WARP_REDUCTIONS,
  BLOCK_REDUCE_WARP_REDUCTIONS_NONDETERMINISTIC,
};

enum BlockScanAlgorithm {
  BLOCK_SCAN_RAKING,
  BLOCK_SCAN_RAKING_MEMOIZE,
  BLOCK_SCAN_WARP_SCANS,
};

namespace __kernelc {

// The thread's rank in its block, x fastest; a warp is 32 consecutive
// ranks, so the rank modulo 32 is the lane.
template <int DimX, int DimY, int DimZ> __device__ __forceinline__ int rank() {
  int r = threadIdx.x;
  if (DimY > 1) r += threadIdx.y * DimX;
  if (DimZ > 1) r += threadIdx.z * DimX * DimY;
  return r;
}

// The lanes of the logical warp of `Size` lanes that holds `lane`.
template <int Size> __device__ __forceinline__ unsigned int warp_lanes(int lane) {
  if (Size == 32) return 0xffffffffu;
  return ((1u << Size) - 1u) << (lane / Size * Size);
}

// The reduction of the `valid` items of a logical warp of `Size` lanes into
// its lane 0 (`lane` is the lane within the logical warp): at each step,
// lane i takes op(its value, lane i+d's) while lane i+d is below `valid`.
template <int Size, class T, class Op>
__device__ __forceinline__ T warp_fold(T x, int lane, int valid, unsigned int lanes, Op op) {
  for (int d = 1; d < Size; d *= 2) {
    T other = __shfl_down_sync(lanes, x, d, Size);
    if (lane + d < valid) x = op(x, other);
  }
  return x;
}

// What a block of `Threads` threads reduces through: one result per warp.
template <class T, int Threads> struct BlockStorage {
  T warp_results[(Threads + 31) / 32];
};

// A block of `Threads` threads reduced warp by warp (a block of fewer than
// 32 is one logical warp of its size); thread 0 then folds the warps'
// results in order. `full`: every thread holds a valid item.
template <int Threads, class T, class Op>
__device__ __forceinline__ T block_fold(T *warp_results, int rank, T x, bool full, int num_valid,
                                        Op op) {
  static_assert(Threads >= 32 || (Threads & (Threads - 1)) == 0,
                "kernelc's cub::BlockReduce needs at least 32 threads or a power of two");
  const int warp_size = Threads < 32 ? Threads : 32;
  const int warps = (Threads + 31) / 32;
  const bool whole_warps = Threads % warp_size == 0;
  int warp = warps == 1 ? 0 : rank / 32;
  int lane = rank & 31;
  int first = warp * warp_size;
  bool all = (full && whole_warps) || first + warp_size <= num_valid;
  int valid = all ? warp_size : num_valid - first;
  T result = warp_fold<(Threads < 32 ? Threads : 32)>(x, lane, valid,
                                                      warp_lanes<(Threads < 32 ? Threads : 32)>(lane), op);
  if (lane == 0) warp_results[warp] = result;
  __syncthreads();
  if (rank == 0) {
    for (int w = 1; w < warps; ++w) {
      if (full || w * warp_size < num_valid) result = op(result, warp_results[w]);
    }
  }
  return result;
}

// The element types whose sums `BlockScan` gives: integers, whose sums
// wrap and so are the same in any order (a floating scan's bits depend on
// CUB's raking order, which this header does not follow).
template <class T> struct exact_sum { static constexpr bool value = false; };
template <> struct exact_sum<char> { static constexpr bool value = true; };
template <> struct exact_sum<signed char> { static constexpr bool value = true; };
template <> struct exact_sum<unsigned char> { static constexpr bool value = true; };
template <> struct exact_sum<short> { static constexpr bool value = true; };
template <> struct exact_sum<unsigned short> { static constexpr bool value = true; };
template <> struct exact_sum<int> { static constexpr bool value = true; };
template <> struct exact_sum<unsigned int> { static constexpr bool value = true; };
template <> struct exact_sum<long> { static constexpr bool value = true; };
template <> struct exact_sum<unsigned long> { static constexpr bool value = true; };
template <> struct exact_sum<long long> { static constexpr bool value = true; };
template <> struct exact_sum<unsigned long long> { static constexpr bool value = true; };

// The inclusive and exclusive sums of a block of `Threads` threads and its
// total: each warp scans by a `shfl.up` ladder, then every thread adds the
// totals of the warps before its own.
template <int Threads, class T>
__device__ __forceinline__ void block_sums(T *warp_totals, int rank, T x, T &inclusive,
                                           T &exclusive, T &total) {
  const int warps = (Threads + 31) / 32;
  int warp = rank / 32;
  int lane = rank & 31;
  int present = Threads - warp * 32 < 32 ? Threads - warp * 32 : 32;
  unsigned int lanes = present == 32 ? 0xffffffffu : (1u << present) - 1u;
  T running = x;
  for (int d = 1; d < 32; d *= 2) {
    T below = __shfl_up_sync(lanes, running, d);
    if (lane >= d) running = running + below;
  }
  T before = __shfl_up_sync(lanes, running, 1);
  if (lane == present - 1) warp_totals[warp] = running;
  __syncthreads();
  T prefix = T(0);
  T sum = T(0);
  for (int w = 0; w < warps; ++w) {
    if (w == warp) prefix = sum;
    sum = sum + warp_totals[w];
  }
  inclusive = prefix + running;
  exclusive = lane == 0 ? prefix : prefix + before;
  total = sum;
}

} // namespace __kernelc

// CUB's overloads with and without a count of valid items are one function
// here, the count defaulting to "all": CUB reduces a count of at least the
// block's size as the whole block, so the results are the same.
constexpr int __kernelc_all_valid = 0x7fffffff;

template <class T, int BlockDimX, BlockReduceAlgorithm Algorithm = BLOCK_REDUCE_WARP_REDUCTIONS,
          int BlockDimY = 1, int BlockDimZ = 1>
class BlockReduce {
  static_assert(Algorithm == BLOCK_REDUCE_WARP_REDUCTIONS,
                "kernelc's cub::BlockReduce has the algorithm BLOCK_REDUCE_WARP_REDUCTIONS (the default) only");

public:
  struct TempStorage {
    __kernelc::BlockStorage<T, BlockDimX * BlockDimY * BlockDimZ> storage;
  };

private:
  TempStorage &temp;
  int rank;

public:
  __device__ __forceinline__ BlockReduce(TempStorage &temp_storage)
      : temp(temp_storage), rank(__kernelc::rank<BlockDimX, BlockDimY, BlockDimZ>()) {}

  template <class Op>
  __device__ __forceinline__ T Reduce(T input, Op op, int num_valid = __kernelc_all_valid) {
    const int threads = BlockDimX * BlockDimY * BlockDimZ;
    return __kernelc::block_fold<BlockDimX * BlockDimY * BlockDimZ>(
        temp.storage.warp_results, rank, input, num_valid >= threads, num_valid, op);
  }

  __device__ __forceinline__ T Sum(T input, int num_valid = __kernelc_all_valid) {
    return this->Reduce(input, cuda::std::plus<>(), num_valid);
  }
};

template <class T, int LogicalWarpThreads = 32> class WarpReduce {
  static_assert(LogicalWarpThreads > 0 && LogicalWarpThreads <= 32 &&
                    (LogicalWarpThreads & (LogicalWarpThreads - 1)) == 0,
                "kernelc's cub::WarpReduce needs a logical warp of 1, 2, 4, 8, 16 or 32 threads");

public:
  // Shuffles need no memory; CUB's storage is as empty.
  struct TempStorage {};

private:
  int lane;
  unsigned int lanes;

public:
  __device__ __forceinline__ WarpReduce(TempStorage &) {
    int hw_lane = ((threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x) & 31;
    lane = hw_lane % LogicalWarpThreads;
    lanes = __kernelc::warp_lanes<LogicalWarpThreads>(hw_lane);
  }

  template <class Op>
  __device__ __forceinline__ T Reduce(T input, Op op, int valid_items = LogicalWarpThreads) {
    return __kernelc::warp_fold<LogicalWarpThreads>(input, lane, valid_items, lanes, op);
  }

  __device__ __forceinline__ T Sum(T input, int valid_items = LogicalWarpThreads) {
    return this->Reduce(input, cuda::std::plus<>(), valid_items);
  }

  __device__ __forceinline__ T Max(T input) { return this->Reduce(input, cuda::maximum<>()); }
  __device__ __forceinline__ T Min(T input) { return this->Reduce(input, cuda::minimum<>()); }
};

// Block-wide prefix sums of integers (any algorithm argument: integer sums
// are the same whatever CUB's order).
template <class T, int BlockDimX, BlockScanAlgorithm Algorithm = BLOCK_SCAN_RAKING,
          int BlockDimY = 1, int BlockDimZ = 1>
class BlockScan {
  static_assert(__kernelc::exact_sum<T>::value,
                "kernelc's cub::BlockScan sums integer types only");

public:
  struct TempStorage {
    T warp_totals[(BlockDimX * BlockDimY * BlockDimZ + 31) / 32];
  };

private:
  TempStorage &temp;
  int rank;

public:
  __device__ __forceinline__ BlockScan(TempStorage &temp_storage)
      : temp(temp_storage), rank(__kernelc::rank<BlockDimX, BlockDimY, BlockDimZ>()) {}

  __device__ __forceinline__ void InclusiveSum(T input, T &output, T &block_aggregate) {
    T exclusive;
    __kernelc::block_sums<BlockDimX * BlockDimY * BlockDimZ, T>(temp.warp_totals, rank, input, output,
                                                            exclusive, block_aggregate);
  }

  __device__ __forceinline__ void InclusiveSum(T input, T &output) {
    T total;
    InclusiveSum(input, output, total);
  }

  __device__ __forceinline__ void ExclusiveSum(T input, T &output, T &block_aggregate) {
    T inclusive;
    __kernelc::block_sums<BlockDimX * BlockDimY * BlockDimZ, T>(temp.warp_totals, rank, input,
                                                            inclusive, output, block_aggregate);
  }

  __device__ __forceinline__ void ExclusiveSum(T input, T &output) {
    T total;
    ExclusiveSum(input, output, total);
  }
};

} // namespace cub
