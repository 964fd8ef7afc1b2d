// Image filters expressed as __device__ lambdas passed to generic 2-D
// "for each pixel" kernels, the style of small performance-portability
// layers. The lambdas capture image views by value; one is
// __host__ __device__ so the host reference runs the very same code. Needs
// nvcc's --extended-lambda.
//
// nvcc-flags: --extended-lambda

#include <cmath>
#include <cstdio>
#include <functional>
#include <iostream>
#include <vector>

#include <cuda_runtime.h>

#define CUDA_CALL(stmt)                                                                    \
  do {                                                                                     \
    cudaError_t rc = (stmt);                                                               \
    if (rc != cudaSuccess) {                                                               \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #stmt,                    \
                   cudaGetErrorString(rc));                                                \
      std::exit(1);                                                                        \
    }                                                                                      \
  } while (0)

template <class T>
struct Image {
  T *pixels;
  int width, height;
  __host__ __device__ T at(int x, int y) const {
    x = x < 0 ? 0 : (x >= width ? width - 1 : x);
    y = y < 0 ? 0 : (y >= height ? height - 1 : y);
    return pixels[y * width + x];
  }
  __host__ __device__ T &operator()(int x, int y) { return pixels[y * width + x]; }
};

template <class F>
__global__ void forEachPixel(int width, int height, F f) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) f(x, y);
}

template <class F>
void launch2D(int width, int height, F f, cudaStream_t stream = nullptr) {
  dim3 block(32, 8);
  dim3 grid((width + block.x - 1) / block.x, (height + block.y - 1) / block.y);
  forEachPixel<<<grid, block, 0, stream>>>(width, height, f);
  CUDA_CALL(cudaGetLastError());
}

template <class F>
__global__ void reduceRows(int width, int height, float *rowOut, F valueAt) {
  int y = blockIdx.x * blockDim.x + threadIdx.x;
  if (y >= height) return;
  float acc = 0.0f;
  for (int x = 0; x < width; ++x) acc += valueAt(x, y);
  rowOut[y] = acc;
}

int main() {
  const int width = 300, height = 200;
  std::vector<float> host(width * height);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) host[y * width + x] = std::sin(0.05f * x) * std::cos(0.07f * y);

  float *dIn, *dBlur, *dEdges, *dRows;
  CUDA_CALL(cudaMalloc(&dIn, host.size() * sizeof(float)));
  CUDA_CALL(cudaMalloc(&dBlur, host.size() * sizeof(float)));
  CUDA_CALL(cudaMalloc(&dEdges, host.size() * sizeof(float)));
  CUDA_CALL(cudaMalloc(&dRows, height * sizeof(float)));
  CUDA_CALL(cudaMemcpy(dIn, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice));

  Image<float> in{dIn, width, height}, blur{dBlur, width, height}, edges{dEdges, width, height};

  // 3x3 box blur.
  launch2D(width, height, [=] __device__(int x, int y) mutable {
    float s = 0.0f;
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) s += in.at(x + dx, y + dy);
    blur(x, y) = s / 9.0f;
  });

  // Gradient magnitude of the blurred image; the same lambda runs on the host.
  auto gradient = [] __host__ __device__(const Image<float> &img, int x, int y) {
    float gx = img.at(x + 1, y) - img.at(x - 1, y);
    float gy = img.at(x, y + 1) - img.at(x, y - 1);
    return sqrtf(gx * gx + gy * gy);
  };
  launch2D(width, height, [=] __device__(int x, int y) mutable { edges(x, y) = gradient(blur, x, y); });

  const float threshold = 0.02f;
  reduceRows<<<(height + 127) / 128, 128>>>(width, height, dRows, [=] __device__(int x, int y) {
    return edges.at(x, y) > threshold ? 1.0f : 0.0f;
  });
  CUDA_CALL(cudaGetLastError());

  std::vector<float> hostBlur(host.size()), hostEdges(host.size()), rows(height);
  CUDA_CALL(cudaMemcpy(hostBlur.data(), dBlur, host.size() * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_CALL(cudaMemcpy(hostEdges.data(), dEdges, host.size() * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_CALL(cudaMemcpy(rows.data(), dRows, height * sizeof(float), cudaMemcpyDeviceToHost));

  Image<float> hb{hostBlur.data(), width, height};
  double maxErr = 0.0;
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      maxErr = std::fmax(maxErr, std::fabs(gradient(hb, x, y) - hostEdges[y * width + x]));
  std::function<double(const std::vector<float> &)> total = [](const std::vector<float> &v) {
    double s = 0;
    for (float f : v) s += f;
    return s;
  };
  std::cout << "edge pixels: " << total(rows) << ", max gradient error " << maxErr << "\n";
  for (float *p : {dIn, dBlur, dEdges, dRows}) CUDA_CALL(cudaFree(p));
  return maxErr < 1e-5 ? 0 : 1;
}
