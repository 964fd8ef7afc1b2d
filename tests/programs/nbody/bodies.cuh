// Bodies of the n-body program and the pairwise interaction they share
// between the device kernel and the host reference.
#pragma once

#include <cuda_runtime.h>

namespace nbody {

// Position in xyz, mass in w.
using Body = float4;

constexpr float kSoftening2 = 0.01f; // softening length squared
constexpr float kGravity = 1.0f;

// Acceleration that body j exerts on body i, accumulated into acc.
// The softening keeps i == j harmless (zero distance, zero force).
__host__ __device__ inline float3 accumulate(float3 acc, Body bi, Body bj) {
  float3 r = make_float3(bj.x - bi.x, bj.y - bi.y, bj.z - bi.z);
  float dist2 = r.x * r.x + r.y * r.y + r.z * r.z + kSoftening2;
#ifdef __CUDA_ARCH__
  float invDist = rsqrtf(dist2);
#else
  float invDist = 1.0f / sqrtf(dist2);
#endif
  float s = kGravity * bj.w * invDist * invDist * invDist;
  acc.x += r.x * s;
  acc.y += r.y * s;
  acc.z += r.z * s;
  return acc;
}

struct SimParams {
  int count;
  float dt;
  float damping;
};

} // namespace nbody
