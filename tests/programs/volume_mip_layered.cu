// Volume rendering and layered images, SDK-sample style:
//   - a 3-D float volume copied into a cudaArray made by cudaMalloc3DArray,
//     with cudaMemcpy3D from a pitched host pointer (make_cudaPitchedPtr,
//     make_cudaExtent), read through a texture object with normalized
//     coordinates, trilinear filtering and clamp addressing (tex3D<float>);
//   - a maximum-intensity projection: one thread per pixel marches a ray
//     through the unit cube along a view direction given by two angles and
//     writes a grey uchar4 pixel;
//   - a layered 2-D array (cudaArrayLayered | cudaArraySurfaceLoadStore),
//     one layer per depth slice, written through a surface object with
//     surf2DLayeredwrite, reduced 2x2 in place with surf2DLayeredread, and
//     read back through a layered texture with tex2DLayered<float>.
// The host checks the projection against a nearest-sample reference within
// a tolerance and the layered reduction exactly.
//
// nvcc-flags: -I tests/programs/common

#include <cmath>
#include <cstdio>
#include <vector>

#include <cuda_runtime.h>
#include <helper_cuda.h>

#define VOL 32
#define IMG 64
#define STEPS 96

struct ViewParams {
  float3 dir;    // ray direction, unit length
  float3 right;  // image plane axes in volume space
  float3 up;
};

__device__ __forceinline__ float3 addScaled(float3 a, float3 b, float s) {
  return make_float3(a.x + b.x * s, a.y + b.y * s, a.z + b.z * s);
}

// One thread per pixel: the maximum of the volume along the ray through the
// pixel's point on a plane through the centre of the unit cube.
__global__ void mipRender(uchar4 *image, cudaTextureObject_t volume, ViewParams view,
                          int width, int height) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  const float u = (x + 0.5f) / width - 0.5f, v = (y + 0.5f) / height - 0.5f;
  float3 p = make_float3(0.5f, 0.5f, 0.5f);
  p = addScaled(p, view.right, u);
  p = addScaled(p, view.up, v);
  p = addScaled(p, view.dir, -0.87f);  // half the cube's diagonal back
  const float step = 1.74f / STEPS;
  float best = 0.0f;
  for (int i = 0; i < STEPS; ++i) {
    best = fmaxf(best, tex3D<float>(volume, p.x, p.y, p.z));
    p = addScaled(p, view.dir, step);
  }
  const unsigned char g = (unsigned char)(255.0f * __saturatef(best));
  image[y * width + x] = make_uchar4(g, g, g, 255);
}

// Writes slice `layer` of the analytic volume into the layered surface.
__global__ void fillLayers(cudaSurfaceObject_t layers, int size) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  const int layer = blockIdx.z;
  if (x >= size || y >= size) return;
  const float value = (float)((x * 7 + y * 3 + layer * 5) % 17);
  surf2DLayeredwrite(value, layers, x * (int)sizeof(float), y, layer);
}

// Each layer's top-left size/2 square becomes the 2x2 box average of the
// layer; the surface is read and written in place (reads before the
// block-wide barrier, writes after).
__global__ void halveLayers(cudaSurfaceObject_t layers, int size) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  const int layer = blockIdx.z;
  const bool active = x < size / 2 && y < size / 2;
  float sum = 0.0f;
  if (active) {
    for (int dy = 0; dy < 2; ++dy)
      for (int dx = 0; dx < 2; ++dx)
        sum += surf2DLayeredread<float>(layers, (2 * x + dx) * (int)sizeof(float), 2 * y + dy, layer);
  }
  __syncthreads();
  if (active) surf2DLayeredwrite(0.25f * sum, layers, x * (int)sizeof(float), y, layer);
}

// Gathers the reduced corner of every layer through a layered texture.
__global__ void gatherLayers(float *out, cudaTextureObject_t layers, int half, int count) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  const int layer = blockIdx.z;
  if (x >= half || y >= half || layer >= count) return;
  out[(layer * half + y) * half + x] = tex2DLayered<float>(layers, x + 0.5f, y + 0.5f, layer);
}

static float blob(int x, int y, int z) {
  const float dx = x - 12.0f, dy = y - 18.0f, dz = z - 15.0f;
  return expf(-(dx * dx + dy * dy + dz * dz) / 40.0f);
}

static cudaTextureObject_t makeVolume(cudaArray_t *array, const std::vector<float> &host) {
  const cudaExtent extent = make_cudaExtent(VOL, VOL, VOL);
  cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
  checkCudaErrors(cudaMalloc3DArray(array, &desc, extent));
  cudaMemcpy3DParms copy = {0};
  copy.srcPtr = make_cudaPitchedPtr((void *)host.data(), VOL * sizeof(float), VOL, VOL);
  copy.dstArray = *array;
  copy.extent = extent;
  copy.kind = cudaMemcpyHostToDevice;
  checkCudaErrors(cudaMemcpy3D(&copy));

  cudaResourceDesc res = {};
  res.resType = cudaResourceTypeArray;
  res.res.array.array = *array;
  cudaTextureDesc tex = {};
  tex.normalizedCoords = 1;
  tex.filterMode = cudaFilterModeLinear;
  for (int i = 0; i < 3; ++i) tex.addressMode[i] = cudaAddressModeClamp;
  tex.readMode = cudaReadModeElementType;
  cudaTextureObject_t object = 0;
  checkCudaErrors(cudaCreateTextureObject(&object, &res, &tex, nullptr));
  return object;
}

static int renderAndCheck(cudaTextureObject_t volume, const std::vector<float> &host) {
  uchar4 *dImage;
  checkCudaErrors(cudaMalloc(&dImage, IMG * IMG * sizeof(uchar4)));
  ViewParams view = {make_float3(0, 0, 1), make_float3(1, 0, 0), make_float3(0, 1, 0)};
  dim3 block(16, 16), grid(IMG / 16, IMG / 16);
  mipRender<<<grid, block>>>(dImage, volume, view, IMG, IMG);
  getLastCudaError("mipRender");
  std::vector<uchar4> image(IMG * IMG);
  checkCudaErrors(cudaMemcpy(image.data(), dImage, image.size() * sizeof(uchar4),
                             cudaMemcpyDeviceToHost));
  checkCudaErrors(cudaFree(dImage));
  // Looking down z, the projection of pixel (x, y) is the max over z of the
  // column under it; filtering blurs it a little, hence the tolerance.
  int bad = 0;
  for (int y = 0; y < IMG; ++y)
    for (int x = 0; x < IMG; ++x) {
      const int vx = x * VOL / IMG, vy = y * VOL / IMG;
      float best = 0;
      for (int z = 0; z < VOL; ++z) best = fmaxf(best, host[(z * VOL + vy) * VOL + vx]);
      if (fabsf(image[y * IMG + x].x - 255.0f * best) > 40.0f) ++bad;
    }
  return bad;
}

static int layeredCheck() {
  const int size = 32, layers = 4, half = size / 2;
  cudaChannelFormatDesc desc = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
  cudaArray_t array;
  checkCudaErrors(cudaMalloc3DArray(&array, &desc, make_cudaExtent(size, size, layers),
                                    cudaArrayLayered | cudaArraySurfaceLoadStore));
  cudaResourceDesc res = {};
  res.resType = cudaResourceTypeArray;
  res.res.array.array = array;
  cudaSurfaceObject_t surface;
  checkCudaErrors(cudaCreateSurfaceObject(&surface, &res));
  cudaTextureDesc texDesc = {};
  texDesc.filterMode = cudaFilterModePoint;
  texDesc.readMode = cudaReadModeElementType;
  cudaTextureObject_t texture;
  checkCudaErrors(cudaCreateTextureObject(&texture, &res, &texDesc, nullptr));

  dim3 block(16, 16), grid(size / 16, size / 16, layers);
  fillLayers<<<grid, block>>>(surface, size);
  halveLayers<<<grid, block>>>(surface, size);
  float *dOut;
  checkCudaErrors(cudaMalloc(&dOut, layers * half * half * sizeof(float)));
  gatherLayers<<<dim3(1, 1, layers), block>>>(dOut, texture, half, layers);
  getLastCudaError("layered kernels");
  std::vector<float> out(layers * half * half);
  checkCudaErrors(cudaMemcpy(out.data(), dOut, out.size() * sizeof(float), cudaMemcpyDeviceToHost));

  int bad = 0;
  for (int l = 0; l < layers; ++l)
    for (int y = 0; y < half; ++y)
      for (int x = 0; x < half; ++x) {
        float sum = 0;
        for (int dy = 0; dy < 2; ++dy)
          for (int dx = 0; dx < 2; ++dx)
            sum += (float)(((2 * x + dx) * 7 + (2 * y + dy) * 3 + l * 5) % 17);
        bad += out[(l * half + y) * half + x] != 0.25f * sum;
      }
  checkCudaErrors(cudaDestroyTextureObject(texture));
  checkCudaErrors(cudaDestroySurfaceObject(surface));
  checkCudaErrors(cudaFreeArray(array));
  checkCudaErrors(cudaFree(dOut));
  return bad;
}

int main() {
  findCudaDevice();
  std::vector<float> host(VOL * VOL * VOL);
  for (int z = 0; z < VOL; ++z)
    for (int y = 0; y < VOL; ++y)
      for (int x = 0; x < VOL; ++x) host[(z * VOL + y) * VOL + x] = blob(x, y, z);

  cudaArray_t volumeArray;
  cudaTextureObject_t volume = makeVolume(&volumeArray, host);
  const int badPixels = renderAndCheck(volume, host);
  const int badTexels = layeredCheck();
  printf("MIP: %d pixels off; layered: %d texels off\n", badPixels, badTexels);
  checkCudaErrors(cudaDestroyTextureObject(volume));
  checkCudaErrors(cudaFreeArray(volumeArray));
  return badPixels + badTexels == 0 ? 0 : 1;
}
