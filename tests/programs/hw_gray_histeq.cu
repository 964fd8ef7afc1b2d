// Project 2: convert an RGB image to grayscale, compute its histogram,
// and equalize it.
//   kernel 1  rgbToGray     uchar3 pixels -> luminance bytes
//   kernel 2  grayHistogram privatized histogram with shared atomics
//   kernel 3  equalize      apply the CDF lookup table (in constant memory)
// The CDF itself is a 256-entry scan, done on the host.

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cmath>

#define HISTOGRAM_LENGTH 256
#define BLOCK_SIZE 256

#define CUDA_CHECK(x)                                                               \
  if ((x) != cudaSuccess) {                                                         \
    printf("Error %s line %d: %s\n", __FILE__, __LINE__, cudaGetErrorString(x));    \
    exit(EXIT_FAILURE);                                                             \
  }

__constant__ unsigned char equalizeLut[HISTOGRAM_LENGTH];

__global__ void rgbToGray(const uchar3 *rgb, unsigned char *gray, int numPixels) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < numPixels) {
    uchar3 p = rgb[i];
    // integer approximation of 0.21 R + 0.71 G + 0.07 B
    gray[i] = (unsigned char)((54 * p.x + 183 * p.y + 19 * p.z) >> 8);
  }
}

__global__ void grayHistogram(const unsigned char *gray, unsigned int *histo, int numPixels) {
  __shared__ unsigned int privateHisto[HISTOGRAM_LENGTH];
  if (threadIdx.x < HISTOGRAM_LENGTH) privateHisto[threadIdx.x] = 0;
  __syncthreads();

  int stride = blockDim.x * gridDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < numPixels; i += stride)
    atomicAdd(&privateHisto[gray[i]], 1);
  __syncthreads();

  if (threadIdx.x < HISTOGRAM_LENGTH) atomicAdd(&histo[threadIdx.x], privateHisto[threadIdx.x]);
}

__global__ void equalize(unsigned char *gray, int numPixels) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < numPixels) gray[i] = equalizeLut[gray[i]];
}

static void buildLut(const unsigned int *histo, int numPixels, unsigned char *lut) {
  unsigned int cdf[HISTOGRAM_LENGTH];
  unsigned int running = 0;
  for (int i = 0; i < HISTOGRAM_LENGTH; i++) {
    running += histo[i];
    cdf[i] = running;
  }
  unsigned int cdfMin = 0;
  for (int i = 0; i < HISTOGRAM_LENGTH; i++)
    if (cdf[i] != 0) {
      cdfMin = cdf[i];
      break;
    }
  for (int i = 0; i < HISTOGRAM_LENGTH; i++) {
    double v = 255.0 * (double)(cdf[i] - cdfMin) / (double)(numPixels - cdfMin > 0 ? numPixels - cdfMin : 1);
    if (cdf[i] < cdfMin) v = 0;
    lut[i] = (unsigned char)fmin(fmax(v, 0.0), 255.0);
  }
}

int main() {
  const int width = 640, height = 480;
  const int numPixels = width * height;
  uchar3 *h_rgb = (uchar3 *)malloc(numPixels * sizeof(uchar3));
  unsigned char *h_gray = (unsigned char *)malloc(numPixels);
  // A dim, low-contrast gradient: equalization should stretch it.
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) {
      unsigned char base = (unsigned char)(60 + (x + y) * 40 / (width + height));
      h_rgb[y * width + x] = make_uchar3(base, (unsigned char)(base + 5), (unsigned char)(base - 3));
    }

  uchar3 *d_rgb;
  unsigned char *d_gray;
  unsigned int *d_histo;
  CUDA_CHECK(cudaMalloc(&d_rgb, numPixels * sizeof(uchar3)));
  CUDA_CHECK(cudaMalloc(&d_gray, numPixels));
  CUDA_CHECK(cudaMalloc(&d_histo, HISTOGRAM_LENGTH * sizeof(unsigned int)));
  CUDA_CHECK(cudaMemcpy(d_rgb, h_rgb, numPixels * sizeof(uchar3), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(d_histo, 0, HISTOGRAM_LENGTH * sizeof(unsigned int)));

  int blocks = (numPixels + BLOCK_SIZE - 1) / BLOCK_SIZE;
  rgbToGray<<<blocks, BLOCK_SIZE>>>(d_rgb, d_gray, numPixels);
  grayHistogram<<<64, BLOCK_SIZE>>>(d_gray, d_histo, numPixels);
  CUDA_CHECK(cudaGetLastError());

  unsigned int h_histo[HISTOGRAM_LENGTH];
  CUDA_CHECK(cudaMemcpy(h_histo, d_histo, sizeof(h_histo), cudaMemcpyDeviceToHost));
  unsigned char lut[HISTOGRAM_LENGTH];
  buildLut(h_histo, numPixels, lut);
  CUDA_CHECK(cudaMemcpyToSymbol(equalizeLut, lut, sizeof(lut)));
  equalize<<<blocks, BLOCK_SIZE>>>(d_gray, numPixels);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(h_gray, d_gray, numPixels, cudaMemcpyDeviceToHost));

  // Check against a CPU pipeline.
  unsigned int ref_histo[HISTOGRAM_LENGTH];
  memset(ref_histo, 0, sizeof(ref_histo));
  unsigned char *ref_gray = (unsigned char *)malloc(numPixels);
  for (int i = 0; i < numPixels; i++) {
    uchar3 p = h_rgb[i];
    ref_gray[i] = (unsigned char)((54 * p.x + 183 * p.y + 19 * p.z) >> 8);
    ref_histo[ref_gray[i]]++;
  }
  bool ok = memcmp(ref_histo, h_histo, sizeof(ref_histo)) == 0;
  int lo = 255, hi = 0;
  for (int i = 0; i < numPixels; i++) {
    if (h_gray[i] != lut[ref_gray[i]]) ok = false;
    if (h_gray[i] < lo) lo = h_gray[i];
    if (h_gray[i] > hi) hi = h_gray[i];
  }
  printf("equalized range: [%d, %d]\n", lo, hi);
  printf("%s\n", ok ? "Correct" : "Incorrect");

  cudaFree(d_rgb);
  cudaFree(d_gray);
  cudaFree(d_histo);
  free(h_rgb);
  free(h_gray);
  free(ref_gray);
  return ok ? 0 : 1;
}
