// tinyla: a header-only dense linear-algebra toy, as small research codes
// ship one next to their solver. Shared by host-only and CUDA builds.
#pragma once

#ifdef __CUDACC__
#define TLA_HD __host__ __device__
#define TLA_DEVICE __device__
#define TLA_INLINE __forceinline__
#else
#define TLA_HD
#define TLA_DEVICE
#define TLA_INLINE inline
#endif

#define TLA_WARP 32
#define TLA_FULL_MASK 0xffffffffu

namespace tla {
enum class Trans { No, Yes };
}  // namespace tla
