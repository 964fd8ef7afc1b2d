// Writes an animated ripple pattern into a 2-D CUDA array through a
// surface object, then reads it back both with cudaMemcpy2DFromArray and
// through a texture object over the same array (point sampling,
// unnormalized coordinates), checking the two agree with a host model.
//
// nvcc-flags: -I tests/programs/common

#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cstring>

#include <cuda_runtime.h>
#include <helper_cuda.h>

__device__ __host__ inline float ripple(int x, int y, int w, int h, float t) {
  float dx = x - 0.5f * w, dy = y - 0.5f * h;
  float r = sqrtf(dx * dx + dy * dy);
  return 0.5f + 0.5f * cosf(r * 0.15f - t);
}

__global__ void writeRipple(cudaSurfaceObject_t surf, int width, int height, float t) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) {
    float value = ripple(x, y, width, height, t);
    // Surface x coordinates are in bytes.
    surf2Dwrite(value, surf, x * (int)sizeof(float), y);
  }
}

__global__ void copyThroughTexture(float *out, cudaTextureObject_t tex, int width,
                                   int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) out[y * width + x] = tex2D<float>(tex, x + 0.5f, y + 0.5f);
}

int main() {
  const int width = 256, height = 192;
  const float t = 1.25f;
  findCudaDevice();

  cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
  cudaArray_t array;
  checkCudaErrors(cudaMallocArray(&array, &desc, width, height, cudaArraySurfaceLoadStore));

  cudaResourceDesc res;
  memset(&res, 0, sizeof(res));
  res.resType = cudaResourceTypeArray;
  res.res.array.array = array;

  cudaSurfaceObject_t surf;
  checkCudaErrors(cudaCreateSurfaceObject(&surf, &res));

  cudaTextureDesc td;
  memset(&td, 0, sizeof(td));
  td.addressMode[0] = cudaAddressModeClamp;
  td.addressMode[1] = cudaAddressModeClamp;
  td.filterMode = cudaFilterModePoint;
  td.readMode = cudaReadModeElementType;
  td.normalizedCoords = 0;
  cudaTextureObject_t tex;
  checkCudaErrors(cudaCreateTextureObject(&tex, &res, &td, nullptr));

  dim3 block(32, 8);
  dim3 grid(iDivUp(width, 32), iDivUp(height, 8));
  writeRipple<<<grid, block>>>(surf, width, height, t);
  getLastCudaError("writeRipple");

  float *d_copy;
  checkCudaErrors(cudaMalloc(&d_copy, width * height * sizeof(float)));
  copyThroughTexture<<<grid, block>>>(d_copy, tex, width, height);
  getLastCudaError("copyThroughTexture");

  float *fromArray = new float[width * height];
  float *fromTexture = new float[width * height];
  checkCudaErrors(cudaMemcpy2DFromArray(fromArray, width * sizeof(float), array, 0, 0,
                                        width * sizeof(float), height,
                                        cudaMemcpyDeviceToHost));
  checkCudaErrors(cudaMemcpy(fromTexture, d_copy, width * height * sizeof(float),
                             cudaMemcpyDeviceToHost));

  int bad = 0;
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      int i = y * width + x;
      float model = ripple(x, y, width, height, t);
      if (fromArray[i] != fromTexture[i] || fabsf(fromArray[i] - model) > 1e-4f) ++bad;
    }
  printf("%d of %d pixels disagree\n", bad, width * height);

  checkCudaErrors(cudaDestroyTextureObject(tex));
  checkCudaErrors(cudaDestroySurfaceObject(surf));
  checkCudaErrors(cudaFreeArray(array));
  checkCudaErrors(cudaFree(d_copy));
  delete[] fromArray;
  delete[] fromTexture;
  return reportResult("surface_ripple", bad == 0);
}
