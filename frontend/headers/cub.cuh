// <cub/cub.cuh> for kernelc (and <cub/block/block_reduce.cuh>,
// <cub/block/block_scan.cuh>, <cub/block/block_load.cuh>,
// <cub/block/block_store.cuh>, <cub/block/block_exchange.cuh>,
// <cub/block/block_radix_sort.cuh>, <cub/warp/warp_reduce.cuh>,
// <cub/warp/warp_scan.cuh>, which name this header too): CUB's block- and
// warp-wide reductions and scans, its block loads, stores and exchanges,
// its block radix sort, with the
// functors of libcu++ that CUB's headers bring (`cuda::std::plus<>`,
// `cuda::maximum<>`, `cuda::minimum<>`), written for kernelc as class
// templates of CUDA source.
//
// A floating sum depends on its order, so each reduction and scan
// combines values in CUB 3's order (the CUB of CUDA 13), and its results
// are CUB's bit for bit:
// - a warp (or a logical warp of 2^k lanes) reduces by folding lane i+d
//   into lane i for d = 1, 2, 4, ... below its size, as op(lane i, lane
//   i+d), when lane i+d holds a valid item (a `shfl.down` ladder);
// - a block (the default algorithm, `BLOCK_REDUCE_WARP_REDUCTIONS`)
//   reduces each warp so, then thread 0 folds the warps' results in warp
//   order, op(sum so far, warp w), leaving out the warps past `num_valid`;
//   the raking algorithms fold segments of consecutive items first
//   (`raking_reduce`, `commutative_reduce`);
// - a warp scans by a `shfl.up` ladder, op(lane i-d, lane i), and a block
//   by CUB's raking or warp-scans algorithm (`block_scan` below).
// As with CUB, a reduction's result is valid in thread 0 (lane 0 of each
// logical warp for `WarpReduce`), and reusing a `TempStorage` needs a
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

// The CUDA runtime's shared memory bank sizes, which name
// `cub::BlockRadixSort`'s eighth parameter's type and value.
enum cudaSharedMemConfig {
  cudaSharedMemBankSizeDefault = 0,
  cudaSharedMemBankSizeFourByte = 1,
  cudaSharedMemBankSizeEightByte = 2,
};

namespace cub {

// CUB's "no type": a `BlockRadixSort` of keys without values.
struct NullType {};

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

enum BlockLoadAlgorithm {
  BLOCK_LOAD_DIRECT,
  BLOCK_LOAD_STRIPED,
  BLOCK_LOAD_VECTORIZE,
  BLOCK_LOAD_TRANSPOSE,
  BLOCK_LOAD_WARP_TRANSPOSE,
  BLOCK_LOAD_WARP_TRANSPOSE_TIMESLICED,
};

enum BlockStoreAlgorithm {
  BLOCK_STORE_DIRECT,
  BLOCK_STORE_STRIPED,
  BLOCK_STORE_VECTORIZE,
  BLOCK_STORE_TRANSPOSE,
  BLOCK_STORE_WARP_TRANSPOSE,
  BLOCK_STORE_WARP_TRANSPOSE_TIMESLICED,
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

// What a block of `Threads` threads reduces through: one result per warp
// for BLOCK_REDUCE_WARP_REDUCTIONS; for the raking algorithms, one item a
// thread (the segments of `RakingLayout` below cover fewer than
// Threads + ceil(Threads / 32) slots).
template <class T, int Threads, BlockReduceAlgorithm Algorithm> struct ReduceStorage {
  T items[Threads + (Threads + 31) / 32];
};
template <class T, int Threads> struct ReduceStorage<T, Threads, BLOCK_REDUCE_WARP_REDUCTIONS> {
  T items[(Threads + 31) / 32];
};

// What CUB's raking block scan divides a block of `Threads` threads into:
// `Raking` threads (at most a warp) each scan a segment of `Segment`
// consecutive items in shared memory; a block of at most 32 threads is
// scanned as one logical warp.
template <int Threads> struct RakingLayout {
  static constexpr int most = Threads < 32 ? Threads : 32;
  static constexpr int segment = (Threads + most - 1) / most;
  static constexpr int raking = (Threads + segment - 1) / segment;
};

// The fold of `warp_fold` over a logical warp of any `Size` up to 32
// lanes that starts at lane 0 (raking threads, or a block of at most a
// warp): the shuffles span the whole warp, and the steps go up to the
// power of two at or past `Size`, as CUB's shared-memory warp reduction
// does for a size that is not a power of two (its order is the shuffles').
template <int Size, class T, class Op>
__device__ __forceinline__ T low_lanes_fold(T x, int lane, int valid, Op op) {
  const unsigned int lanes = Size == 32 ? 0xffffffffu : (1u << Size) - 1u;
  for (int d = 1; d < Size; d *= 2) {
    T other = __shfl_down_sync(lanes, x, d);
    if (lane + d < valid) x = op(x, other);
  }
  return x;
}

// CUB's BLOCK_REDUCE_RAKING: a block of at most a warp is one logical
// warp's fold; a larger one stores its items, each raking thread folds
// its segment of consecutive items left to right (the items before
// `num_valid`), and the raking threads fold their partials as a logical
// warp, those with a valid first item taking part.
template <int Threads, class T, class Op>
__device__ __forceinline__ T raking_reduce(T *grid, int rank, T x, int num_valid, Op op) {
  const int segment = RakingLayout<Threads>::segment;
  const int raking = RakingLayout<Threads>::raking;
  int valid = num_valid < Threads ? num_valid : Threads;
  if constexpr (Threads <= 32) {
    return low_lanes_fold<Threads>(x, rank, valid, op);
  }
  grid[rank] = x;
  __syncthreads();
  if (rank < raking) {
    T *items = grid + rank * segment;
    x = items[0];
    for (int i = 1; i < segment; ++i) {
      if (rank * segment + i < valid) x = op(x, items[i]);
    }
    x = low_lanes_fold<raking>(x, rank, (valid + segment - 1) / segment, op);
  }
  return x;
}

// Whether `ThreadReduce` of CUB folds a thread's items as a binary tree
// rather than left to right: for libcu++'s sum, maximum and minimum of
// items narrower than 8 bytes (integer sums and extrema are the same in
// any order, so only floats tell the two apart).
template <class Op> struct tree_op { static constexpr bool value = false; };
template <class U> struct tree_op<cuda::std::plus<U>> { static constexpr bool value = true; };
template <class U> struct tree_op<cuda::maximum<U>> { static constexpr bool value = true; };
template <class U> struct tree_op<cuda::minimum<U>> { static constexpr bool value = true; };

// `first` and the `Count` items after it folded as CUB's `ThreadReduce`
// of a thread's items after a prefix does: left to right, or for
// `tree_op`s as a binary tree (items 2j and 2j+1 first, then pairs of
// those, ...).
template <int Count, class T, class Op>
__device__ __forceinline__ T thread_fold(T first, const T *items, Op op) {
  if constexpr (tree_op<Op>::value && sizeof(T) < 8) {
    T all[Count + 1];
    all[0] = first;
    for (int i = 0; i < Count; ++i) all[i + 1] = items[i];
    for (int d = 1; d < Count + 1; d *= 2) {
      for (int j = 0; j + d < Count + 1; j += 2 * d) all[j] = op(all[j], all[j + d]);
    }
    return all[0];
  } else {
    for (int i = 0; i < Count; ++i) first = op(first, items[i]);
    return first;
  }
}

// CUB's BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY over a full block of two
// warps or more (CUB falls back to BLOCK_REDUCE_RAKING otherwise): the
// threads past the first warp store their items, each thread of the first
// warp folds its own item and its segment of (Threads - 32) / 32 of them
// with `thread_fold`, and the warp folds the results.
template <int Threads, class T, class Op>
__device__ __forceinline__ T commutative_reduce(T *grid, int rank, T x, int num_valid, Op op) {
  if constexpr (Threads % 32 != 0 || Threads <= 32) {
    return raking_reduce<Threads>(grid, rank, x, num_valid, op);
  } else {
    if (num_valid < Threads) return raking_reduce<Threads>(grid, rank, x, num_valid, op);
    const int segment = (Threads - 32) / 32;
    if (rank >= 32) grid[rank - 32] = x;
    __syncthreads();
    if (rank < 32) {
      x = thread_fold<segment>(x, grid + rank * segment, op);
      x = low_lanes_fold<32>(x, rank, 32, op);
    }
    return x;
  }
}

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

// The inclusive scan of a logical warp of `Size` lanes (`lane` is the
// lane within it): at each step d = 1, 2, 4, ... below `Size`, a lane at
// or past d takes op(lane - d's value, its own) (a `shfl.up` ladder).
// `Width` is the shuffle's segment: `Size` for a logical warp of 2^k lanes,
// 32 for the raking lanes of a block, which start at lane 0.
template <int Size, int Width, class T, class Op>
__device__ __forceinline__ T warp_inclusive(T x, int lane, unsigned int lanes, Op op) {
  for (int d = 1; d < Size; d *= 2) {
    T lower = __shfl_up_sync(lanes, x, d, Width);
    if (lane >= d) x = op(lower, x);
  }
  return x;
}

// The exclusive results of a logical warp from its inclusive ones: lane
// i - 1's, and `init` in lane 0 when there is one (CUB then combines
// `init` into the inclusive results first); without one, lane 0's is
// undefined, as in CUB.
template <int Width, class T, class Op>
__device__ __forceinline__ T warp_exclusive(T &inclusive, int lane, unsigned int lanes, Op op,
                                            bool has_init, T init) {
  if (has_init) inclusive = op(init, inclusive);
  T exclusive = __shfl_up_sync(lanes, inclusive, 1, Width);
  if (has_init && lane == 0) exclusive = init;
  return exclusive;
}

// Whether a scan's output `Out` is a thread's array of items rather than
// one item of type `T`.
template <class Out, class T> struct items_of { static constexpr bool value = true; };
template <class T> struct items_of<T, T> { static constexpr bool value = false; };
// kernelc deduces a `long long` argument's type as `long` (both 64 bits),
// which its `is_same` tells apart.
template <> struct items_of<long, long long> { static constexpr bool value = false; };
template <> struct items_of<unsigned long, unsigned long long> {
  static constexpr bool value = false;
};
template <> struct items_of<long long, long> { static constexpr bool value = false; };
template <> struct items_of<unsigned long long, unsigned long> {
  static constexpr bool value = false;
};

// Stores a scan's total where the caller asked for it (`give(v)` with no
// place is nothing).
template <class T> __device__ __forceinline__ void give(const T &) {}
template <class T, class Place>
__device__ __forceinline__ void give(const T &value, Place &place) {
  static_assert(!items_of<Place, T>::value,
                "kernelc's cub::BlockScan and cub::WarpScan take no prefix callback: a scan's "
                "last argument is the place for its aggregate, of the scan's type");
  if constexpr (!items_of<Place, T>::value) place = value;
}

// An exclusive scan from an initial value, with or without a place for
// the total, by a `BlockScan` or `WarpScan`.
template <class Scanner, class T, class I, class Op>
__device__ __forceinline__ T scan_from(Scanner &scanner, T input, I init, Op op) {
  T total;
  return scanner.exclusive_from(input, T(init), op, total);
}
template <class Scanner, class T, class I, class Op, class Total>
__device__ __forceinline__ T scan_from(Scanner &scanner, T input, I init, Op op, Total &total) {
  return scanner.exclusive_from(input, T(init), op, total);
}

// How a block scan is asked for: inclusive or exclusive, with an initial
// value or without (an exclusive scan without one leaves thread 0's
// result undefined, as CUB does).
struct ScanKind {
  bool inclusive;
  bool has_init;
};

// Whether a scan's argument is an initial value (of an arithmetic type)
// rather than an operator: CUB's `ExclusiveScan(x, out, init, op)` and
// `ExclusiveScan(x, out, op, block_aggregate)` differ by it.
template <class A> struct is_value { static constexpr bool value = false; };
template <> struct is_value<char> { static constexpr bool value = true; };
template <> struct is_value<signed char> { static constexpr bool value = true; };
template <> struct is_value<unsigned char> { static constexpr bool value = true; };
template <> struct is_value<short> { static constexpr bool value = true; };
template <> struct is_value<unsigned short> { static constexpr bool value = true; };
template <> struct is_value<int> { static constexpr bool value = true; };
template <> struct is_value<unsigned int> { static constexpr bool value = true; };
template <> struct is_value<long> { static constexpr bool value = true; };
template <> struct is_value<unsigned long> { static constexpr bool value = true; };
template <> struct is_value<long long> { static constexpr bool value = true; };
template <> struct is_value<unsigned long long> { static constexpr bool value = true; };
template <> struct is_value<float> { static constexpr bool value = true; };
template <> struct is_value<double> { static constexpr bool value = true; };

// Storage of a block scan: the raking grid (at least one item a thread;
// the warp-scans algorithm keeps its warps' totals in it) and the total.
// (raking * segment is below Threads + segment, and segment is at most
// ceil(Threads / 32); kernelc refuses a member array sized by
// `RakingLayout`'s constants, one computed from another.)
template <class T, int Threads> struct ScanStorage {
  T grid[Threads + (Threads + 31) / 32];
  T total;
};

// The sequential scan of one raking segment (`count` items in place),
// each item combined after `prefix` unless `apply` is false, in CUB's
// left-to-right order.
template <class T, class Op>
__device__ __forceinline__ void scan_segment(T *items, int count, T prefix, bool apply,
                                             bool inclusive, Op op) {
  T running = apply ? op(prefix, items[0]) : items[0];
  items[0] = inclusive ? running : prefix;
  for (int i = 1; i < count; ++i) {
    T next = op(running, items[i]);
    items[i] = inclusive ? next : running;
    running = next;
  }
}

// CUB's BLOCK_SCAN_RAKING: each thread's item goes to the grid; each
// raking thread reduces its segment left to right, the raking threads
// scan their totals as a logical warp, and each raking thread then scans
// its segment after its exclusive prefix. A block of at most 32 threads
// is one logical warp's scan. `total` is the block's total, `init` left
// out.
template <int Threads, class T, class Op>
__device__ __forceinline__ T raking_scan(ScanStorage<T, Threads> &s, int rank, T x, Op op,
                                         ScanKind kind, T init, T &total) {
  const int segment = RakingLayout<Threads>::segment;
  const int raking = RakingLayout<Threads>::raking;
  const unsigned int lanes = raking == 32 ? 0xffffffffu : (1u << raking) - 1u;
  if constexpr (Threads <= 32) {
    T inclusive = warp_inclusive<Threads, 32>(x, rank, lanes, op);
    total = __shfl_sync(lanes, inclusive, Threads - 1);
    if (kind.inclusive) return inclusive;
    return warp_exclusive<32>(inclusive, rank, lanes, op, kind.has_init, init);
  }
  s.grid[rank] = x;
  __syncthreads();
  if (rank < raking) {
    T *items = s.grid + rank * segment;
    int count = Threads - rank * segment < segment ? Threads - rank * segment : segment;
    T partial = items[0];
    for (int i = 1; i < count; ++i) partial = op(partial, items[i]);
    T inclusive = warp_inclusive<raking, 32>(partial, rank, lanes, op);
    T last = __shfl_sync(lanes, inclusive, raking - 1);
    if (rank == 0) s.total = last;
    T prefix = warp_exclusive<32>(inclusive, rank, lanes, op, kind.has_init, init);
    scan_segment(items, count, prefix, kind.has_init || rank != 0, kind.inclusive, op);
  }
  __syncthreads();
  total = s.total;
  return s.grid[rank];
}

// CUB's BLOCK_SCAN_WARP_SCANS (blocks of whole warps): each warp scans
// its items, every thread folds the warps' totals in warp order (the
// fold up to its own warp is its warp's prefix), and combines the prefix
// into its warp's result.
template <int Threads, class T, class Op>
__device__ __forceinline__ T warp_scans(ScanStorage<T, Threads> &s, int rank, T x, Op op,
                                        ScanKind kind, T init, T &total) {
  const int warps = Threads / 32;
  int warp = rank / 32;
  int lane = rank & 31;
  T inclusive = warp_inclusive<32, 32>(x, lane, 0xffffffffu, op);
  T exclusive = __shfl_up_sync(0xffffffffu, inclusive, 1);
  if (lane == 31) s.grid[warp] = inclusive;
  __syncthreads();
  T prefix = s.grid[0];
  total = s.grid[0];
  for (int w = 1; w < warps; ++w) {
    if (w == warp) prefix = total;
    total = op(total, s.grid[w]);
  }
  if (kind.has_init) prefix = warp == 0 ? init : op(init, prefix);
  bool apply = kind.has_init || warp != 0;
  if (kind.inclusive) return apply ? op(prefix, inclusive) : inclusive;
  if (!apply) return exclusive;
  return lane == 0 ? prefix : op(prefix, exclusive);
}

// The block scan of `Algorithm` (CUB scans with the raking algorithm
// where warp scans are asked for over a block of part of a warp).
template <BlockScanAlgorithm Algorithm, int Threads, class T, class Op>
__device__ __forceinline__ T block_scan(ScanStorage<T, Threads> &s, int rank, T x, Op op,
                                        ScanKind kind, T init, T &total) {
  if constexpr (Algorithm == BLOCK_SCAN_WARP_SCANS && Threads % 32 == 0)
    return warp_scans<Threads, T>(s, rank, x, op, kind, init, total);
  else
    return raking_scan<Threads, T>(s, rank, x, op, kind, init, total);
}

// The first of a call's arguments (an operator after an initial value).
template <class F, class... Rest> __device__ __forceinline__ F first_of(F first, Rest &&...) {
  return first;
}

// A thread's items reduced as CUB's `ThreadReduce` does (`thread_fold`).
template <class T, int N, class Op> __device__ __forceinline__ T thread_reduce(T (&items)[N], Op op) {
  return thread_fold<N - 1>(items[0], items + 1, op);
}

// A thread's sequential scan of its items after `prefix` (combined into
// the first unless `apply` is false), inclusive or exclusive; `output`
// may be `input`.
template <class T, int N, class Op>
__device__ __forceinline__ void thread_scan(T (&input)[N], T (&output)[N], Op op, T prefix,
                                            bool apply, bool inclusive) {
  T running = apply ? op(prefix, input[0]) : input[0];
  output[0] = inclusive ? running : prefix;
  for (int i = 1; i < N; ++i) {
    T next = op(running, input[i]);
    output[i] = inclusive ? next : running;
    running = next;
  }
}

} // namespace __kernelc

// CUB's overloads with and without a count of valid items are one function
// here, the count defaulting to "all": CUB reduces a count of at least the
// block's size as the whole block, so the results are the same.
constexpr int __kernelc_all_valid = 0x7fffffff;

template <class T, int BlockDimX, BlockReduceAlgorithm Algorithm = BLOCK_REDUCE_WARP_REDUCTIONS,
          int BlockDimY = 1, int BlockDimZ = 1>
class BlockReduce {
  static_assert(Algorithm != BLOCK_REDUCE_WARP_REDUCTIONS_NONDETERMINISTIC,
                "kernelc's cub::BlockReduce has no BLOCK_REDUCE_WARP_REDUCTIONS_NONDETERMINISTIC");

public:
  static constexpr int BLOCK_THREADS = BlockDimX * BlockDimY * BlockDimZ;

  struct TempStorage {
    __kernelc::ReduceStorage<T, BLOCK_THREADS, Algorithm> storage;
  };

private:
  TempStorage &temp;
  int rank;

public:
  __device__ __forceinline__ BlockReduce(TempStorage &temp_storage)
      : temp(temp_storage), rank(__kernelc::rank<BlockDimX, BlockDimY, BlockDimZ>()) {}

  template <class Op>
  __device__ __forceinline__ T Reduce(T input, Op op, int num_valid = __kernelc_all_valid) {
    T *items = temp.storage.items;
    if constexpr (Algorithm == BLOCK_REDUCE_RAKING)
      return __kernelc::raking_reduce<BLOCK_THREADS>(items, rank, input, num_valid, op);
    else if constexpr (Algorithm == BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY)
      return __kernelc::commutative_reduce<BLOCK_THREADS>(items, rank, input, num_valid, op);
    else
      return __kernelc::block_fold<BLOCK_THREADS>(items, rank, input, num_valid >= BLOCK_THREADS,
                                                  num_valid, op);
  }

  __device__ __forceinline__ T Sum(T input, int num_valid = __kernelc_all_valid) {
    return Reduce(input, cuda::std::plus<>(), num_valid);
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
    return Reduce(input, cuda::std::plus<>(), valid_items);
  }

  __device__ __forceinline__ T Max(T input) { return Reduce(input, cuda::maximum<>()); }
  __device__ __forceinline__ T Min(T input) { return Reduce(input, cuda::minimum<>()); }
};

// Warp-wide scans of logical warps of 2^k lanes, in CUB's order (its
// shuffle algorithm): a `shfl.up` ladder, op(lower lane, own value).
template <class T, int LogicalWarpThreads = 32> class WarpScan {
  static_assert(LogicalWarpThreads > 0 && LogicalWarpThreads <= 32 &&
                    (LogicalWarpThreads & (LogicalWarpThreads - 1)) == 0,
                "kernelc's cub::WarpScan needs a logical warp of 1, 2, 4, 8, 16 or 32 threads");

public:
  struct TempStorage {};

private:
  int lane;
  unsigned int lanes;

  template <class Op> __device__ __forceinline__ T inclusive(T input, Op op) {
    return __kernelc::warp_inclusive<LogicalWarpThreads, LogicalWarpThreads>(input, lane, lanes,
                                                                              op);
  }

  __device__ __forceinline__ T total(T inclusive) {
    return __shfl_sync(lanes, inclusive, LogicalWarpThreads - 1, LogicalWarpThreads);
  }

  template <class Op, class... Total>
  __device__ __forceinline__ void inclusive_from(T input, T &output, T init, Op op,
                                                 Total &...warp_aggregate) {
    T incl = inclusive(input, op);
    __kernelc::give(total(incl), warp_aggregate...);
    output = op(init, incl);
  }

  template <class Op>
  __device__ __forceinline__ T exclusive(T &inclusive, Op op, bool has_init, T init) {
    return __kernelc::warp_exclusive<LogicalWarpThreads>(inclusive, lane, lanes, op, has_init,
                                                         init);
  }

public:
  __device__ __forceinline__ WarpScan(TempStorage &) {
    int hw_lane = ((threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x) & 31;
    lane = hw_lane % LogicalWarpThreads;
    lanes = __kernelc::warp_lanes<LogicalWarpThreads>(hw_lane);
  }

  // `(op)`, `(op, warp_aggregate)`, `(init, op)` and `(init, op,
  // warp_aggregate)`: an initial value is combined into every result, on
  // the left, and the aggregate leaves it out. One template, as
  // `ExclusiveScan` below.
  template <class A, class... Rest>
  __device__ __forceinline__ void InclusiveScan(T input, T &output, A a, Rest &&...rest) {
    if constexpr (sizeof...(Rest) == 2 || (sizeof...(Rest) == 1 && __kernelc::is_value<A>::value)) {
      inclusive_from(input, output, T(a), rest...);
    } else {
      output = inclusive(input, a);
      __kernelc::give(total(output), rest...);
    }
  }

  // `(init, op)`, `(init, op, warp_aggregate)`, `(op)` and `(op,
  // warp_aggregate)`; without an initial value, lane 0's result is
  // undefined. One template, as in `BlockScan`: `(init, op)` and `(op,
  // warp_aggregate)` have the same arity, and `is_value` tells them apart.
  template <class A, class... Rest>
  __device__ __forceinline__ void ExclusiveScan(T input, T &output, A a, Rest &&...rest) {
    if constexpr (sizeof...(Rest) == 0) {
      T incl = inclusive(input, a);
      output = exclusive(incl, a, false, T());
    } else if constexpr (sizeof...(Rest) == 2 || __kernelc::is_value<A>::value) {
      output = __kernelc::scan_from(*this, input, a, rest...);
    } else {
      T incl = inclusive(input, a);
      __kernelc::give(total(incl), rest...);
      output = exclusive(incl, a, false, T());
    }
  }

  // For `__kernelc::scan_from`.
  template <class Op>
  __device__ __forceinline__ T exclusive_from(T input, T init, Op op, T &warp_aggregate) {
    T incl = inclusive(input, op);
    warp_aggregate = total(incl);
    return exclusive(incl, op, true, init);
  }

  // `(op)`, or `(init, op)`, which starts the inclusive results from
  // `init` too.
  template <class A, class... Rest>
  __device__ __forceinline__ void Scan(T input, T &inclusive_output, T &exclusive_output, A a,
                                       Rest &&...rest) {
    if constexpr (sizeof...(Rest) == 0) {
      inclusive_output = inclusive(input, a);
      exclusive_output = exclusive(inclusive_output, a, false, T());
    } else {
      inclusive_output = inclusive(input, rest...);
      exclusive_output = exclusive(inclusive_output, rest..., true, a);
    }
  }

  __device__ __forceinline__ void InclusiveSum(T input, T &output) {
    InclusiveScan(input, output, cuda::std::plus<>());
  }

  __device__ __forceinline__ void InclusiveSum(T input, T &output, T &warp_aggregate) {
    InclusiveScan(input, output, cuda::std::plus<>(), warp_aggregate);
  }

  // CUB's exclusive sums start from `T()`, combined into every result.
  __device__ __forceinline__ void ExclusiveSum(T input, T &output) {
    ExclusiveScan(input, output, T(), cuda::std::plus<>());
  }

  __device__ __forceinline__ void ExclusiveSum(T input, T &output, T &warp_aggregate) {
    ExclusiveScan(input, output, T(), cuda::std::plus<>(), warp_aggregate);
  }

  __device__ __forceinline__ T Broadcast(T input, unsigned int src_lane) {
    return __shfl_sync(lanes, input, src_lane, LogicalWarpThreads);
  }
};

// Block-wide scans in CUB's order for the algorithm asked for
// (BLOCK_SCAN_RAKING_MEMOIZE computes what BLOCK_SCAN_RAKING does).
template <class T, int BlockDimX, BlockScanAlgorithm Algorithm = BLOCK_SCAN_RAKING,
          int BlockDimY = 1, int BlockDimZ = 1>
class BlockScan {
public:
  struct TempStorage {
    __kernelc::ScanStorage<T, BlockDimX * BlockDimY * BlockDimZ> storage;
  };

private:
  TempStorage &temp;
  int rank;

  template <class Op>
  __device__ __forceinline__ T scan(T input, Op op, bool inclusive, bool has_init, T init,
                                    T &block_aggregate) {
    __kernelc::ScanKind kind = {inclusive, has_init};
    return __kernelc::block_scan<Algorithm, BlockDimX * BlockDimY * BlockDimZ, T>(
        temp.storage, rank, input, op, kind, init, block_aggregate);
  }

public:
  __device__ __forceinline__ BlockScan(TempStorage &temp_storage)
      : temp(temp_storage), rank(__kernelc::rank<BlockDimX, BlockDimY, BlockDimZ>()) {}

  // Each scan is one variadic template a name that picks CUB's form by
  // its arguments (kernelc's member templates do not overload with
  // ordinary members of their name, which CUB's one-item forms are): one
  // item a thread or an array of N (`items_of`), then `(op)` or `(op,
  // block_aggregate)`, and over arrays also `(init, op)` and `(init, op,
  // block_aggregate)` (CUB has no initial value for one item a thread).
  template <class In, class Out, class A, class... Rest>
  __device__ __forceinline__ void InclusiveScan(In &&input, Out &output, A a, Rest &&...rest) {
    if constexpr (sizeof...(Rest) == 2 || (sizeof...(Rest) == 1 && __kernelc::is_value<A>::value)) {
      static_assert(__kernelc::items_of<Out, T>::value,
                    "cub::BlockScan::InclusiveScan takes an initial value for an array of items "
                    "a thread only");
      if constexpr (__kernelc::items_of<Out, T>::value)
        items_inclusive_from(input, output, T(a), rest...);
    } else if constexpr (__kernelc::items_of<Out, T>::value) {
      items_inclusive(input, output, false, a, rest...);
    } else {
      T total;
      output = scan(input, a, true, false, T(), total);
      __kernelc::give(total, rest...);
    }
  }

  // `(init, op)`, `(init, op, block_aggregate)`, `(op)` and `(op,
  // block_aggregate)`; without an initial value, thread 0's result is
  // undefined (as in CUB).
  template <class In, class Out, class A, class... Rest>
  __device__ __forceinline__ void ExclusiveScan(In &&input, Out &output, A a, Rest &&...rest) {
    if constexpr (__kernelc::items_of<Out, T>::value) {
      items_exclusive(input, output, a, rest...);
    } else if constexpr (sizeof...(Rest) == 2 ||
                         (sizeof...(Rest) == 1 && __kernelc::is_value<A>::value)) {
      output = __kernelc::scan_from(*this, T(input), a, rest...);
    } else {
      T total;
      output = scan(input, a, false, false, T(), total);
      __kernelc::give(total, rest...);
    }
  }

  // For `__kernelc::scan_from`.
  template <class Op>
  __device__ __forceinline__ T exclusive_from(T input, T init, Op op, T &block_aggregate) {
    return scan(input, op, false, true, init, block_aggregate);
  }

  // `()` or `(block_aggregate)`.
  template <class In, class Out, class... Total>
  __device__ __forceinline__ void InclusiveSum(In &&input, Out &output, Total &...block_aggregate) {
    if constexpr (__kernelc::items_of<Out, T>::value)
      items_inclusive(input, output, true, cuda::std::plus<>(), block_aggregate...);
    else
      InclusiveScan(input, output, cuda::std::plus<>(), block_aggregate...);
  }

  // CUB's exclusive sums start from `T()`, combined into every result.
  template <class In, class Out, class... Total>
  __device__ __forceinline__ void ExclusiveSum(In &&input, Out &output, Total &...block_aggregate) {
    ExclusiveScan(input, output, T(), cuda::std::plus<>(), block_aggregate...);
  }

private:
  // The forms over each thread's N items (blocked: thread t's are the
  // block's items t * N ... t * N + N - 1), as CUB computes them: each
  // thread reduces its items (`thread_reduce`), the block scans those
  // partials exclusively, and each thread scans its items after its
  // prefix. An inclusive scan's prefix is left out of thread 0's items
  // (an inclusive sum's is `T()`, combined in), and one item a thread is
  // the scan of that item. `sum`: CUB's `InclusiveSum` scans the
  // partials from `T()`, where `InclusiveScan` has no initial value.
  template <int N, class Op, class... Total>
  __device__ __forceinline__ void items_inclusive(T (&input)[N], T (&output)[N], bool sum, Op op,
                                                  Total &...block_aggregate) {
    if constexpr (N == 1) {
      InclusiveScan(input[0], output[0], op, block_aggregate...);
    } else {
      T prefix = __kernelc::thread_reduce(input, op);
      if (sum)
        ExclusiveScan(prefix, prefix, T(), op, block_aggregate...);
      else
        ExclusiveScan(prefix, prefix, op, block_aggregate...);
      __kernelc::thread_scan(input, output, op, prefix, rank != 0, true);
    }
  }

  // CUB's inclusive scan of arrays from an initial value: the partials'
  // exclusive scan from it, then every thread's items scanned after its
  // prefix.
  template <int N, class Op, class... Total>
  __device__ __forceinline__ void items_inclusive_from(T (&input)[N], T (&output)[N], T init, Op op,
                                                       Total &...block_aggregate) {
    T prefix = __kernelc::thread_reduce(input, op);
    ExclusiveScan(prefix, prefix, init, op, block_aggregate...);
    __kernelc::thread_scan(input, output, op, prefix, true, true);
  }

  // `(init, op)`, `(init, op, block_aggregate)`, `(op)` and `(op,
  // block_aggregate)`; without an initial value, thread 0's first result
  // is undefined (as in CUB).
  template <int N, class A, class... Rest>
  __device__ __forceinline__ void items_exclusive(T (&input)[N], T (&output)[N], A a,
                                                  Rest &&...rest) {
    if constexpr (sizeof...(Rest) == 2 || (sizeof...(Rest) == 1 && __kernelc::is_value<A>::value)) {
      T prefix = __kernelc::thread_reduce(input, __kernelc::first_of(rest...));
      ExclusiveScan(prefix, prefix, a, rest...);
      __kernelc::thread_scan(input, output, __kernelc::first_of(rest...), prefix, true, false);
    } else {
      T prefix = __kernelc::thread_reduce(input, a);
      ExclusiveScan(prefix, prefix, a, rest...);
      __kernelc::thread_scan(input, output, a, prefix, rank != 0, false);
    }
  }
};

// Moving a block's items between memory and its threads. A thread's
// `ItemsPerThread` items are "blocked" when they are consecutive in
// memory (thread t holds items t * N ... t * N + N - 1), "striped" when
// they are `Threads` apart (thread t holds t, t + Threads, ...), and
// "warp-striped" when each warp's 32 * N items are striped over its
// lanes. A guarded transfer moves only the items before `valid_items`;
// a guarded load with a default first sets every item to it.

// Each function comes whole, guarded by `valid_items`, and (a load)
// guarded with a default, `oob_default`, that every item takes first.

namespace __kernelc {
template <class T, int N, class Default> __device__ __forceinline__ void fill(T (&items)[N], Default v) {
  for (int k = 0; k < N; ++k) items[k] = v;
}

// Where a thread's first warp-striped item is: its warp's first item
// plus its lane.
template <int ItemsPerThread> __device__ __forceinline__ int warp_striped_base(int linear_tid) {
  return (linear_tid >> 5) * 32 * ItemsPerThread + (linear_tid & 31);
}
} // namespace __kernelc

template <class T, int ItemsPerThread, class InputIt>
__device__ __forceinline__ void LoadDirectBlocked(int linear_tid, InputIt src,
                                                  T (&items)[ItemsPerThread], int valid_items) {
  for (int k = 0; k < ItemsPerThread; ++k) {
    int at = linear_tid * ItemsPerThread + k;
    if (at < valid_items) items[k] = src[at];
  }
}
template <class T, int ItemsPerThread, class InputIt>
__device__ __forceinline__ void LoadDirectBlocked(int linear_tid, InputIt src,
                                                  T (&items)[ItemsPerThread]) {
  for (int k = 0; k < ItemsPerThread; ++k) items[k] = src[linear_tid * ItemsPerThread + k];
}
template <class T, int ItemsPerThread, class InputIt, class Default>
__device__ __forceinline__ void LoadDirectBlocked(int linear_tid, InputIt src,
                                                  T (&items)[ItemsPerThread], int valid_items,
                                                  Default oob_default) {
  __kernelc::fill(items, oob_default);
  LoadDirectBlocked(linear_tid, src, items, valid_items);
}

// CUB reads whole vectors where the pointer allows; the items are the
// same as a blocked load's.
template <class T, int ItemsPerThread>
__device__ __forceinline__ void LoadDirectBlockedVectorized(int linear_tid, T *src,
                                                            T (&items)[ItemsPerThread]) {
  LoadDirectBlocked(linear_tid, src, items);
}

template <int Threads, class T, int ItemsPerThread, class InputIt>
__device__ __forceinline__ void LoadDirectStriped(int linear_tid, InputIt src,
                                                  T (&items)[ItemsPerThread], int valid_items) {
  for (int k = 0; k < ItemsPerThread; ++k) {
    int at = linear_tid + k * Threads;
    if (at < valid_items) items[k] = src[at];
  }
}
template <int Threads, class T, int ItemsPerThread, class InputIt>
__device__ __forceinline__ void LoadDirectStriped(int linear_tid, InputIt src,
                                                  T (&items)[ItemsPerThread]) {
  for (int k = 0; k < ItemsPerThread; ++k) items[k] = src[linear_tid + k * Threads];
}
template <int Threads, class T, int ItemsPerThread, class InputIt, class Default>
__device__ __forceinline__ void LoadDirectStriped(int linear_tid, InputIt src,
                                                  T (&items)[ItemsPerThread], int valid_items,
                                                  Default oob_default) {
  __kernelc::fill(items, oob_default);
  LoadDirectStriped<Threads>(linear_tid, src, items, valid_items);
}

template <class T, int ItemsPerThread, class InputIt>
__device__ __forceinline__ void LoadDirectWarpStriped(int linear_tid, InputIt src,
                                                      T (&items)[ItemsPerThread], int valid_items) {
  int base = __kernelc::warp_striped_base<ItemsPerThread>(linear_tid);
  for (int k = 0; k < ItemsPerThread; ++k) {
    if (base + k * 32 < valid_items) items[k] = src[base + k * 32];
  }
}
template <class T, int ItemsPerThread, class InputIt>
__device__ __forceinline__ void LoadDirectWarpStriped(int linear_tid, InputIt src,
                                                      T (&items)[ItemsPerThread]) {
  int base = __kernelc::warp_striped_base<ItemsPerThread>(linear_tid);
  for (int k = 0; k < ItemsPerThread; ++k) items[k] = src[base + k * 32];
}
template <class T, int ItemsPerThread, class InputIt, class Default>
__device__ __forceinline__ void LoadDirectWarpStriped(int linear_tid, InputIt src,
                                                      T (&items)[ItemsPerThread], int valid_items,
                                                      Default oob_default) {
  __kernelc::fill(items, oob_default);
  LoadDirectWarpStriped(linear_tid, src, items, valid_items);
}

template <class T, int ItemsPerThread, class OutputIt>
__device__ __forceinline__ void StoreDirectBlocked(int linear_tid, OutputIt dst,
                                                   T (&items)[ItemsPerThread], int valid_items) {
  for (int k = 0; k < ItemsPerThread; ++k) {
    int at = linear_tid * ItemsPerThread + k;
    if (at < valid_items) dst[at] = items[k];
  }
}
template <class T, int ItemsPerThread, class OutputIt>
__device__ __forceinline__ void StoreDirectBlocked(int linear_tid, OutputIt dst,
                                                   T (&items)[ItemsPerThread]) {
  for (int k = 0; k < ItemsPerThread; ++k) dst[linear_tid * ItemsPerThread + k] = items[k];
}

template <class T, int ItemsPerThread>
__device__ __forceinline__ void StoreDirectBlockedVectorized(int linear_tid, T *dst,
                                                             T (&items)[ItemsPerThread]) {
  StoreDirectBlocked(linear_tid, dst, items);
}

template <int Threads, class T, int ItemsPerThread, class OutputIt>
__device__ __forceinline__ void StoreDirectStriped(int linear_tid, OutputIt dst,
                                                   T (&items)[ItemsPerThread], int valid_items) {
  for (int k = 0; k < ItemsPerThread; ++k) {
    int at = linear_tid + k * Threads;
    if (at < valid_items) dst[at] = items[k];
  }
}
template <int Threads, class T, int ItemsPerThread, class OutputIt>
__device__ __forceinline__ void StoreDirectStriped(int linear_tid, OutputIt dst,
                                                   T (&items)[ItemsPerThread]) {
  for (int k = 0; k < ItemsPerThread; ++k) dst[linear_tid + k * Threads] = items[k];
}

template <class T, int ItemsPerThread, class OutputIt>
__device__ __forceinline__ void StoreDirectWarpStriped(int linear_tid, OutputIt dst,
                                                       T (&items)[ItemsPerThread], int valid_items) {
  int base = __kernelc::warp_striped_base<ItemsPerThread>(linear_tid);
  for (int k = 0; k < ItemsPerThread; ++k) {
    if (base + k * 32 < valid_items) dst[base + k * 32] = items[k];
  }
}
template <class T, int ItemsPerThread, class OutputIt>
__device__ __forceinline__ void StoreDirectWarpStriped(int linear_tid, OutputIt dst,
                                                       T (&items)[ItemsPerThread]) {
  int base = __kernelc::warp_striped_base<ItemsPerThread>(linear_tid);
  for (int k = 0; k < ItemsPerThread; ++k) dst[base + k * 32] = items[k];
}

// A block's load: BLOCK_LOAD_STRIPED gives each thread a striped
// arrangement; every other algorithm a blocked one (CUB's transposing
// algorithms read striped and exchange through shared memory to get it;
// the items are the same as a direct read's, so kernelc reads them
// directly and needs no storage). Items past `valid_items` without a
// default are left as they were (CUB leaves them undefined).
template <class T, int BlockDimX, int ItemsPerThread,
          BlockLoadAlgorithm Algorithm = BLOCK_LOAD_DIRECT, int BlockDimY = 1, int BlockDimZ = 1>
class BlockLoad {
  static_assert((Algorithm != BLOCK_LOAD_WARP_TRANSPOSE &&
                 Algorithm != BLOCK_LOAD_WARP_TRANSPOSE_TIMESLICED) ||
                    BlockDimX * BlockDimY * BlockDimZ % 32 == 0,
                "cub::BlockLoad's warp-transposing algorithms need a block of whole warps");

public:
  struct TempStorage {};

private:
  int linear_tid;

public:
  static constexpr int BLOCK_THREADS = BlockDimX * BlockDimY * BlockDimZ;

  __device__ __forceinline__ BlockLoad()
      : linear_tid(__kernelc::rank<BlockDimX, BlockDimY, BlockDimZ>()) {}
  __device__ __forceinline__ BlockLoad(TempStorage &)
      : linear_tid(__kernelc::rank<BlockDimX, BlockDimY, BlockDimZ>()) {}

  template <class InputIt>
  __device__ __forceinline__ void Load(InputIt src, T (&items)[ItemsPerThread]) {
    if (Algorithm == BLOCK_LOAD_STRIPED)
      LoadDirectStriped<BLOCK_THREADS>(linear_tid, src, items);
    else
      LoadDirectBlocked(linear_tid, src, items);
  }

  template <class InputIt>
  __device__ __forceinline__ void Load(InputIt src, T (&items)[ItemsPerThread], int valid_items) {
    if (Algorithm == BLOCK_LOAD_STRIPED)
      LoadDirectStriped<BLOCK_THREADS>(linear_tid, src, items, valid_items);
    else
      LoadDirectBlocked(linear_tid, src, items, valid_items);
  }

  template <class InputIt, class Default>
  __device__ __forceinline__ void Load(InputIt src, T (&items)[ItemsPerThread], int valid_items,
                                       Default oob_default) {
    if (Algorithm == BLOCK_LOAD_STRIPED)
      LoadDirectStriped<BLOCK_THREADS>(linear_tid, src, items, valid_items, oob_default);
    else
      LoadDirectBlocked(linear_tid, src, items, valid_items, oob_default);
  }
};

// A block's store: BLOCK_STORE_STRIPED takes each thread's items as a
// striped arrangement, every other algorithm as a blocked one, and
// writes them where CUB does.
template <class T, int BlockDimX, int ItemsPerThread,
          BlockStoreAlgorithm Algorithm = BLOCK_STORE_DIRECT, int BlockDimY = 1, int BlockDimZ = 1>
class BlockStore {
  static_assert((Algorithm != BLOCK_STORE_WARP_TRANSPOSE &&
                 Algorithm != BLOCK_STORE_WARP_TRANSPOSE_TIMESLICED) ||
                    BlockDimX * BlockDimY * BlockDimZ % 32 == 0,
                "cub::BlockStore's warp-transposing algorithms need a block of whole warps");

public:
  struct TempStorage {};

private:
  int linear_tid;

public:
  static constexpr int BLOCK_THREADS = BlockDimX * BlockDimY * BlockDimZ;

  __device__ __forceinline__ BlockStore()
      : linear_tid(__kernelc::rank<BlockDimX, BlockDimY, BlockDimZ>()) {}
  __device__ __forceinline__ BlockStore(TempStorage &)
      : linear_tid(__kernelc::rank<BlockDimX, BlockDimY, BlockDimZ>()) {}

  template <class OutputIt>
  __device__ __forceinline__ void Store(OutputIt dst, T (&items)[ItemsPerThread]) {
    if (Algorithm == BLOCK_STORE_STRIPED)
      StoreDirectStriped<BLOCK_THREADS>(linear_tid, dst, items);
    else
      StoreDirectBlocked(linear_tid, dst, items);
  }

  template <class OutputIt>
  __device__ __forceinline__ void Store(OutputIt dst, T (&items)[ItemsPerThread], int valid_items) {
    if (Algorithm == BLOCK_STORE_STRIPED)
      StoreDirectStriped<BLOCK_THREADS>(linear_tid, dst, items, valid_items);
    else
      StoreDirectBlocked(linear_tid, dst, items, valid_items);
  }
};

// Rearranging a block's items among its threads through shared memory
// (the arrangements are `BlockLoad`'s above): each thread writes its items
// where the source arrangement puts them in the block's tile and reads
// back those the target arrangement gives it. The warp-striped forms
// exchange within each warp (of at most the block's size) and need no
// barrier; the others wait at one, and, as with CUB, reusing the storage
// needs a `__syncthreads()` between. Time slicing (`WarpTimeSlicing`)
// saves CUB memory only: the items are the same, and kernelc ignores it.
template <class T, int BlockDimX, int ItemsPerThread, bool WarpTimeSlicing = false,
          int BlockDimY = 1, int BlockDimZ = 1>
class BlockExchange {
public:
  static constexpr int BLOCK_THREADS = BlockDimX * BlockDimY * BlockDimZ;

  struct TempStorage {
    T items[BLOCK_THREADS * ItemsPerThread];
  };

private:
  static constexpr int WARP_THREADS = BLOCK_THREADS < 32 ? BLOCK_THREADS : 32;

  TempStorage &temp;
  int linear_tid;

  // Where item k of this thread is in the tile, by arrangement.
  __device__ __forceinline__ int blocked(int k) const { return linear_tid * ItemsPerThread + k; }
  __device__ __forceinline__ int striped(int k) const { return k * BLOCK_THREADS + linear_tid; }
  __device__ __forceinline__ int warp_base() const {
    return linear_tid / WARP_THREADS * WARP_THREADS * ItemsPerThread;
  }
  __device__ __forceinline__ int warp_striped(int k) const {
    return warp_base() + k * WARP_THREADS + linear_tid % WARP_THREADS;
  }
  __device__ __forceinline__ int warp_blocked(int k) const {
    return warp_base() + linear_tid % WARP_THREADS * ItemsPerThread + k;
  }

public:
  __device__ __forceinline__ BlockExchange(TempStorage &temp_storage)
      : temp(temp_storage), linear_tid(__kernelc::rank<BlockDimX, BlockDimY, BlockDimZ>()) {}

  template <class OutputT>
  __device__ __forceinline__ void StripedToBlocked(const T (&input)[ItemsPerThread],
                                                   OutputT (&output)[ItemsPerThread]) {
    for (int k = 0; k < ItemsPerThread; ++k) temp.items[striped(k)] = input[k];
    __syncthreads();
    for (int k = 0; k < ItemsPerThread; ++k) output[k] = (OutputT)temp.items[blocked(k)];
  }

  template <class OutputT>
  __device__ __forceinline__ void BlockedToStriped(const T (&input)[ItemsPerThread],
                                                   OutputT (&output)[ItemsPerThread]) {
    for (int k = 0; k < ItemsPerThread; ++k) temp.items[blocked(k)] = input[k];
    __syncthreads();
    for (int k = 0; k < ItemsPerThread; ++k) output[k] = (OutputT)temp.items[striped(k)];
  }

  template <class OutputT>
  __device__ __forceinline__ void WarpStripedToBlocked(const T (&input)[ItemsPerThread],
                                                       OutputT (&output)[ItemsPerThread]) {
    for (int k = 0; k < ItemsPerThread; ++k) temp.items[warp_striped(k)] = input[k];
    __syncwarp();
    for (int k = 0; k < ItemsPerThread; ++k) output[k] = (OutputT)temp.items[warp_blocked(k)];
  }

  template <class OutputT>
  __device__ __forceinline__ void BlockedToWarpStriped(const T (&input)[ItemsPerThread],
                                                       OutputT (&output)[ItemsPerThread]) {
    for (int k = 0; k < ItemsPerThread; ++k) temp.items[warp_blocked(k)] = input[k];
    __syncwarp();
    for (int k = 0; k < ItemsPerThread; ++k) output[k] = (OutputT)temp.items[warp_striped(k)];
  }

  // In place, as CUB's one-array forms (templates, as kernelc's member
  // templates do not overload with ordinary members).
  template <class U> __device__ __forceinline__ void StripedToBlocked(U (&items)[ItemsPerThread]) {
    StripedToBlocked(items, items);
  }
  template <class U> __device__ __forceinline__ void BlockedToStriped(U (&items)[ItemsPerThread]) {
    BlockedToStriped(items, items);
  }
  template <class U> __device__ __forceinline__ void WarpStripedToBlocked(U (&items)[ItemsPerThread]) {
    WarpStripedToBlocked(items, items);
  }
  template <class U> __device__ __forceinline__ void BlockedToWarpStriped(U (&items)[ItemsPerThread]) {
    BlockedToWarpStriped(items, items);
  }

  // Item k goes to the tile's place `ranks[k]`; each thread then reads a
  // blocked or a striped arrangement.
  template <class OutputT, class OffsetT>
  __device__ __forceinline__ void ScatterToBlocked(const T (&input)[ItemsPerThread],
                                                   OutputT (&output)[ItemsPerThread],
                                                   OffsetT (&ranks)[ItemsPerThread]) {
    for (int k = 0; k < ItemsPerThread; ++k) temp.items[ranks[k]] = input[k];
    __syncthreads();
    for (int k = 0; k < ItemsPerThread; ++k) output[k] = (OutputT)temp.items[blocked(k)];
  }

  template <class OutputT, class OffsetT>
  __device__ __forceinline__ void ScatterToStriped(const T (&input)[ItemsPerThread],
                                                   OutputT (&output)[ItemsPerThread],
                                                   OffsetT (&ranks)[ItemsPerThread]) {
    for (int k = 0; k < ItemsPerThread; ++k) temp.items[ranks[k]] = input[k];
    __syncthreads();
    for (int k = 0; k < ItemsPerThread; ++k) output[k] = (OutputT)temp.items[striped(k)];
  }
};


// Sorting a block's keys (and values that travel with them). Each thread
// holds `ItemsPerThread` keys, blocked; the sort is CUB's radix sort, so
// its order is CUB's: by the keys' bits from `begin_bit` to `end_bit`
// (after "twiddling" signed and floating keys so that their bits' order
// is theirs), stable, -0.0 and +0.0 equal. `MemoizeOuterScan` and
// `SMemConfig` tune CUB's memory use only; `InnerScanAlgorithm` is the
// block scan that ranks the keys' digits.
namespace __kernelc {

// The key types of a radix sort (`Bits` is its unsigned type of the
// same size), each turned into bits whose unsigned order is the key's
// order ("twiddled"): unsigned keys as they are, signed ones with the
// sign bit flipped, floating ones with the sign bit flipped when clear
// and every bit flipped when set (a more negative number has larger
// magnitude bits).
template <class Key> struct radix_key;

template <class U> struct radix_unsigned {
  using Bits = U;
  static constexpr bool floating = false;
  __device__ __forceinline__ static Bits in(Bits k) { return k; }
  __device__ __forceinline__ static Bits out(Bits b) { return b; }
};
template <> struct radix_key<unsigned char> { using type = radix_unsigned<unsigned char>; };
template <> struct radix_key<unsigned short> { using type = radix_unsigned<unsigned short>; };
template <> struct radix_key<unsigned int> { using type = radix_unsigned<unsigned int>; };
template <> struct radix_key<unsigned long> { using type = radix_unsigned<unsigned long>; };
template <> struct radix_key<unsigned long long> { using type = radix_unsigned<unsigned long long>; };

template <class S, class U> struct radix_signed {
  using Bits = U;
  static constexpr bool floating = false;
  static constexpr U sign = U(1) << (sizeof(U) * 8 - 1);
  __device__ __forceinline__ static Bits in(S k) { return U(k) ^ sign; }
  __device__ __forceinline__ static S out(Bits b) { return S(b ^ sign); }
};
template <> struct radix_key<char> { using type = radix_signed<char, unsigned char>; };
template <> struct radix_key<signed char> { using type = radix_signed<signed char, unsigned char>; };
template <> struct radix_key<short> { using type = radix_signed<short, unsigned short>; };
template <> struct radix_key<int> { using type = radix_signed<int, unsigned int>; };
template <> struct radix_key<long> { using type = radix_signed<long, unsigned long>; };
template <> struct radix_key<long long> { using type = radix_signed<long long, unsigned long long>; };

// (The floating keys' bit casts are their own; each names its `Bits`,
// as kernelc does not find a base's member types from a derived class's
// own members.)
template <class U> __device__ __forceinline__ U twiddle_floating(U b) {
  const U sign = U(1) << (sizeof(U) * 8 - 1);
  return b ^ (b & sign ? ~U(0) : sign);
}
template <class U> __device__ __forceinline__ U untwiddle_floating(U b) {
  const U sign = U(1) << (sizeof(U) * 8 - 1);
  return b ^ (b & sign ? sign : ~U(0));
}
struct radix_float {
  using Bits = unsigned int;
  static constexpr bool floating = true;
  static constexpr Bits sign = 0x80000000u;
  __device__ __forceinline__ static Bits in(float k) { return twiddle_floating(__float_as_uint(k)); }
  __device__ __forceinline__ static float out(Bits b) {
    return __uint_as_float(untwiddle_floating(b));
  }
};
struct radix_double {
  using Bits = unsigned long long;
  static constexpr bool floating = true;
  static constexpr Bits sign = 0x8000000000000000ull;
  __device__ __forceinline__ static Bits in(double k) {
    return twiddle_floating((Bits)__double_as_longlong(k));
  }
  __device__ __forceinline__ static double out(Bits b) {
    return __longlong_as_double((long long)untwiddle_floating(b));
  }
};

template <> struct radix_key<float> { using type = radix_float; };
template <> struct radix_key<double> { using type = radix_double; };

// The digit of twiddled bits `b` at `begin`, `count` bits wide. CUB
// sorts -0.0 as +0.0 (the two are equal keys, kept in their order).
template <class Traits>
__device__ __forceinline__ unsigned int radix_digit(typename Traits::Bits b, int begin, int count) {
  using Bits = typename Traits::Bits;
  if constexpr (Traits::floating) {
    if (b == Bits(~Traits::sign)) b = Traits::sign;
  }
  return (unsigned int)(b >> begin) & ((1u << count) - 1u);
}

// What a radix sort's pass ranks through: a count of each digit for each
// thread, digit-major (so scanning them in order gives each digit's keys
// their places thread by thread), and a block scan's storage.
template <int Threads, int Digits> struct RankStorage {
  unsigned short counts[Digits * Threads];
  ScanStorage<int, Threads> scan;
};

// The stable rank of each of a thread's `digits` among the block's
// (blocked: thread t's items come after thread t-1's): the keys of smaller
// digits, then those of its digit in earlier threads, then in earlier
// items of this thread. Each thread counts its digits, the block scans
// the counts in digit-major order (each thread scanning `Digits`
// consecutive counts after its exclusive prefix of the others' sums),
// and each item adds its count's prefix to its place within the thread.
template <int Threads, int N, int Digits, BlockScanAlgorithm Scan>
__device__ __forceinline__ void radix_rank(RankStorage<Threads, Digits> &s, int rank,
                                           const unsigned int (&digits)[N], int (&ranks)[N]) {
  for (int d = 0; d < Digits; ++d) s.counts[d * Threads + rank] = 0;
  for (int k = 0; k < N; ++k) {
    unsigned short &count = s.counts[digits[k] * Threads + rank];
    ranks[k] = count;
    count = count + 1;
  }
  __syncthreads();
  unsigned short *mine = s.counts + rank * Digits;
  int sum = 0;
  for (int i = 0; i < Digits; ++i) sum += mine[i];
  int total;
  ScanKind exclusive = {false, true};
  int prefix = block_scan<Scan, Threads, int>(s.scan, rank, sum, cuda::std::plus<>(),
                                                              exclusive, 0, total);
  for (int i = 0; i < Digits; ++i) {
    int count = mine[i];
    mine[i] = (unsigned short)prefix;
    prefix += count;
  }
  __syncthreads();
  for (int k = 0; k < N; ++k) ranks[k] += s.counts[digits[k] * Threads + rank];
}

// A radix sort's storage: a pass ranks, then moves the keys and then
// the values through the same memory.
template <class Bits, class Value, int Threads, int N, int Digits> union RadixStorage {
  RankStorage<Threads, Digits> ranking;
  Bits keys[Threads * N];
  Value values[Threads * N];
};

// Each thread's items moved to their ranks in the block's tile, then
// read back blocked or striped.
template <int Threads, int N, class T, class Tile>
__device__ __forceinline__ void scatter(Tile *tile, int rank, T (&items)[N], const int (&ranks)[N],
                                        bool striped) {
  for (int k = 0; k < N; ++k) tile[ranks[k]] = items[k];
  __syncthreads();
  for (int k = 0; k < N; ++k) items[k] = tile[striped ? k * Threads + rank : rank * N + k];
}

// CUB's radix sort of a block's keys (and values), `RadixBits` bits a
// pass from `begin_bit` to `end_bit`: each pass ranks the keys stably by
// their digit (`radix_rank`) and moves them (and then their values) to
// their ranks, blocked again for the next pass and the result, or
// striped after the last pass (`striped`). A descending sort ranks the
// digits' complements, so equal keys keep their order as in CUB.
template <int Threads, int N, int RadixBits, BlockScanAlgorithm Scan, bool HasValues,
          class Key, class Value, class Storage>
__device__ void radix_sort(Storage &s, int rank, Key (&keys)[N], Value (&values)[N],
                                           int begin_bit, int end_bit, bool descending,
                                           bool striped) {
  using Traits = typename radix_key<Key>::type;
  const int digits = 1 << RadixBits;
  typename Traits::Bits bits[N];
  for (int k = 0; k < N; ++k) bits[k] = Traits::in(keys[k]);
  for (int begin = begin_bit;; begin += RadixBits) {
    int count = end_bit - begin < RadixBits ? end_bit - begin : RadixBits;
    unsigned int digit[N];
    for (int k = 0; k < N; ++k) {
      digit[k] = radix_digit<Traits>(bits[k], begin, count < 0 ? 0 : count);
      if (descending) digit[k] = digits - 1 - digit[k];
    }
    int ranks[N];
    radix_rank<Threads, N, (1 << RadixBits), Scan>(s.ranking, rank, digit, ranks);
    bool last = begin + RadixBits >= end_bit;
    __syncthreads();
    scatter<Threads>(s.keys, rank, bits, ranks, striped && last);
    if constexpr (HasValues) {
      __syncthreads();
      scatter<Threads>(s.values, rank, values, ranks, striped && last);
    }
    if (last) break;
    __syncthreads();
  }
  for (int k = 0; k < N; ++k) keys[k] = Traits::out(bits[k]);
}

} // namespace __kernelc

template <class KeyT, int BlockDimX, int ItemsPerThread, class ValueT = NullType, int RadixBits = 4,
          bool MemoizeOuterScan = true, BlockScanAlgorithm InnerScanAlgorithm = BLOCK_SCAN_WARP_SCANS,
          cudaSharedMemConfig SMemConfig = cudaSharedMemBankSizeFourByte, int BlockDimY = 1, int BlockDimZ = 1>
class BlockRadixSort {
  static constexpr int BLOCK_THREADS = BlockDimX * BlockDimY * BlockDimZ;
  static_assert(BlockDimX * BlockDimY * BlockDimZ * ItemsPerThread < 65536,
                "cub::BlockRadixSort counts a tile's keys in 16 bits, as CUB does");

  using Traits = typename __kernelc::radix_key<KeyT>::type;
  using Bits = typename Traits::Bits;

public:
  struct TempStorage {
    __kernelc::RadixStorage<Bits, ValueT,
                          BlockDimX * BlockDimY * BlockDimZ, ItemsPerThread, (1 << RadixBits)>
        storage;
  };

private:
  TempStorage &temp;
  int rank;

  template <bool Values>
  __device__ __forceinline__ void sort(KeyT (&keys)[ItemsPerThread], ValueT (&values)[ItemsPerThread],
                                       int begin_bit, int end_bit, bool descending, bool striped) {
    __kernelc::radix_sort<BLOCK_THREADS, ItemsPerThread, RadixBits, InnerScanAlgorithm, Values>(
        temp.storage, rank, keys, values, begin_bit, end_bit, descending, striped);
  }

public:
  __device__ __forceinline__ BlockRadixSort(TempStorage &temp_storage)
      : temp(temp_storage), rank(__kernelc::rank<BlockDimX, BlockDimY, BlockDimZ>()) {}

  __device__ __forceinline__ void Sort(KeyT (&keys)[ItemsPerThread], int begin_bit = 0,
                                       int end_bit = sizeof(KeyT) * 8) {
    ValueT none[ItemsPerThread];
    sort<false>(keys, none, begin_bit, end_bit, false, false);
  }
  __device__ __forceinline__ void Sort(KeyT (&keys)[ItemsPerThread], ValueT (&values)[ItemsPerThread],
                                       int begin_bit = 0, int end_bit = sizeof(KeyT) * 8) {
    sort<true>(keys, values, begin_bit, end_bit, false, false);
  }
  __device__ __forceinline__ void SortDescending(KeyT (&keys)[ItemsPerThread], int begin_bit = 0,
                                                 int end_bit = sizeof(KeyT) * 8) {
    ValueT none[ItemsPerThread];
    sort<false>(keys, none, begin_bit, end_bit, true, false);
  }
  __device__ __forceinline__ void SortDescending(KeyT (&keys)[ItemsPerThread],
                                                 ValueT (&values)[ItemsPerThread], int begin_bit = 0,
                                                 int end_bit = sizeof(KeyT) * 8) {
    sort<true>(keys, values, begin_bit, end_bit, true, false);
  }
  __device__ __forceinline__ void SortBlockedToStriped(KeyT (&keys)[ItemsPerThread], int begin_bit = 0,
                                                       int end_bit = sizeof(KeyT) * 8) {
    ValueT none[ItemsPerThread];
    sort<false>(keys, none, begin_bit, end_bit, false, true);
  }
  __device__ __forceinline__ void SortBlockedToStriped(KeyT (&keys)[ItemsPerThread],
                                                       ValueT (&values)[ItemsPerThread],
                                                       int begin_bit = 0,
                                                       int end_bit = sizeof(KeyT) * 8) {
    sort<true>(keys, values, begin_bit, end_bit, false, true);
  }
  __device__ __forceinline__ void SortDescendingBlockedToStriped(KeyT (&keys)[ItemsPerThread],
                                                                 int begin_bit = 0,
                                                                 int end_bit = sizeof(KeyT) * 8) {
    ValueT none[ItemsPerThread];
    sort<false>(keys, none, begin_bit, end_bit, true, true);
  }
  __device__ __forceinline__ void SortDescendingBlockedToStriped(KeyT (&keys)[ItemsPerThread],
                                                                 ValueT (&values)[ItemsPerThread],
                                                                 int begin_bit = 0,
                                                                 int end_bit = sizeof(KeyT) * 8) {
    sort<true>(keys, values, begin_bit, end_bit, true, true);
  }
};

} // namespace cub
