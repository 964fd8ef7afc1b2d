// SDK-sample style texture program over an RGBA image:
//   - the image lives in a `cudaArray` of `uchar4` made with the templated
//     `cudaCreateChannelDesc<uchar4>()`, read through a texture object in
//     `cudaReadModeNormalizedFloat`, so `tex2D<float4>` returns channels in
//     [0, 1]; clamp addressing and point filtering, unnormalized coordinates;
//   - a Sobel edge filter on luminance computed from those float4 texels,
//     written to an `unsigned char` image;
//   - a second texture object over plain linear device memory
//     (`cudaResourceTypeLinear`) read with `tex1Dfetch<float>`, for a
//     lookup-table tone curve applied to the edges;
//   - a 2-D texture with normalized coordinates, wrap addressing and linear
//     filtering, sampled at texel centres for a 2x downscale.
// The host computes the Sobel image and the downscale with the same
// clamping rules and compares.
//
// nvcc-flags: -I tests/programs/common

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>
#include <helper_cuda.h>

__device__ __forceinline__ float luminance(float4 p) {
  return 0.299f * p.x + 0.587f * p.y + 0.114f * p.z;
}

__device__ __forceinline__ float lumaAt(cudaTextureObject_t tex, int x, int y) {
  // Unnormalized coordinates: the centre of texel (x, y).
  return luminance(tex2D<float4>(tex, x + 0.5f, y + 0.5f));
}

__global__ void sobelRgba(unsigned char *edges, cudaTextureObject_t rgba, int width, int height,
                          float scale) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;

  float p[3][3];
#pragma unroll
  for (int j = -1; j <= 1; ++j)
#pragma unroll
    for (int i = -1; i <= 1; ++i) p[j + 1][i + 1] = lumaAt(rgba, x + i, y + j);

  float gx = (p[0][2] + 2.f * p[1][2] + p[2][2]) - (p[0][0] + 2.f * p[1][0] + p[2][0]);
  float gy = (p[2][0] + 2.f * p[2][1] + p[2][2]) - (p[0][0] + 2.f * p[0][1] + p[0][2]);
  float magnitude = sqrtf(gx * gx + gy * gy) * scale;
  edges[y * width + x] = static_cast<unsigned char>(fminf(magnitude * 255.f, 255.f));
}

// A tone curve from a 256-entry table in linear memory, fetched by index.
__global__ void toneMap(float *out, const unsigned char *edges, cudaTextureObject_t curve, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex1Dfetch<float>(curve, edges[i]);
}

// A 2x downscale: the bilinear sample at the shared corner of each 2x2
// quad is the quad's average.
__global__ void downscale(float4 *out, cudaTextureObject_t rgbaLinear, int outW, int outH) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= outW || y >= outH) return;
  float u = (2.f * x + 1.f) / (2.f * outW);
  float v = (2.f * y + 1.f) / (2.f * outH);
  out[y * outW + x] = tex2D<float4>(rgbaLinear, u, v);
}

static cudaTextureObject_t makeArrayTexture(cudaArray_t array, bool normalized) {
  cudaResourceDesc res = {};
  res.resType = cudaResourceTypeArray;
  res.res.array.array = array;

  cudaTextureDesc desc = {};
  desc.addressMode[0] = normalized ? cudaAddressModeWrap : cudaAddressModeClamp;
  desc.addressMode[1] = normalized ? cudaAddressModeWrap : cudaAddressModeClamp;
  desc.filterMode = normalized ? cudaFilterModeLinear : cudaFilterModePoint;
  desc.readMode = cudaReadModeNormalizedFloat;
  desc.normalizedCoords = normalized ? 1 : 0;

  cudaTextureObject_t tex = 0;
  checkCudaErrors(cudaCreateTextureObject(&tex, &res, &desc, nullptr));
  return tex;
}

static cudaTextureObject_t makeLinearTexture(float *table, size_t count) {
  cudaResourceDesc res = {};
  res.resType = cudaResourceTypeLinear;
  res.res.linear.devPtr = table;
  res.res.linear.desc = cudaCreateChannelDesc<float>();
  res.res.linear.sizeInBytes = count * sizeof(float);
  cudaTextureDesc desc = {};
  desc.readMode = cudaReadModeElementType;
  cudaTextureObject_t tex = 0;
  checkCudaErrors(cudaCreateTextureObject(&tex, &res, &desc, nullptr));
  return tex;
}

static float hostLuma(const std::vector<uchar4> &img, int w, int h, int x, int y) {
  x = x < 0 ? 0 : (x >= w ? w - 1 : x);
  y = y < 0 ? 0 : (y >= h ? h - 1 : y);
  uchar4 p = img[y * w + x];
  return 0.299f * (p.x / 255.f) + 0.587f * (p.y / 255.f) + 0.114f * (p.z / 255.f);
}

int main(int argc, char **argv) {
  const int width = 128, height = 96;
  const float scale = 0.5f;
  findCudaDevice();

  std::vector<uchar4> image(width * height);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      // Two rectangles and a gradient: edges in both directions.
      bool box = (x > 30 && x < 70 && y > 20 && y < 60) || (x - y > 50);
      unsigned char g = static_cast<unsigned char>(box ? 220 : (x * 2) & 0xff);
      image[y * width + x] = make_uchar4(g, static_cast<unsigned char>(255 - g), (x ^ y) & 0xff, 255);
    }

  cudaChannelFormatDesc channel = cudaCreateChannelDesc<uchar4>();
  cudaArray_t array;
  checkCudaErrors(cudaMallocArray(&array, &channel, width, height));
  checkCudaErrors(cudaMemcpy2DToArray(array, 0, 0, image.data(), width * sizeof(uchar4),
                                      width * sizeof(uchar4), height, cudaMemcpyHostToDevice));
  cudaTextureObject_t pointTex = makeArrayTexture(array, false);
  cudaTextureObject_t linearTex = makeArrayTexture(array, true);

  std::vector<float> curve(256);
  for (int i = 0; i < 256; ++i) curve[i] = std::pow(i / 255.f, 0.5f);
  float *dCurve;
  checkCudaErrors(cudaMalloc(&dCurve, 256 * sizeof(float)));
  checkCudaErrors(cudaMemcpy(dCurve, curve.data(), 256 * sizeof(float), cudaMemcpyHostToDevice));
  cudaTextureObject_t curveTex = makeLinearTexture(dCurve, 256);

  unsigned char *dEdges;
  float *dTone;
  float4 *dSmall;
  const int sw = width / 2, sh = height / 2;
  checkCudaErrors(cudaMalloc(&dEdges, width * height));
  checkCudaErrors(cudaMalloc(&dTone, width * height * sizeof(float)));
  checkCudaErrors(cudaMalloc(&dSmall, sw * sh * sizeof(float4)));

  dim3 block(16, 16);
  dim3 grid(iDivUp(width, block.x), iDivUp(height, block.y));
  sobelRgba<<<grid, block>>>(dEdges, pointTex, width, height, scale);
  getLastCudaError("sobelRgba");
  toneMap<<<iDivUp(width * height, 256), 256>>>(dTone, dEdges, curveTex, width * height);
  getLastCudaError("toneMap");
  downscale<<<dim3(iDivUp(sw, 16), iDivUp(sh, 16)), block>>>(dSmall, linearTex, sw, sh);
  getLastCudaError("downscale");
  checkCudaErrors(cudaDeviceSynchronize());

  std::vector<unsigned char> edges(width * height);
  std::vector<float> tone(width * height);
  std::vector<float4> small(sw * sh);
  checkCudaErrors(cudaMemcpy(edges.data(), dEdges, edges.size(), cudaMemcpyDeviceToHost));
  checkCudaErrors(cudaMemcpy(tone.data(), dTone, tone.size() * sizeof(float), cudaMemcpyDeviceToHost));
  checkCudaErrors(cudaMemcpy(small.data(), dSmall, small.size() * sizeof(float4), cudaMemcpyDeviceToHost));

  int bad = 0;
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      float p[3][3];
      for (int j = -1; j <= 1; ++j)
        for (int i = -1; i <= 1; ++i) p[j + 1][i + 1] = hostLuma(image, width, height, x + i, y + j);
      float gx = (p[0][2] + 2 * p[1][2] + p[2][2]) - (p[0][0] + 2 * p[1][0] + p[2][0]);
      float gy = (p[2][0] + 2 * p[2][1] + p[2][2]) - (p[0][0] + 2 * p[0][1] + p[0][2]);
      int want = static_cast<int>(std::fmin(std::sqrt(gx * gx + gy * gy) * scale * 255.f, 255.f));
      int got = edges[y * width + x];
      if (std::abs(got - want) > 1) ++bad;
      if (std::fabs(tone[y * width + x] - curve[got]) > 0.f) ++bad;
    }
  // Linear filtering uses 8-bit fractions: compare loosely.
  for (int y = 0; y < sh; ++y)
    for (int x = 0; x < sw; ++x) {
      float want = 0.f;
      for (int j = 0; j < 2; ++j)
        for (int i = 0; i < 2; ++i) want += image[(2 * y + j) * width + 2 * x + i].x / 255.f * 0.25f;
      if (std::fabs(small[y * sw + x].x - want) > 2e-2f) ++bad;
    }

  checkCudaErrors(cudaDestroyTextureObject(pointTex));
  checkCudaErrors(cudaDestroyTextureObject(linearTex));
  checkCudaErrors(cudaDestroyTextureObject(curveTex));
  checkCudaErrors(cudaFreeArray(array));
  checkCudaErrors(cudaFree(dCurve));
  checkCudaErrors(cudaFree(dEdges));
  checkCudaErrors(cudaFree(dTone));
  checkCudaErrors(cudaFree(dSmall));
  return reportResult(argc > 0 ? argv[0] : "texture_sobel_rgba", bad == 0);
}
