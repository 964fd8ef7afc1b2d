// Rotates a grayscale image about its centre by sampling a 2-D texture
// object with bilinear filtering and border addressing, then checks a few
// exactly representable cases (a rotation by 0 and by 180 degrees at the
// texel centres). Sample-style: cudaArray, channel descriptor, resource
// and texture descriptors.
//
// nvcc-flags: -I tests/programs/common

#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>

#include <cuda_runtime.h>
#include <helper_cuda.h>

__global__ void rotateKernel(float *output, cudaTextureObject_t texObj, int width,
                             int height, float theta) {
  unsigned int x = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;

  // Normalized coordinates centred on the image.
  float u = (x + 0.5f) / (float)width - 0.5f;
  float v = (y + 0.5f) / (float)height - 0.5f;
  float s, c;
  sincosf(theta, &s, &c);
  float tu = u * c - v * s + 0.5f;
  float tv = v * c + u * s + 0.5f;

  output[y * width + x] = tex2D<float>(texObj, tu, tv);
}

static float *rotateOnDevice(const std::vector<float> &image, int width, int height,
                             float theta) {
  cudaChannelFormatDesc channelDesc =
      cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
  cudaArray_t cuArray;
  checkCudaErrors(cudaMallocArray(&cuArray, &channelDesc, width, height));
  checkCudaErrors(cudaMemcpy2DToArray(cuArray, 0, 0, image.data(), width * sizeof(float),
                                      width * sizeof(float), height,
                                      cudaMemcpyHostToDevice));

  cudaResourceDesc resDesc = {};
  resDesc.resType = cudaResourceTypeArray;
  resDesc.res.array.array = cuArray;

  cudaTextureDesc texDesc = {};
  texDesc.addressMode[0] = cudaAddressModeBorder;
  texDesc.addressMode[1] = cudaAddressModeBorder;
  texDesc.filterMode = cudaFilterModeLinear;
  texDesc.readMode = cudaReadModeElementType;
  texDesc.normalizedCoords = 1;

  cudaTextureObject_t texObj = 0;
  checkCudaErrors(cudaCreateTextureObject(&texObj, &resDesc, &texDesc, nullptr));

  float *d_out;
  checkCudaErrors(cudaMalloc(&d_out, width * height * sizeof(float)));
  dim3 block(16, 16);
  dim3 grid(iDivUp(width, block.x), iDivUp(height, block.y));
  rotateKernel<<<grid, block>>>(d_out, texObj, width, height, theta);
  getLastCudaError("rotateKernel");

  float *h_out = static_cast<float *>(malloc(width * height * sizeof(float)));
  checkCudaErrors(cudaMemcpy(h_out, d_out, width * height * sizeof(float),
                             cudaMemcpyDeviceToHost));
  checkCudaErrors(cudaDestroyTextureObject(texObj));
  checkCudaErrors(cudaFreeArray(cuArray));
  checkCudaErrors(cudaFree(d_out));
  return h_out;
}

int main() {
  const int width = 320, height = 200;
  findCudaDevice();
  std::vector<float> image(width * height);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      image[y * width + x] = static_cast<float>((x / 8 + y / 8) % 2) * 0.75f + 0.125f;

  bool ok = true;
  float *same = rotateOnDevice(image, width, height, 0.0f);
  for (int i = 0; i < width * height && ok; ++i)
    if (fabsf(same[i] - image[i]) > 1e-3f) {
      printf("rotation by 0: pixel %d is %f, expected %f\n", i, same[i], image[i]);
      ok = false;
    }
  free(same);

  float *flipped = rotateOnDevice(image, width, height, 3.14159265f);
  int off = 0;
  for (int y = 2; y < height - 2; ++y)
    for (int x = 2; x < width - 2; ++x) {
      float want = image[(height - 1 - y) * width + (width - 1 - x)];
      if (fabsf(flipped[y * width + x] - want) > 2e-2f) ++off;
    }
  printf("rotation by pi: %d interior pixels differ\n", off);
  ok = ok && off == 0;
  free(flipped);

  return reportResult("texture_rotate", ok);
}
