// 2-D convolution (NCHW, stride, zero padding) as im2col + GEMM, the
// classic way: im2col unrolls each receptive field into a column of a
// (C*KH*KW) x (OH*OW) matrix per image, and a tiled GEMM multiplies the
// (K) x (C*KH*KW) filter matrix by it. A direct convolution kernel is the
// reference on the device, and a CPU loop checks one image.

#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>

#include <cuda_runtime.h>

#define CUDA_RT(call)                                                             \
  do {                                                                            \
    const cudaError_t status = (call);                                            \
    if (status != cudaSuccess) {                                                  \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(status)); \
      std::abort();                                                               \
    }                                                                             \
  } while (false)

struct ConvParams {
  int N, C, H, W;     // input
  int K, KH, KW;      // filters
  int stride, pad;
  int OH, OW;         // output
};

__global__ void im2col(float *__restrict__ cols, const float *__restrict__ img, ConvParams p) {
  // One thread per (c, kh, kw, oh, ow) for a single image.
  const int total = p.C * p.KH * p.KW * p.OH * p.OW;
  for (int idx = blockIdx.x * blockDim.x + threadIdx.x; idx < total; idx += gridDim.x * blockDim.x) {
    int ow = idx % p.OW;
    int oh = (idx / p.OW) % p.OH;
    int row = idx / (p.OW * p.OH); // (c, kh, kw)
    int kw = row % p.KW;
    int kh = (row / p.KW) % p.KH;
    int c = row / (p.KW * p.KH);
    int ih = oh * p.stride - p.pad + kh;
    int iw = ow * p.stride - p.pad + kw;
    cols[idx] = (ih >= 0 && ih < p.H && iw >= 0 && iw < p.W) ? img[(c * p.H + ih) * p.W + iw] : 0.0f;
  }
}

#define TILE 16
// out (M x N) = A (M x K) * B (K x N), all row-major.
__global__ void gemm(float *__restrict__ out, const float *__restrict__ A, const float *__restrict__ B,
                     int M, int N, int K) {
  __shared__ float As[TILE][TILE], Bs[TILE][TILE];
  int r = blockIdx.y * TILE + threadIdx.y, c = blockIdx.x * TILE + threadIdx.x;
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += TILE) {
    As[threadIdx.y][threadIdx.x] = (r < M && k0 + threadIdx.x < K) ? A[r * K + k0 + threadIdx.x] : 0.0f;
    Bs[threadIdx.y][threadIdx.x] = (k0 + threadIdx.y < K && c < N) ? B[(k0 + threadIdx.y) * N + c] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    __syncthreads();
  }
  if (r < M && c < N) out[r * N + c] = acc;
}

__global__ void convDirect(float *out, const float *img, const float *filt, ConvParams p) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= p.N * p.K * p.OH * p.OW) return;
  int ow = idx % p.OW, oh = (idx / p.OW) % p.OH, k = (idx / (p.OW * p.OH)) % p.K;
  int n = idx / (p.OW * p.OH * p.K);
  float acc = 0.0f;
  for (int c = 0; c < p.C; ++c)
    for (int kh = 0; kh < p.KH; ++kh)
      for (int kw = 0; kw < p.KW; ++kw) {
        int ih = oh * p.stride - p.pad + kh, iw = ow * p.stride - p.pad + kw;
        if (ih >= 0 && ih < p.H && iw >= 0 && iw < p.W)
          acc += img[((n * p.C + c) * p.H + ih) * p.W + iw] * filt[((k * p.C + c) * p.KH + kh) * p.KW + kw];
      }
  out[idx] = acc;
}

int main() {
  ConvParams p{4, 16, 34, 30, 32, 3, 3, 2, 1, 0, 0};
  p.OH = (p.H + 2 * p.pad - p.KH) / p.stride + 1;
  p.OW = (p.W + 2 * p.pad - p.KW) / p.stride + 1;
  const int colRows = p.C * p.KH * p.KW, colCols = p.OH * p.OW;
  const size_t imgSize = (size_t)p.C * p.H * p.W, outSize = (size_t)p.K * colCols;

  std::vector<float> img(p.N * imgSize), filt((size_t)p.K * colRows);
  for (size_t i = 0; i < img.size(); ++i) img[i] = (float)((i * 17) % 23) / 23.0f - 0.5f;
  for (size_t i = 0; i < filt.size(); ++i) filt[i] = (float)((i * 5) % 11) / 11.0f - 0.5f;

  float *dImg, *dFilt, *dCols, *dOut, *dRef;
  CUDA_RT(cudaMalloc(&dImg, img.size() * sizeof(float)));
  CUDA_RT(cudaMalloc(&dFilt, filt.size() * sizeof(float)));
  CUDA_RT(cudaMalloc(&dCols, (size_t)colRows * colCols * sizeof(float)));
  CUDA_RT(cudaMalloc(&dOut, p.N * outSize * sizeof(float)));
  CUDA_RT(cudaMalloc(&dRef, p.N * outSize * sizeof(float)));
  CUDA_RT(cudaMemcpy(dImg, img.data(), img.size() * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_RT(cudaMemcpy(dFilt, filt.data(), filt.size() * sizeof(float), cudaMemcpyHostToDevice));

  for (int n = 0; n < p.N; ++n) {
    im2col<<<64, 256>>>(dCols, dImg + n * imgSize, p);
    dim3 grid((colCols + TILE - 1) / TILE, (p.K + TILE - 1) / TILE);
    gemm<<<grid, dim3(TILE, TILE)>>>(dOut + n * outSize, dFilt, dCols, p.K, colCols, colRows);
  }
  int total = p.N * (int)outSize;
  convDirect<<<(total + 255) / 256, 256>>>(dRef, dImg, dFilt, p);
  CUDA_RT(cudaGetLastError());

  std::vector<float> out(total), ref(total);
  CUDA_RT(cudaMemcpy(out.data(), dOut, total * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_RT(cudaMemcpy(ref.data(), dRef, total * sizeof(float), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < total; ++i)
    if (std::fabs(out[i] - ref[i]) > 1e-4f) ++bad;
  // CPU check of image 0, output channel 0
  for (int oh = 0; oh < p.OH; ++oh)
    for (int ow = 0; ow < p.OW; ++ow) {
      double acc = 0;
      for (int c = 0; c < p.C; ++c)
        for (int kh = 0; kh < p.KH; ++kh)
          for (int kw = 0; kw < p.KW; ++kw) {
            int ih = oh * p.stride - p.pad + kh, iw = ow * p.stride - p.pad + kw;
            if (ih >= 0 && ih < p.H && iw >= 0 && iw < p.W)
              acc += img[(c * p.H + ih) * p.W + iw] * filt[(c * p.KH + kh) * p.KW + kw];
          }
      if (std::fabs(out[oh * p.OW + ow] - acc) > 1e-4) ++bad;
    }
  std::printf("conv %dx%dx%dx%d * %dx%dx%d -> %dx%d: %d bad\n", p.N, p.C, p.H, p.W, p.K, p.KH,
              p.KW, p.OH, p.OW, bad);
  cudaFree(dImg); cudaFree(dFilt); cudaFree(dCols); cudaFree(dOut); cudaFree(dRef);
  std::puts(bad == 0 ? "PASSED" : "FAILED");
  return bad != 0;
}
