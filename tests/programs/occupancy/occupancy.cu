// A 1-D convolution with a filter in constant memory, sized by the
// occupancy API and run with more dynamic shared memory than the default
// 48 KiB once cudaFuncSetAttribute raises the limit. SDK-sample style:
// the program's own helper headers come from a folder given with -I.
//
// nvcc-flags: -I tests/programs/occupancy/inc

#include <cmath>
#include <cstdio>
#include <vector>

#include "helper_occ.h"
#include "helper_smem.cuh"

__constant__ float c_taps[OCC_MAX_TAPS];
__constant__ int c_radius;

// Each block stages its tile plus a halo of `radius` on both sides.
template <typename T, int ITEMS>
__global__ void __launch_bounds__(256, 2)
    convolveTile(const T *__restrict__ in, T *__restrict__ out, int n) {
  T *tile = DynamicSmem<T>().get();
  const int radius = c_radius;
  const int span = blockDim.x * ITEMS;
  const int base = blockIdx.x * span;
  for (int i = threadIdx.x; i < span + 2 * radius; i += blockDim.x) {
    int g = base + i - radius;
    tile[i] = (g >= 0 && g < n) ? in[g] : T(0);
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < ITEMS; ++k) {
    int local = threadIdx.x + k * blockDim.x;
    int g = base + local;
    if (g >= n) continue;
    T acc = T(0);
#pragma unroll 8
    for (int t = -radius; t <= radius; ++t) acc += tile[local + radius + t] * T(c_taps[t + radius]);
    out[g] = acc;
  }
}

// Squares in place; only the occupancy API picks its block size.
__global__ void squareInPlace(float *data, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    float v = data[i];
    data[i] = v * v;
  }
}

template <typename T, int ITEMS>
static bool runConvolution(int n, int radius, int threads, const std::vector<float> &taps) {
  std::vector<T> h_in(n), h_out(n), ref(n);
  for (int i = 0; i < n; ++i) h_in[i] = T((i * 37 % 101) / 50.0 - 1.0);
  for (int i = 0; i < n; ++i) {
    double acc = 0;
    for (int t = -radius; t <= radius; ++t) {
      int g = i + t;
      if (g >= 0 && g < n) acc += double(h_in[g]) * taps[t + radius];
    }
    ref[i] = T(acc);
  }
  T *d_in, *d_out;
  checkCudaErrors(cudaMalloc(&d_in, n * sizeof(T)));
  checkCudaErrors(cudaMalloc(&d_out, n * sizeof(T)));
  checkCudaErrors(cudaMemcpy(d_in, h_in.data(), n * sizeof(T), cudaMemcpyHostToDevice));

  size_t smem = (threads * ITEMS + 2 * radius) * sizeof(T);
  checkCudaErrors(cudaFuncSetAttribute(convolveTile<T, ITEMS>,
                                       cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  int blocks = (n + threads * ITEMS - 1) / (threads * ITEMS);
  EventTimer timer;
  timer.begin();
  convolveTile<T, ITEMS><<<blocks, threads, smem>>>(d_in, d_out, n);
  getLastCudaError("convolveTile");
  float ms = timer.end();
  checkCudaErrors(cudaMemcpy(h_out.data(), d_out, n * sizeof(T), cudaMemcpyDeviceToHost));
  checkCudaErrors(cudaFree(d_in));
  checkCudaErrors(cudaFree(d_out));

  int bad = 0;
  for (int i = 0; i < n; ++i)
    if (std::fabs(double(h_out[i]) - double(ref[i])) > 1e-4) ++bad;
  std::printf("convolveTile<%zu bytes, %d items>: %d blocks, %zu B smem, %.3f ms, %d mismatches\n",
              sizeof(T), ITEMS, blocks, smem, ms, bad);
  return bad == 0;
}

int main(int argc, char **argv) {
  int dev = pickCudaDevice(argc, argv);
  cudaDeviceProp prop;
  checkCudaErrors(cudaGetDeviceProperties(&prop, dev));
  std::printf("device %d: %s, %d SMs\n", dev, prop.name, prop.multiProcessorCount);

  const int radius = 12;
  std::vector<float> taps(2 * radius + 1);
  float sum = 0.0f;
  for (int t = -radius; t <= radius; ++t) sum += taps[t + radius] = std::exp(-0.02f * t * t);
  for (float &w : taps) w /= sum;
  checkCudaErrors(cudaMemcpyToSymbol(c_taps, taps.data(), taps.size() * sizeof(float)));
  checkCudaErrors(cudaMemcpyToSymbol(c_radius, &radius, sizeof(int)));

  bool ok = runConvolution<float, 4>(1 << 20, radius, 256, taps);
  ok = runConvolution<double, 2>(1 << 18, radius, 128, taps) && ok;

  int minGrid = 0, blockSize = 0;
  checkCudaErrors(cudaOccupancyMaxPotentialBlockSize(&minGrid, &blockSize, squareInPlace, 0, 0));
  int activeBlocks = 0;
  checkCudaErrors(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&activeBlocks, squareInPlace, blockSize, 0));
  const int n = 1 << 16;
  std::vector<float> h(n);
  for (int i = 0; i < n; ++i) h[i] = 0.001f * i;
  float *d;
  checkCudaErrors(cudaMalloc(&d, n * sizeof(float)));
  checkCudaErrors(cudaMemcpy(d, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  squareInPlace<<<minGrid, blockSize>>>(d, n);
  getLastCudaError("squareInPlace");
  std::vector<float> back(n);
  checkCudaErrors(cudaMemcpy(back.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost));
  checkCudaErrors(cudaFree(d));
  for (int i = 0; i < n; ++i)
    if (back[i] != h[i] * h[i]) ok = false;
  std::printf("squareInPlace: block %d, grid %d, %d blocks/SM\n", blockSize, minGrid, activeBlocks);
  std::printf("%s\n", ok ? "Test passed" : "Test FAILED");
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
