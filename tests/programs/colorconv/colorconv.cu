// Color conversion and grading of an RGBA image: luma, a tone curve from a
// __constant__ table initialized at file scope, a brightness lift through a
// saturating SIMD add, and a per-image statistic kept in a static __device__
// counter. Parts of the code choose a path by the target architecture
// (`__CUDA_ARCH__`), as libraries that tune for Ampere and later do.
//
// nvcc-flags: -I tests/programs/common
// nvcc-flags: -I tests/programs/common -DCOLORCONV_GAMMA_LUT=0

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cmath>

#include <cuda_runtime.h>
#include <helper_cuda.h>

#include "pixel_math.h"

#ifndef COLORCONV_GAMMA_LUT
#define COLORCONV_GAMMA_LUT 1
#endif

#define CURVE_POINTS 17

// A tone curve sampled every 16 levels (plus the end point); the kernels
// interpolate between the samples.
__constant__ unsigned char c_toneCurve[CURVE_POINTS] = {
    0, 10, 24, 40, 58, 77, 96, 115, 134, 152, 169, 185, 200, 214, 228, 242, 255};

__constant__ float c_channelGain[3] = {1.05f, 1.0f, 0.92f};

// The same curve for the host reference: a host table, never on the device.
static const unsigned char kToneCurveHost[CURVE_POINTS] = {
    0, 10, 24, 40, 58, 77, 96, 115, 134, 152, 169, 185, 200, 214, 228, 242, 255};
static const float kChannelGainHost[3] = {1.05f, 1.0f, 0.92f};

// Pixels that clipped, over every launch since the last reset.
static __device__ unsigned int d_clipped = 0;

__device__ __forceinline__ int applyCurve(int v) {
#if COLORCONV_GAMMA_LUT
  int seg = v >> 4, frac = v & 15;
  int lo = c_toneCurve[seg], hi = c_toneCurve[seg + 1 < CURVE_POINTS ? seg + 1 : seg];
  return lo + (((hi - lo) * frac + 8) >> 4);
#else
  return v;
#endif
}

__device__ int gradeChannel(int v, int channel) {
  float scaled = applyCurve(v) * c_channelGain[channel];
  int out = __float2int_rn(scaled);
  if (out > 255) {
    atomicAdd(&d_clipped, 1u);
  }
  return clampByte(out);
}

__global__ void rgbaToLuma(const uchar4 *in, unsigned char *luma, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  uchar4 p = in[i];
  rgba8_t q = {p.x, p.y, p.z, p.w};
  luma[i] = lumaOf(q);
}

__global__ void gradeImage(const uchar4 *in, uchar4 *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
#if __CUDA_ARCH__ >= 800
  // Ampere and later: read through the read-only path explicitly.
  uchar4 p = __ldg(&in[i]);
#else
  uchar4 p = in[i];
#endif
  uchar4 q;
  q.x = (unsigned char)gradeChannel(p.x, 0);
  q.y = (unsigned char)gradeChannel(p.y, 1);
  q.z = (unsigned char)gradeChannel(p.z, 2);
  q.w = p.w;
  out[i] = q;
}

// Lifts every channel by `lift` (alpha too) with saturation.
__global__ void liftBrightness(unsigned int *pixels, unsigned int lift, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) pixels[i] = addSaturate4(pixels[i], lift);
}

__global__ void readClipped(unsigned int *dst, int reset) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    *dst = d_clipped;
    if (reset) d_clipped = 0;
  }
}

static int gradeHost(int v, int channel) {
  int seg = v >> 4, frac = v & 15;
  int lo = kToneCurveHost[seg];
  int hi = kToneCurveHost[seg + 1 < CURVE_POINTS ? seg + 1 : seg];
  int curved = COLORCONV_GAMMA_LUT ? lo + (((hi - lo) * frac + 8) >> 4) : v;
  return clampByte((int)lrintf(curved * kChannelGainHost[channel]));
}

int main() {
  const int width = 320, height = 200, n = width * height;
  uchar4 *hIn = (uchar4 *)malloc(n * sizeof(uchar4));
  uchar4 *hOut = (uchar4 *)malloc(n * sizeof(uchar4));
  for (int i = 0; i < n; ++i) {
    hIn[i] = make_uchar4((i * 3) & 255, (i / width) & 255, (i * 7 + 13) & 255, 255);
  }
  uchar4 *dIn, *dOut;
  unsigned char *dLuma;
  unsigned int *dClipped;
  checkCudaErrors(cudaMalloc(&dIn, n * sizeof(uchar4)));
  checkCudaErrors(cudaMalloc(&dOut, n * sizeof(uchar4)));
  checkCudaErrors(cudaMalloc(&dLuma, n));
  checkCudaErrors(cudaMalloc(&dClipped, sizeof(unsigned int)));
  checkCudaErrors(cudaMemcpy(dIn, hIn, n * sizeof(uchar4), cudaMemcpyHostToDevice));

  const int threads = 128, blocks = (n + threads - 1) / threads;
  rgbaToLuma<<<blocks, threads>>>(dIn, dLuma, n);
  gradeImage<<<blocks, threads>>>(dIn, dOut, n);
  liftBrightness<<<blocks, threads>>>((unsigned int *)dOut, 0x00040404u, n);
  readClipped<<<1, 1>>>(dClipped, 1);
  getLastCudaError("grading");
  checkCudaErrors(cudaMemcpy(hOut, dOut, n * sizeof(uchar4), cudaMemcpyDeviceToHost));
  unsigned int clipped = 0;
  checkCudaErrors(cudaMemcpy(&clipped, dClipped, sizeof clipped, cudaMemcpyDeviceToHost));

  int errors = 0;
  for (int i = 0; i < n && errors < 10; ++i) {
    int want = clampByte(gradeHost(hIn[i].x, 0) + 4);
    if (hOut[i].x != want) {
      printf("pixel %d: %d, expected %d\n", i, hOut[i].x, want);
      ++errors;
    }
  }
  printf("colorconv: %u clipped channel values, %s\n", clipped,
         errors ? "FAILED" : "PASSED");
  cudaFree(dIn);
  cudaFree(dOut);
  cudaFree(dLuma);
  cudaFree(dClipped);
  free(hIn);
  free(hOut);
  return errors ? EXIT_FAILURE : EXIT_SUCCESS;
}
