// A block-wide inclusive scan as a class template: warp scans with
// shuffles, then a scan of the warp totals in shared memory.
#pragma once

#include "operators.cuh"

namespace scan {

template <class T, int BLOCK_THREADS, class Op = Sum>
class BlockScan {
 public:
  static constexpr int kWarps = BLOCK_THREADS / 32;
  static_assert(BLOCK_THREADS % 32 == 0, "block size must be a whole number of warps");

  struct TempStorage {
    T warpTotals[kWarps];
  };

  __device__ explicit BlockScan(TempStorage &storage) : storage_(storage) {}

  // Returns this thread's inclusive prefix and, in `blockTotal`, the
  // combination of every thread's input.
  __device__ T inclusive(T input, T &blockTotal) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    T value = warpInclusive(input, lane);
    if (lane == 31) storage_.warpTotals[warp] = value;
    __syncthreads();
    if (warp == 0) {
      // The whole warp scans (the shuffles need every lane); lanes past
      // the last warp contribute the identity.
      T total = lane < kWarps ? storage_.warpTotals[lane] : Op::template identity<T>();
      total = warpInclusive(total, lane);
      if (lane < kWarps) storage_.warpTotals[lane] = total;
    }
    __syncthreads();
    if (warp > 0) value = op_(storage_.warpTotals[warp - 1], value);
    blockTotal = storage_.warpTotals[kWarps - 1];
    return value;
  }

 private:
  __device__ T warpInclusive(T value, int lane) const {
#pragma unroll
    for (int offset = 1; offset < 32; offset <<= 1) {
      T other = __shfl_up_sync(0xffffffffu, value, offset);
      if (lane >= offset) value = op_(value, other);
    }
    return value;
  }

  TempStorage &storage_;
  Op op_;
};

} // namespace scan
