// <cooperative_groups.h> for kernelc: thread blocks, their static tiles of
// 1 to 32 threads, dynamic groups (`thread_group`) and the collectives
// `reduce`, `inclusive_scan` and `exclusive_scan` (<cooperative_groups/reduce.h>
// and <cooperative_groups/scan.h> name this header too), written for kernelc
// as classes and templates of CUDA source. Every result is CUDA's: a tile's
// rank is the block rank modulo its size, its meta group is the block rank
// divided by it, a reduction is CUDA's butterfly of `shfl_xor` from half the
// tile down, a scan its ladder of `shfl_up` (docs/language.md, "Cooperative
// groups", says what differs in the PTX and what is not provided), and the
// grid of a cooperative launch (`grid_group`, whose `sync()` is one built-in
// grid barrier). `memcpy_async` (<cooperative_groups/memcpy_async.h> names
// this header too) is a batch of kernelc's `cp.async` built-ins, one commit
// group per call, that `wait` and `wait_prior` wait for.
#pragma once

#pragma kernelc unsupported this_multi_grid multi_grid_group "groups of several devices' grids"
#pragma kernelc unsupported this_cluster cluster_group "thread block clusters as groups"
#pragma kernelc unsupported block_tile_memory invoke_one invoke_one_broadcast reduce_update_async reduce_store_async inclusive_scan_update exclusive_scan_update "cooperative groups' tiles of more than 32 threads and asynchronous collectives"

namespace cooperative_groups {
namespace __v1 {

namespace details {

// The thread's rank in its block: x fastest, then y, then z.
__device__ __forceinline__ unsigned int cta_rank() {
  return (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
}

__device__ __forceinline__ unsigned int cta_size() {
  return blockDim.x * blockDim.y * blockDim.z;
}

// The lanes of the tile of `size` threads (a power of two up to 32) that
// holds this thread. Warps are cut from the block rank, so the lane is the
// rank modulo 32.
__device__ __forceinline__ unsigned int tile_mask(unsigned int size) {
  if (size == 32) return 0xffffffffu;
  return ((1u << size) - 1u) << ((cta_rank() & 31u) & ~(size - 1u));
}

// Kinds of a dynamic group, as `get_type()` gives them: CUDA's ids (a
// tile of up to 32 threads is a coalesced group).
constexpr unsigned int tile_kind = 1;
constexpr unsigned int block_kind = 4;

} // namespace details

// A group whose kind is known only at run time: a block or a tile of it.
class thread_group {
public:
  unsigned int _kind;
  unsigned int _size;
  unsigned int _meta_rank;
  unsigned int _meta_size;

  __device__ unsigned long long size() const {
    return _kind == details::block_kind ? details::cta_size() : _size;
  }
  __device__ unsigned long long num_threads() const { return size(); }
  __device__ unsigned long long thread_rank() const {
    return _kind == details::block_kind ? details::cta_rank() : details::cta_rank() & (_size - 1u);
  }
  __device__ void sync() const {
    if (_kind == details::block_kind)
      __syncthreads();
    else
      __syncwarp(details::tile_mask(_size));
  }
  __device__ unsigned int get_type() const { return _kind; }
};

class thread_block {
public:
  __device__ void sync() const { __syncthreads(); }
  __device__ unsigned int thread_rank() const { return details::cta_rank(); }
  __device__ unsigned int size() const { return details::cta_size(); }
  __device__ unsigned int num_threads() const { return details::cta_size(); }
  __device__ dim3 group_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  __device__ dim3 thread_index() const { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
  __device__ dim3 group_dim() const { return dim3(blockDim.x, blockDim.y, blockDim.z); }
  __device__ dim3 dim_threads() const { return dim3(blockDim.x, blockDim.y, blockDim.z); }
  __device__ operator thread_group() const {
    thread_group g;
    g._kind = details::block_kind;
    g._size = 0;
    g._meta_rank = 0;
    g._meta_size = 1;
    return g;
  }
};

__device__ __forceinline__ thread_block this_thread_block() { return thread_block(); }

// Every thread of a cooperative launch (`cudaLaunchCooperativeKernel`).
// Sizes and ranks are 64-bit, as CUDA's are; `sync()` is the built-in grid
// barrier, which kernelc lowers to CUDA's barrier on the launch's
// workspace. `is_valid()` says whether there is a workspace, that is
// whether the launch is cooperative.
class grid_group {
public:
  __device__ bool is_valid() const { return __kernelc_grid_workspace() != 0; }
  __device__ void sync() const {
    if (!is_valid()) __trap();
    __kernelc_grid_sync();
  }
  __device__ unsigned long long num_blocks() const {
    return (unsigned long long)gridDim.x * (gridDim.y * gridDim.z);
  }
  __device__ unsigned long long block_rank() const {
    return ((unsigned long long)blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
  }
  __device__ unsigned long long num_threads() const { return num_blocks() * details::cta_size(); }
  __device__ unsigned long long size() const { return num_threads(); }
  __device__ unsigned long long thread_rank() const {
    return block_rank() * details::cta_size() + details::cta_rank();
  }
  __device__ dim3 dim_blocks() const { return dim3(gridDim.x, gridDim.y, gridDim.z); }
  __device__ dim3 group_dim() const { return dim_blocks(); }
  __device__ dim3 block_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  __device__ dim3 dim_threads() const {
    return dim3(gridDim.x * blockDim.x, gridDim.y * blockDim.y, gridDim.z * blockDim.z);
  }
  __device__ dim3 thread_index() const {
    return dim3(blockIdx.x * blockDim.x + threadIdx.x, blockIdx.y * blockDim.y + threadIdx.y,
                blockIdx.z * blockDim.z + threadIdx.z);
  }
};

__device__ __forceinline__ grid_group this_grid() { return grid_group(); }

// A tile of `Size` threads (1, 2, 4, 8, 16 or 32) cut from a block or from
// a larger tile. Its place among its siblings is kept, as CUDA keeps it.
template <unsigned int Size, class ParentT = void>
class thread_block_tile {
  static_assert(Size == 1 || Size == 2 || Size == 4 || Size == 8 || Size == 16 || Size == 32,
                "kernelc's thread_block_tile has 1, 2, 4, 8, 16 or 32 threads");

public:
  unsigned int _meta_rank;
  unsigned int _meta_size;

  static constexpr unsigned int numThreads = Size;

  __device__ unsigned int thread_rank() const { return details::cta_rank() & (Size - 1u); }
  __device__ unsigned int size() const { return Size; }
  __device__ unsigned int num_threads() const { return Size; }
  __device__ unsigned int meta_group_rank() const { return _meta_rank; }
  __device__ unsigned int meta_group_size() const { return _meta_size; }
  __device__ unsigned int build_mask() const { return details::tile_mask(Size); }
  __device__ void sync() const { __syncwarp(build_mask()); }

  // CUDA's shuffles are member templates over any arithmetic type; these
  // are the overloads for each (kernelc's `long long` is `long`).
#define __KERNELC_TILE_SHUFFLES(T)                                                          \
  __device__ T shfl(T v, int src) const { return __shfl_sync(build_mask(), v, src, Size); } \
  __device__ T shfl_down(T v, unsigned int d) const {                                      \
    return __shfl_down_sync(build_mask(), v, d, Size);                                     \
  }                                                                                        \
  __device__ T shfl_up(T v, unsigned int d) const {                                        \
    return __shfl_up_sync(build_mask(), v, d, Size);                                       \
  }                                                                                        \
  __device__ T shfl_xor(T v, unsigned int m) const {                                       \
    return __shfl_xor_sync(build_mask(), v, m, Size);                                      \
  }
  __KERNELC_TILE_SHUFFLES(int)
  __KERNELC_TILE_SHUFFLES(unsigned int)
  __KERNELC_TILE_SHUFFLES(long)
  __KERNELC_TILE_SHUFFLES(unsigned long)
  __KERNELC_TILE_SHUFFLES(float)
  __KERNELC_TILE_SHUFFLES(double)
#undef __KERNELC_TILE_SHUFFLES

  __device__ int any(int predicate) const { return __ballot_sync(build_mask(), predicate) != 0; }
  __device__ int all(int predicate) const {
    return __ballot_sync(build_mask(), predicate) == build_mask();
  }
  __device__ unsigned int ballot(int predicate) const {
    return __ballot_sync(build_mask(), predicate) >> ((details::cta_rank() & 31u) & ~(Size - 1u));
  }

  __device__ operator thread_group() const {
    thread_group g;
    g._kind = details::tile_kind;
    g._size = Size;
    g._meta_rank = _meta_rank;
    g._meta_size = _meta_size;
    return g;
  }
};

// Tiles of a block: the meta group counts the block's tiles, the last one
// partial when the block is not a multiple of the tile.
template <unsigned int Size>
__device__ __forceinline__ thread_block_tile<Size> tiled_partition(const thread_block &parent) {
  thread_block_tile<Size> t;
  t._meta_rank = parent.thread_rank() / Size;
  t._meta_size = (parent.size() + Size - 1u) / Size;
  return t;
}

// Tiles of a tile.
template <unsigned int Size, unsigned int ParentSize, class ParentT>
__device__ __forceinline__ thread_block_tile<Size>
tiled_partition(const thread_block_tile<ParentSize, ParentT> &parent) {
  thread_block_tile<Size> t;
  t._meta_rank = parent.thread_rank() / Size;
  t._meta_size = ParentSize / Size;
  return t;
}

// A dynamic tile of `tilesz` threads (a power of two up to 32).
__device__ __forceinline__ thread_group tiled_partition(const thread_group &parent,
                                                        unsigned int tilesz) {
  thread_group g;
  g._kind = details::tile_kind;
  g._size = tilesz;
  g._meta_rank = (unsigned int)(parent.thread_rank() / tilesz);
  g._meta_size = (unsigned int)((parent.size() + tilesz - 1u) / tilesz);
  return g;
}

namespace details {

// This thread's lane: warps are cut from the block rank.
__device__ __forceinline__ unsigned int lane() { return cta_rank() & 31u; }

// The lane `n` members of `mask` above `base` (n = 1: `base` itself when it
// is a member), or ~0u when there is none: PTX's `fns` with a positive
// offset, which CUDA's shuffles of coalesced groups use.
__device__ __forceinline__ unsigned int nth_lane_up(unsigned int mask, unsigned int base,
                                                    unsigned int n) {
  unsigned int m = mask & (0xffffffffu << base);
  for (unsigned int i = 1; i < n && m != 0; i++) m &= m - 1u;
  return m == 0 ? 0xffffffffu : (unsigned int)(__ffs(m) - 1);
}

// The same below `base` (`fns` with a negative offset).
__device__ __forceinline__ unsigned int nth_lane_down(unsigned int mask, unsigned int base,
                                                      unsigned int n) {
  unsigned int m = mask & (base == 31u ? 0xffffffffu : (2u << base) - 1u);
  for (unsigned int i = 1; i < n && m != 0; i++) m &= ~(0x80000000u >> __clz(m));
  return m == 0 ? 0xffffffffu : 31u - (unsigned int)__clz(m);
}

} // namespace details

// The threads of a warp that were converged where it was made, or a
// partition of them: any set of lanes, ranked in lane order.
class coalesced_group {
public:
  unsigned int _mask;
  unsigned int _meta_rank;
  unsigned int _meta_size;

  __device__ unsigned int num_threads() const { return __popc(_mask); }
  __device__ unsigned int size() const { return num_threads(); }
  __device__ unsigned int thread_rank() const {
    return __popc(_mask & ((1u << details::lane()) - 1u));
  }
  __device__ unsigned int meta_group_rank() const { return _meta_rank; }
  __device__ unsigned int meta_group_size() const { return _meta_size; }
  __device__ void sync() const { __syncwarp(_mask); }

  // The member bits of `lanes` packed in rank order.
  __device__ unsigned int pack(unsigned int lanes) const {
    unsigned int packed = 0, rank = 0;
    for (unsigned int bit = 0; bit < 32u; bit++) {
      if (_mask & (1u << bit)) {
        if (lanes & (1u << bit)) packed |= 1u << rank;
        rank++;
      }
    }
    return packed;
  }

  // CUDA's lanes for each shuffle: a rank's lane, or the member `d` ranks
  // away (this thread's own value when there is none).
#define __KERNELC_COALESCED_SHUFFLES(T)                                                     \
  __device__ T shfl(T v, int src) const {                                                  \
    unsigned int l = src == 0 ? (unsigned int)(__ffs(_mask) - 1)                            \
                              : size() == 32u ? (unsigned int)src                           \
                                             : details::nth_lane_up(_mask, 0, src + 1);    \
    return __shfl_sync(_mask, v, l, 32);                                                    \
  }                                                                                         \
  __device__ T shfl_down(T v, unsigned int d) const {                                      \
    if (size() == 32u) return __shfl_down_sync(0xffffffffu, v, d, 32);                      \
    unsigned int l = details::nth_lane_up(_mask, details::lane(), d + 1u);                  \
    return __shfl_sync(_mask, v, l >= 32u ? details::lane() : l, 32);                       \
  }                                                                                         \
  __device__ T shfl_up(T v, unsigned int d) const {                                        \
    if (size() == 32u) return __shfl_up_sync(0xffffffffu, v, d, 32);                        \
    unsigned int l = details::nth_lane_down(_mask, details::lane(), d + 1u);                \
    return __shfl_sync(_mask, v, l >= 32u ? details::lane() : l, 32);                       \
  }
  __KERNELC_COALESCED_SHUFFLES(int)
  __KERNELC_COALESCED_SHUFFLES(unsigned int)
  __KERNELC_COALESCED_SHUFFLES(long)
  __KERNELC_COALESCED_SHUFFLES(unsigned long)
  __KERNELC_COALESCED_SHUFFLES(float)
  __KERNELC_COALESCED_SHUFFLES(double)
#undef __KERNELC_COALESCED_SHUFFLES

  __device__ int any(int predicate) const { return __ballot_sync(_mask, predicate) != 0; }
  __device__ int all(int predicate) const { return __ballot_sync(_mask, predicate) == _mask; }
  // The members whose predicate holds, as bits in rank order.
  __device__ unsigned int ballot(int predicate) const {
    return size() == 32u ? __ballot_sync(0xffffffffu, predicate)
                         : pack(__ballot_sync(_mask, predicate));
  }
  template <class T> __device__ unsigned int match_any(T v) const {
    return size() == 32u ? __match_any_sync(0xffffffffu, v) : pack(__match_any_sync(_mask, v));
  }
  template <class T> __device__ unsigned int match_all(T v, int &pred) const {
    return size() == 32u ? __match_all_sync(0xffffffffu, v, &pred)
                         : pack(__match_all_sync(_mask, v, &pred));
  }
};

namespace details {
__device__ __forceinline__ coalesced_group coalesced_of(unsigned int mask, unsigned int meta_rank,
                                                       unsigned int meta_size) {
  coalesced_group g;
  g._mask = mask;
  g._meta_rank = meta_rank;
  g._meta_size = meta_size;
  return g;
}

// The members of `mask` whose predicate equals this thread's: all of them
// (meta group 0 of 1) when every predicate agrees, else the half this
// thread is in (the true half is meta group 1 of 2).
__device__ __forceinline__ coalesced_group binary_partition_of(unsigned int mask, bool pred) {
  unsigned int set = __ballot_sync(mask, pred);
  if (set == mask || set == 0) return coalesced_of(mask, 0, 1);
  return coalesced_of(mask & (pred ? set : ~set), pred ? 1u : 0u, 2);
}

// The members of `mask` with this thread's label; meta groups ranked by
// their lowest lane.
template <class T> struct is_bool { static constexpr bool value = false; };
template <> struct is_bool<bool> { static constexpr bool value = true; };

// ... and a `bool` label partitions as `binary_partition` does, as CUDA's.
template <class T>
__device__ __forceinline__ coalesced_group labeled_partition_of(unsigned int mask, T label) {
  if (is_bool<T>::value) return binary_partition_of(mask, label != 0);
  unsigned int same = __match_any_sync(mask, label);
  unsigned int leader = (unsigned int)(__ffs(same) - 1);
  unsigned int leaders = __ballot_sync(mask, leader == lane());
  return coalesced_of(same, __popc(leaders & ((1u << leader) - 1u)), __popc(leaders));
}
} // namespace details

__device__ __forceinline__ coalesced_group coalesced_threads() {
  return details::coalesced_of(__activemask(), 0, 1);
}

__device__ __forceinline__ coalesced_group binary_partition(const coalesced_group &g, bool pred) {
  return details::binary_partition_of(g._mask, pred);
}
template <unsigned int Size, class ParentT>
__device__ __forceinline__ coalesced_group binary_partition(const thread_block_tile<Size, ParentT> &t,
                                                            bool pred) {
  return details::binary_partition_of(t.build_mask(), pred);
}
template <class T>
__device__ __forceinline__ coalesced_group labeled_partition(const coalesced_group &g, T label) {
  return details::labeled_partition_of(g._mask, label);
}
template <class T, unsigned int Size, class ParentT>
__device__ __forceinline__ coalesced_group labeled_partition(const thread_block_tile<Size, ParentT> &t,
                                                             T label) {
  return details::labeled_partition_of(t.build_mask(), label);
}

template <class GroupT> __device__ __forceinline__ void sync(const GroupT &g) { g.sync(); }

template <class GroupT> __device__ __forceinline__ unsigned long long thread_rank(const GroupT &g) {
  return g.thread_rank();
}

template <class GroupT> __device__ __forceinline__ unsigned long long group_size(const GroupT &g) {
  return g.size();
}

// <cooperative_groups/functional.h>'s operators, with CUDA's operand order
// (`less` keeps the first operand unless the second is smaller).
template <class T> struct plus {
  __device__ __forceinline__ T operator()(T a, T b) const { return a + b; }
};
template <class T> struct less {
  __device__ __forceinline__ T operator()(T a, T b) const { return (b < a) ? b : a; }
};
template <class T> struct greater {
  __device__ __forceinline__ T operator()(T a, T b) const { return (a < b) ? b : a; }
};
template <class T> struct bit_and {
  __device__ __forceinline__ T operator()(T a, T b) const { return a & b; }
};
template <class T> struct bit_or {
  __device__ __forceinline__ T operator()(T a, T b) const { return a | b; }
};
template <class T> struct bit_xor {
  __device__ __forceinline__ T operator()(T a, T b) const { return a ^ b; }
};

// The value of `op` over the tile, in every thread: CUDA's butterfly,
// `out = op(out, shfl_xor(out, m))` for m = Size/2 down to 1.
template <class GroupT, class T, class Op>
__device__ __forceinline__ T reduce(const GroupT &g, T val, const Op &op) {
  T out = val;
  for (unsigned int m = g.size() >> 1; m > 0; m >>= 1) out = op(out, g.shfl_xor(out, m));
  return out;
}

// The inclusive prefix of `op` over the tile's ranks: CUDA's ladder,
// `out = op(out, shfl_up(out, m))` where rank >= m, for m = 1, 2, 4, ...
template <class GroupT, class T, class Op>
__device__ __forceinline__ T inclusive_scan(const GroupT &g, T val, const Op &op) {
  T out = val;
  for (unsigned int m = 1; m < g.size(); m <<= 1) {
    T lower = g.shfl_up(out, m);
    if (m <= g.thread_rank()) out = op(out, lower);
  }
  return out;
}

template <class GroupT, class T>
__device__ __forceinline__ T inclusive_scan(const GroupT &g, T val) {
  return inclusive_scan(g, val, plus<T>());
}

// The exclusive prefix: the inclusive one shifted up a rank, T() at rank 0.
template <class GroupT, class T, class Op>
__device__ __forceinline__ T exclusive_scan(const GroupT &g, T val, const Op &op) {
  T inclusive = inclusive_scan(g, val, op);
  T shifted = g.shfl_up(inclusive, 1);
  return g.thread_rank() == 0 ? T() : shifted;
}

template <class GroupT, class T>
__device__ __forceinline__ T exclusive_scan(const GroupT &g, T val) {
  return exclusive_scan(g, val, plus<T>());
}

// Copies `bytes` from `src` (global memory) to `dst` (shared memory), the
// group's threads sharing the work, as one commit group of `cp.async`
// copies: 16 bytes a copy where both addresses and the size are multiples
// of 16, 4 where they are of 4, else byte by byte with plain loads and
// stores (done before the call returns).
template <class GroupT>
__device__ __forceinline__ void memcpy_async(const GroupT &g, void *dst, const void *src,
                                             unsigned long long bytes) {
  char *d = static_cast<char *>(dst);
  const char *s = static_cast<const char *>(src);
  const unsigned long long rank = g.thread_rank();
  const unsigned long long n = g.num_threads();
  const unsigned long long bits =
      reinterpret_cast<unsigned long long>(d) | reinterpret_cast<unsigned long long>(s) | bytes;
  if ((bits & 15ull) == 0) {
    for (unsigned long long i = rank * 16; i < bytes; i += n * 16) kernelc_cp_async_cg_16(d + i, s + i);
  } else if ((bits & 3ull) == 0) {
    for (unsigned long long i = rank * 4; i < bytes; i += n * 4) kernelc_cp_async_ca_4(d + i, s + i);
  } else {
    for (unsigned long long i = rank; i < bytes; i += n) d[i] = s[i];
  }
  kernelc_cp_async_commit();
}

// Waits for every copy this thread started, then for the group.
template <class GroupT>
__device__ __forceinline__ void wait(const GroupT &g) {
  kernelc_cp_async_wait_all();
  g.sync();
}

// Waits until at most the newest `N` of this thread's `memcpy_async`
// batches are in flight, then for the group.
template <unsigned int N, class GroupT>
__device__ __forceinline__ void wait_prior(const GroupT &g) {
  kernelc_cp_async_wait(N);
  g.sync();
}

} // namespace __v1
using namespace __v1;
} // namespace cooperative_groups
