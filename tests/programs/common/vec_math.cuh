// Operators and helpers on CUDA's built-in vector types (float2, float3,
// float4), usable in host and device code. Written for this corpus.
#ifndef PROGRAMS_COMMON_VEC_MATH_CUH
#define PROGRAMS_COMMON_VEC_MATH_CUH

#include <cuda_runtime.h>

#define HD __host__ __device__ __forceinline__

HD float2 operator+(float2 a, float2 b) { return make_float2(a.x + b.x, a.y + b.y); }
HD float2 operator-(float2 a, float2 b) { return make_float2(a.x - b.x, a.y - b.y); }
HD float2 operator*(float2 a, float s) { return make_float2(a.x * s, a.y * s); }

HD float3 operator+(float3 a, float3 b) { return make_float3(a.x + b.x, a.y + b.y, a.z + b.z); }
HD float3 operator-(float3 a, float3 b) { return make_float3(a.x - b.x, a.y - b.y, a.z - b.z); }
HD float3 operator-(float3 a) { return make_float3(-a.x, -a.y, -a.z); }
HD float3 operator*(float3 a, float s) { return make_float3(a.x * s, a.y * s, a.z * s); }
HD float3 operator*(float s, float3 a) { return a * s; }
HD float3 operator*(float3 a, float3 b) { return make_float3(a.x * b.x, a.y * b.y, a.z * b.z); }
HD float3 operator/(float3 a, float s) { return a * (1.0f / s); }
HD float3 &operator+=(float3 &a, float3 b) { a = a + b; return a; }
HD float3 &operator-=(float3 &a, float3 b) { a = a - b; return a; }
HD float3 &operator*=(float3 &a, float s) { a = a * s; return a; }

// Overloads of the built-in constructors: splat a scalar, widen a vector.
HD float3 make_float3(float s) { return make_float3(s, s, s); }
HD float3 make_float3(float4 a) { return make_float3(a.x, a.y, a.z); }
HD float4 make_float4(float3 a, float w) { return make_float4(a.x, a.y, a.z, w); }

HD float dot(float3 a, float3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
HD float3 cross(float3 a, float3 b) {
  return make_float3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
HD float length(float3 a) { return sqrtf(dot(a, a)); }
HD float3 normalize(float3 a) { return a * (1.0f / sqrtf(dot(a, a))); }

HD float4 operator+(float4 a, float4 b) { return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w); }
HD float4 operator*(float4 a, float s) { return make_float4(a.x * s, a.y * s, a.z * s, a.w * s); }
HD float3 xyz(float4 a) { return make_float3(a.x, a.y, a.z); }

HD float clampf(float v, float lo, float hi) { return fminf(fmaxf(v, lo), hi); }
HD float lerp(float a, float b, float t) { return a + t * (b - a); }

#undef HD

#endif // PROGRAMS_COMMON_VEC_MATH_CUH
