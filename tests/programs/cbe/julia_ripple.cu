// Textbook-style bitmap programs: a Julia set where each block computes
// one pixel (a grid of DIM x DIM blocks of one thread, as the chapter on
// blocks introduces them), through a small complex-number struct of the
// program's own with device member functions and operators; then an
// animated ripple with 2-D blocks of 16 x 16 threads that reads a tick
// count, timed with events. The host checks the Julia bitmap against the
// same iteration on the CPU and counts the ripple's bright pixels.

#include <cuda_runtime.h>
#include "../common/book.h"

#define DIM 256
#define JULIA_SCALE 1.5f
#define MAX_ITER 200

struct cuComplex {
  float r;
  float i;
  __host__ __device__ cuComplex(float a, float b) : r(a), i(b) {}
  __host__ __device__ float magnitude2(void) const { return r * r + i * i; }
  __host__ __device__ cuComplex operator*(const cuComplex &a) const {
    return cuComplex(r * a.r - i * a.i, i * a.r + r * a.i);
  }
  __host__ __device__ cuComplex operator+(const cuComplex &a) const {
    return cuComplex(r + a.r, i + a.i);
  }
};

__host__ __device__ int julia(int x, int y) {
  float jx = JULIA_SCALE * (float)(DIM / 2 - x) / (DIM / 2);
  float jy = JULIA_SCALE * (float)(DIM / 2 - y) / (DIM / 2);

  cuComplex c(-0.8f, 0.156f);
  cuComplex a(jx, jy);

  for (int n = 0; n < MAX_ITER; n++) {
    a = a * a + c;
    if (a.magnitude2() > 1000.0f) return 0;
  }
  return 1;
}

// One block per pixel: the pixel is the block's place in the grid.
__global__ void julia_kernel(unsigned char *ptr) {
  int x = blockIdx.x;
  int y = blockIdx.y;
  int offset = x + y * gridDim.x;

  int juliaValue = julia(x, y);
  ptr[offset * 4 + 0] = 255 * juliaValue;
  ptr[offset * 4 + 1] = 0;
  ptr[offset * 4 + 2] = 0;
  ptr[offset * 4 + 3] = 255;
}

// Threads in 2-D blocks: a grey ripple centred on the image, moving with ticks.
__global__ void ripple_kernel(unsigned char *ptr, int ticks) {
  int x = threadIdx.x + blockIdx.x * blockDim.x;
  int y = threadIdx.y + blockIdx.y * blockDim.y;
  int offset = x + y * blockDim.x * gridDim.x;

  float fx = x - DIM / 2;
  float fy = y - DIM / 2;
  float d = sqrtf(fx * fx + fy * fy);
  unsigned char grey =
      (unsigned char)(128.0f + 127.0f * cos(d / 10.0f - ticks / 7.0f) / (d / 10.0f + 1.0f));
  ptr[offset * 4 + 0] = grey;
  ptr[offset * 4 + 1] = grey;
  ptr[offset * 4 + 2] = grey;
  ptr[offset * 4 + 3] = 255;
}

static int check_julia(const CPUBitmap &bitmap) {
  int mismatches = 0;
  const unsigned char *p = bitmap.get_ptr();
  for (int y = 0; y < DIM; y++)
    for (int x = 0; x < DIM; x++) {
      int expect = 255 * julia(x, y);
      if (p[(x + y * DIM) * 4] != expect) mismatches++;
    }
  return mismatches;
}

int main(void) {
  CPUBitmap bitmap(DIM, DIM);
  unsigned char *dev_bitmap;
  HANDLE_ERROR(cudaMalloc((void **)&dev_bitmap, bitmap.image_size()));

  cudaEvent_t start, stop;
  HANDLE_ERROR(cudaEventCreate(&start));
  HANDLE_ERROR(cudaEventCreate(&stop));

  dim3 grid(DIM, DIM);
  HANDLE_ERROR(cudaEventRecord(start, 0));
  julia_kernel<<<grid, 1>>>(dev_bitmap);
  HANDLE_ERROR(cudaGetLastError());
  HANDLE_ERROR(cudaEventRecord(stop, 0));
  HANDLE_ERROR(cudaEventSynchronize(stop));
  float elapsedTime;
  HANDLE_ERROR(cudaEventElapsedTime(&elapsedTime, start, stop));
  printf("julia: %3.1f ms\n", elapsedTime);

  HANDLE_ERROR(cudaMemcpy(bitmap.get_ptr(), dev_bitmap, bitmap.image_size(),
                          cudaMemcpyDeviceToHost));
  int bad = check_julia(bitmap);
  printf("julia: %d pixels differ from the CPU\n", bad);
  bitmap.save_ppm("julia.ppm");

  dim3 blocks(DIM / 16, DIM / 16);
  dim3 threads(16, 16);
  long bright = 0;
  for (int ticks = 0; ticks < 30; ticks += 10) {
    ripple_kernel<<<blocks, threads>>>(dev_bitmap, ticks);
    HANDLE_ERROR(cudaGetLastError());
    HANDLE_ERROR(cudaMemcpy(bitmap.get_ptr(), dev_bitmap, bitmap.image_size(),
                            cudaMemcpyDeviceToHost));
    for (long i = 0; i < (long)DIM * DIM; i++) bright += bitmap.get_ptr()[4 * i] > 200;
  }
  printf("ripple: %ld bright pixels over 3 frames\n", bright);

  HANDLE_ERROR(cudaEventDestroy(start));
  HANDLE_ERROR(cudaEventDestroy(stop));
  HANDLE_ERROR(cudaFree(dev_bitmap));
  return bad == 0 ? 0 : 1;
}
