// Pixel arithmetic shared by the host reference and the kernels. The header
// is also meant for translation units that a plain C++ compiler builds, so
// the CUDA qualifiers hide behind __CUDACC__.
#ifndef COLORCONV_PIXEL_MATH_H
#define COLORCONV_PIXEL_MATH_H

#ifdef __CUDACC__
#define PM_HOST_DEVICE __host__ __device__
#define PM_INLINE __forceinline__
#else
#define PM_HOST_DEVICE
#define PM_INLINE inline
#endif

#include <stdint.h>

typedef struct {
  uint8_t r, g, b, a;
} rgba8_t;

// BT.601 luma weights in 8.8 fixed point.
enum { LUMA_R = 77, LUMA_G = 150, LUMA_B = 29 };

PM_HOST_DEVICE PM_INLINE int clampByte(int v) {
  return v < 0 ? 0 : (v > 255 ? 255 : v);
}

PM_HOST_DEVICE PM_INLINE uint8_t lumaOf(rgba8_t p) {
  return (uint8_t)((LUMA_R * p.r + LUMA_G * p.g + LUMA_B * p.b + 128) >> 8);
}

// Saturating add; on the device the SIMD-in-a-word intrinsic does the
// four lanes at once, on the host a loop does.
PM_HOST_DEVICE PM_INLINE uint32_t addSaturate4(uint32_t x, uint32_t y) {
#if defined(__CUDA_ARCH__)
  return __vaddus4(x, y);
#else
  uint32_t out = 0;
  for (int lane = 0; lane < 4; ++lane) {
    int s = (int)((x >> (8 * lane)) & 0xff) + (int)((y >> (8 * lane)) & 0xff);
    out |= (uint32_t)clampByte(s) << (8 * lane);
  }
  return out;
#endif
}

#endif  // COLORCONV_PIXEL_MATH_H
