// Separable 2-D convolution (row pass, then column pass) with the filter
// taps in __constant__ memory, set from the host with cudaMemcpyToSymbol.
// Each pass stages its tile plus halo in shared memory. Sample-style.
//
// nvcc-flags: -I tests/programs/common

#include <cstdio>
#include <cstdlib>
#include <cmath>

#include <cuda_runtime.h>
#include <helper_cuda.h>

#define TAP_RADIUS 8
#define TAP_COUNT (2 * TAP_RADIUS + 1)

__constant__ float c_Taps[TAP_COUNT];

#define ROW_TX 16
#define ROW_TY 4
#define ROW_OUTPUTS 8
#define ROW_APRON 1

__global__ void filterRowPass(float *__restrict__ dst, const float *__restrict__ src,
                                int imageW, int imageH, int pitch) {
  __shared__ float tile[ROW_TY]
                       [(ROW_OUTPUTS + 2 * ROW_APRON) * ROW_TX];
  const int baseX = (blockIdx.x * ROW_OUTPUTS - ROW_APRON) * ROW_TX +
                    threadIdx.x;
  const int baseY = blockIdx.y * ROW_TY + threadIdx.y;
  const bool rowInside = baseY < imageH;
  const int rowOffset = rowInside ? baseY * pitch : 0;

#pragma unroll
  for (int step = 0; step < ROW_OUTPUTS + 2 * ROW_APRON; ++step) {
    int x = baseX + step * ROW_TX;
    float v = 0.0f;
    if (rowInside && x >= 0 && x < imageW) v = src[rowOffset + x];
    tile[threadIdx.y][threadIdx.x + step * ROW_TX] = v;
  }
  __syncthreads();

#pragma unroll
  for (int step = ROW_APRON; step < ROW_APRON + ROW_OUTPUTS; ++step) {
    int x = baseX + step * ROW_TX;
    float sum = 0.0f;
#pragma unroll
    for (int j = -TAP_RADIUS; j <= TAP_RADIUS; ++j)
      sum += c_Taps[TAP_RADIUS - j] * tile[threadIdx.y][threadIdx.x + step * ROW_TX + j];
    if (rowInside && x < imageW) dst[rowOffset + x] = sum;
  }
}

#define COL_TX 16
#define COL_TY 8
#define COL_OUTPUTS 8
#define COL_APRON 1

__global__ void filterColumnPass(float *__restrict__ dst, const float *__restrict__ src,
                                   int imageW, int imageH, int pitch) {
  __shared__ float tile[COL_TX]
                       [(COL_OUTPUTS + 2 * COL_APRON) * COL_TY + 1];
  const int x = blockIdx.x * COL_TX + threadIdx.x;
  const int baseY = (blockIdx.y * COL_OUTPUTS - COL_APRON) * COL_TY +
                    threadIdx.y;
  const bool colInside = x < imageW;

#pragma unroll
  for (int step = 0; step < COL_OUTPUTS + 2 * COL_APRON; ++step) {
    int y = baseY + step * COL_TY;
    float v = 0.0f;
    if (colInside && y >= 0 && y < imageH) v = src[y * pitch + x];
    tile[threadIdx.x][threadIdx.y + step * COL_TY] = v;
  }
  __syncthreads();

#pragma unroll
  for (int step = COL_APRON; step < COL_APRON + COL_OUTPUTS; ++step) {
    int y = baseY + step * COL_TY;
    float sum = 0.0f;
#pragma unroll
    for (int j = -TAP_RADIUS; j <= TAP_RADIUS; ++j)
      sum += c_Taps[TAP_RADIUS - j] * tile[threadIdx.x][threadIdx.y + step * COL_TY + j];
    if (colInside && y < imageH) dst[y * pitch + x] = sum;
  }
}

static void convolveRowsHost(float *dst, const float *src, const float *taps, int w, int h) {
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      double sum = 0;
      for (int j = -TAP_RADIUS; j <= TAP_RADIUS; ++j)
        if (x + j >= 0 && x + j < w) sum += taps[TAP_RADIUS - j] * src[y * w + x + j];
      dst[y * w + x] = (float)sum;
    }
}

static void convolveColumnsHost(float *dst, const float *src, const float *taps, int w, int h) {
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      double sum = 0;
      for (int j = -TAP_RADIUS; j <= TAP_RADIUS; ++j)
        if (y + j >= 0 && y + j < h) sum += taps[TAP_RADIUS - j] * src[(y + j) * w + x];
      dst[y * w + x] = (float)sum;
    }
}

int main() {
  const int imageW = 1000, imageH = 600;
  const size_t bytes = imageW * imageH * sizeof(float);
  findCudaDevice();

  float taps[TAP_COUNT];
  float norm = 0;
  for (int i = 0; i < TAP_COUNT; ++i) {
    float d = (float)(i - TAP_RADIUS) / TAP_RADIUS;
    taps[i] = expf(-2.0f * d * d) * (i % 3 == 0 ? 1.1f : 1.0f); // slightly asymmetric
    norm += taps[i];
  }
  for (float &t : taps) t /= norm;
  checkCudaErrors(cudaMemcpyToSymbol(c_Taps, taps, sizeof(taps)));

  float *h_in = (float *)malloc(bytes), *h_tmp = (float *)malloc(bytes);
  float *h_ref = (float *)malloc(bytes), *h_out = (float *)malloc(bytes);
  fillRandom(h_in, imageW * imageH, 99u);

  float *d_in, *d_tmp, *d_out;
  checkCudaErrors(cudaMalloc(&d_in, bytes));
  checkCudaErrors(cudaMalloc(&d_tmp, bytes));
  checkCudaErrors(cudaMalloc(&d_out, bytes));
  checkCudaErrors(cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice));

  dim3 rowBlocks(iDivUp(imageW, ROW_OUTPUTS * ROW_TX), iDivUp(imageH, ROW_TY));
  dim3 rowThreads(ROW_TX, ROW_TY);
  filterRowPass<<<rowBlocks, rowThreads>>>(d_tmp, d_in, imageW, imageH, imageW);
  getLastCudaError("filterRowPass");

  dim3 colBlocks(iDivUp(imageW, COL_TX), iDivUp(imageH, COL_OUTPUTS * COL_TY));
  dim3 colThreads(COL_TX, COL_TY);
  filterColumnPass<<<colBlocks, colThreads>>>(d_out, d_tmp, imageW, imageH, imageW);
  getLastCudaError("filterColumnPass");
  checkCudaErrors(cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost));

  convolveRowsHost(h_tmp, h_in, taps, imageW, imageH);
  convolveColumnsHost(h_ref, h_tmp, taps, imageW, imageH);
  double num = 0, den = 0;
  for (int i = 0; i < imageW * imageH; ++i) {
    num += (h_ref[i] - h_out[i]) * (h_ref[i] - h_out[i]);
    den += h_ref[i] * h_ref[i];
  }
  double relL2 = sqrt(num / den);
  printf("relative L2 error: %.3e\n", relL2);

  checkCudaErrors(cudaFree(d_in));
  checkCudaErrors(cudaFree(d_tmp));
  checkCudaErrors(cudaFree(d_out));
  free(h_in);
  free(h_tmp);
  free(h_ref);
  free(h_out);
  return reportResult("conv_separable", relL2 < 1e-5);
}
