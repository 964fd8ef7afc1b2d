// Separable box filter over a grayscale image, sample-style: the image is a
// PGM read with the shared helpers (or a generated test card when the file
// is absent), flags parsed from the command line (-radius=N, -file=NAME,
// -iterations=N), timed with the helpers' stop watch, and the GPU result
// compared with a CPU reference through compareData. Host code uses the
// helpers' classes with virtual functions, exceptions and a lambda.
//
// nvcc-flags: -I tests/programs/common

#include <cuda_runtime.h>
#include <helper_cuda.h>
#include <helper_functions.h>

#define MAX_RADIUS 16
#define ROW_TILE 128

// 1 / (2r + 1) for each radius; the host sets it again at start-up, as
// samples that compute their tables do.
__constant__ float c_inverseWidth[MAX_RADIUS + 1] = {
    1.0f / 1,  1.0f / 3,  1.0f / 5,  1.0f / 7,  1.0f / 9,  1.0f / 11,
    1.0f / 13, 1.0f / 15, 1.0f / 17, 1.0f / 19, 1.0f / 21, 1.0f / 23,
    1.0f / 25, 1.0f / 27, 1.0f / 29, 1.0f / 31, 1.0f / 33};

// Horizontal pass: each block loads a row tile and its apron into shared
// memory and averages 2r + 1 neighbours, clamping at the image's edges.
__global__ void boxRows(const unsigned char *__restrict__ src,
                        float *__restrict__ dst, int width, int height,
                        int radius) {
  __shared__ float tile[ROW_TILE + 2 * MAX_RADIUS];
  int row = blockIdx.y;
  int x0 = blockIdx.x * ROW_TILE;
  for (int i = threadIdx.x; i < ROW_TILE + 2 * radius; i += blockDim.x) {
    int x = min(max(x0 + i - radius, 0), width - 1);
    tile[i] = src[row * width + x];
  }
  __syncthreads();
  int x = x0 + threadIdx.x;
  if (x >= width || threadIdx.x >= ROW_TILE) return;
  float sum = 0.0f;
  for (int k = 0; k <= 2 * radius; ++k) sum += tile[threadIdx.x + k];
  dst[row * width + x] = sum * c_inverseWidth[radius];
}

// Vertical pass: a running sum down each column, one thread per column.
__global__ void boxColumns(const float *__restrict__ src,
                          unsigned char *__restrict__ dst, int width,
                          int height, int radius) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= width) return;
  const float scale = c_inverseWidth[radius];
  float sum = src[x] * (radius + 1);
  for (int y = 1; y <= radius; ++y) sum += src[min(y, height - 1) * width + x];
  for (int y = 0; y < height; ++y) {
    dst[y * width + x] = (unsigned char)(__saturatef(sum * scale / 255.0f) * 255.0f + 0.5f);
    int add = min(y + radius + 1, height - 1);
    int sub = max(y - radius, 0);
    sum += src[add * width + x] - src[sub * width + x];
  }
}

static void boxFilterHost(const unsigned char *src, unsigned char *dst,
                          int width, int height, int radius) {
  std::vector<float> rows((size_t)width * height);
  float inv = 1.0f / (2 * radius + 1);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      float s = 0.0f;
      for (int k = -radius; k <= radius; ++k)
        s += src[y * width + std::min(std::max(x + k, 0), width - 1)];
      rows[y * width + x] = s * inv;
    }
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      float s = 0.0f;
      for (int k = -radius; k <= radius; ++k)
        s += rows[std::min(std::max(y + k, 0), height - 1) * width + x];
      float v = s * inv;
      dst[y * width + x] = (unsigned char)(std::min(std::max(v, 0.0f), 255.0f) + 0.5f);
    }
}

static void makeTestCard(std::vector<unsigned char> &img, unsigned int w,
                         unsigned int h) {
  img.resize((size_t)w * h);
  for (unsigned int y = 0; y < h; ++y)
    for (unsigned int x = 0; x < w; ++x)
      img[y * w + x] = (unsigned char)(((x / 16 + y / 16) & 1) ? 220 : 30);
}

int main(int argc, char **argv) {
  return runGuarded([&]() -> int {
    int radius = checkCmdLineFlag(argc, (const char **)argv, "radius")
                     ? getCmdLineArgumentInt(argc, (const char **)argv, "radius")
                     : 4;
    if (radius < 1 || radius > MAX_RADIUS) SAMPLE_THROW("radius out of range");
    int iterations = MAX(1, getCmdLineArgumentInt(argc, (const char **)argv, "iterations"));

    unsigned int w = 0, h = 0;
    unsigned char *loaded = NULL;
    std::vector<unsigned char> image;
    std::string path = findFilePath("portrait.pgm", argv[0]);
    if (!path.empty() && sdkLoadPGM<unsigned char>(path.c_str(), &loaded, &w, &h)) {
      image.assign(loaded, loaded + (size_t)w * h);
      free(loaded);
    } else {
      w = 640;
      h = 480;
      makeTestCard(image, w, h);
    }
    findCudaDevice();

    float inverse[MAX_RADIUS + 1];
    for (int r = 0; r <= MAX_RADIUS; ++r) inverse[r] = 1.0f / (2 * r + 1);
    checkCudaErrors(cudaMemcpyToSymbol(c_inverseWidth, inverse, sizeof(inverse)));

    size_t n = (size_t)w * h;
    unsigned char *dSrc, *dDst;
    float *dRows;
    checkCudaErrors(cudaMalloc(&dSrc, n));
    checkCudaErrors(cudaMalloc(&dDst, n));
    checkCudaErrors(cudaMalloc(&dRows, n * sizeof(float)));
    checkCudaErrors(cudaMemcpy(dSrc, image.data(), n, cudaMemcpyHostToDevice));

    StopWatchInterface *timer = NULL;
    sdkCreateTimer(&timer);
    dim3 rowGrid((w + ROW_TILE - 1) / ROW_TILE, h);
    for (int i = 0; i < iterations; ++i) {
      sdkStartTimer(&timer);
      boxRows<<<rowGrid, ROW_TILE>>>(dSrc, dRows, w, h, radius);
      boxColumns<<<iDivUp(w, 128), 128>>>(dRows, dDst, w, h, radius);
      checkCudaErrors(cudaDeviceSynchronize());
      sdkStopTimer(&timer);
    }
    getLastCudaError("box filter failed");
    printf("box filter r=%d on %ux%u: %.3f ms\n", radius, w, h,
           timer->getAverageTime());
    sdkDeleteTimer(&timer);

    std::vector<unsigned char> gpu(n), cpu(n);
    checkCudaErrors(cudaMemcpy(gpu.data(), dDst, n, cudaMemcpyDeviceToHost));
    boxFilterHost(image.data(), cpu.data(), w, h, radius);
    bool ok = compareData<unsigned char, float>(cpu.data(), gpu.data(), n, 0.02f, 0);
    if (checkCmdLineFlag(argc, (const char **)argv, "save"))
      sdkSavePGM("box_filtered.pgm", gpu.data(), w, h);

    cudaFree(dSrc);
    cudaFree(dDst);
    cudaFree(dRows);
    return reportResult("boxFilter", ok);
  });
}
