// Lab 4: box blur of an RGB image (interleaved unsigned chars).
// BLUR_SIZE is the radius; each output pixel averages the pixels of the
// (2 * BLUR_SIZE + 1)^2 window that fall inside the image.
// The image is synthetic so the lab runs without input files.

#include <stdio.h>
#include <stdlib.h>
#include <assert.h>

#define BLUR_SIZE 3
#define BLOCK_W 16
#define BLOCK_H 16
#define CHANNELS 3

#define cudaCheck(stmt)                                                   \
  do {                                                                    \
    cudaError_t e = stmt;                                                 \
    if (e != cudaSuccess) {                                               \
      fprintf(stderr, "Failed to run stmt %s: %s\n", #stmt,               \
              cudaGetErrorString(e));                                     \
      return -1;                                                          \
    }                                                                     \
  } while (0)

__global__ void blurKernel(unsigned char *in, unsigned char *out, int w, int h) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (col < w && row < h) {
    int sum[CHANNELS] = {0, 0, 0};
    int pixels = 0;
    for (int dy = -BLUR_SIZE; dy <= BLUR_SIZE; ++dy) {
      for (int dx = -BLUR_SIZE; dx <= BLUR_SIZE; ++dx) {
        int r = row + dy;
        int c = col + dx;
        if (r >= 0 && r < h && c >= 0 && c < w) {
          for (int ch = 0; ch < CHANNELS; ++ch) sum[ch] += in[(r * w + c) * CHANNELS + ch];
          pixels++;
        }
      }
    }
    for (int ch = 0; ch < CHANNELS; ++ch)
      out[(row * w + col) * CHANNELS + ch] = (unsigned char)(sum[ch] / pixels);
  }
}

void blurCPU(unsigned char *in, unsigned char *out, int w, int h) {
  for (int row = 0; row < h; row++)
    for (int col = 0; col < w; col++) {
      int sum[CHANNELS] = {0, 0, 0}, pixels = 0;
      for (int r = row - BLUR_SIZE; r <= row + BLUR_SIZE; r++)
        for (int c = col - BLUR_SIZE; c <= col + BLUR_SIZE; c++)
          if (r >= 0 && r < h && c >= 0 && c < w) {
            for (int ch = 0; ch < CHANNELS; ch++) sum[ch] += in[(r * w + c) * CHANNELS + ch];
            pixels++;
          }
      for (int ch = 0; ch < CHANNELS; ch++)
        out[(row * w + col) * CHANNELS + ch] = (unsigned char)(sum[ch] / pixels);
    }
}

int main(int argc, char *argv[]) {
  int w = 733, h = 517;
  if (argc == 3) {
    w = atoi(argv[1]);
    h = atoi(argv[2]);
  }
  assert(w > 0 && h > 0);
  size_t bytes = (size_t)w * h * CHANNELS;
  unsigned char *img = (unsigned char *)malloc(bytes);
  unsigned char *res = (unsigned char *)malloc(bytes);
  unsigned char *ref = (unsigned char *)malloc(bytes);
  for (size_t i = 0; i < bytes; i++) img[i] = (unsigned char)((i * 37 + (i / 97) * 11) & 0xff);

  unsigned char *d_in, *d_out;
  cudaCheck(cudaMalloc(&d_in, bytes));
  cudaCheck(cudaMalloc(&d_out, bytes));
  cudaCheck(cudaMemcpy(d_in, img, bytes, cudaMemcpyHostToDevice));

  dim3 block(BLOCK_W, BLOCK_H);
  dim3 grid((w + BLOCK_W - 1) / BLOCK_W, (h + BLOCK_H - 1) / BLOCK_H);
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  cudaEventRecord(start);
  blurKernel<<<grid, block>>>(d_in, d_out, w, h);
  cudaEventRecord(stop);
  cudaCheck(cudaGetLastError());
  cudaEventSynchronize(stop);
  float ms = 0;
  cudaEventElapsedTime(&ms, start, stop);
  cudaCheck(cudaMemcpy(res, d_out, bytes, cudaMemcpyDeviceToHost));

  blurCPU(img, ref, w, h);
  int errors = 0;
  for (size_t i = 0; i < bytes; i++)
    if (res[i] != ref[i]) errors++;
  printf("blur %dx%d radius %d: %.3f ms, %d errors\n", w, h, BLUR_SIZE, ms, errors);
  printf(errors == 0 ? "TEST PASSED\n" : "TEST FAILED\n");

  cudaFree(d_in);
  cudaFree(d_out);
  free(img);
  free(res);
  free(ref);
  return errors != 0;
}
