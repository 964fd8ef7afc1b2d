// Lab: Sobel edge detection on a grayscale image, with the image tile and
// a one-pixel apron cached in shared memory. The gradient magnitude is
// clamped to 255. A CPU version is the reference.

#include <cstdio>
#include <cstdlib>
#include <cmath>

#define TILE 16
#define APRON 1
#define SMEM (TILE + 2 * APRON)

#define CUDA_OK(expr)                                                  \
  do {                                                                 \
    cudaError_t rc = (expr);                                           \
    if (rc != cudaSuccess) {                                           \
      fprintf(stderr, "%s -> %s\n", #expr, cudaGetErrorString(rc));    \
      exit(1);                                                         \
    }                                                                  \
  } while (0)

__device__ __host__ inline int clampi(int v, int lo, int hi) {
  return v < lo ? lo : (v > hi ? hi : v);
}

__device__ __host__ inline unsigned char sobelAt(int gx, int gy) {
  int mag = (int)sqrtf((float)(gx * gx + gy * gy));
  return (unsigned char)clampi(mag, 0, 255);
}

__global__ void sobelShared(const unsigned char *in, unsigned char *out, int w, int h) {
  __shared__ unsigned char tile[SMEM][SMEM];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;

  // Load the tile plus apron; edge pixels are replicated (clamp-to-edge).
  for (int ty = threadIdx.y; ty < SMEM; ty += TILE)
    for (int tx = threadIdx.x; tx < SMEM; tx += TILE) {
      int gx = clampi(blockIdx.x * TILE + tx - APRON, 0, w - 1);
      int gy = clampi(blockIdx.y * TILE + ty - APRON, 0, h - 1);
      tile[ty][tx] = in[gy * w + gx];
    }
  __syncthreads();

  if (x < w && y < h) {
    int cx = threadIdx.x + APRON, cy = threadIdx.y + APRON;
    int gx = -tile[cy - 1][cx - 1] - 2 * tile[cy][cx - 1] - tile[cy + 1][cx - 1] +
             tile[cy - 1][cx + 1] + 2 * tile[cy][cx + 1] + tile[cy + 1][cx + 1];
    int gy = -tile[cy - 1][cx - 1] - 2 * tile[cy - 1][cx] - tile[cy - 1][cx + 1] +
             tile[cy + 1][cx - 1] + 2 * tile[cy + 1][cx] + tile[cy + 1][cx + 1];
    out[y * w + x] = sobelAt(gx, gy);
  }
}

void sobelCPU(const unsigned char *in, unsigned char *out, int w, int h) {
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      auto p = [&](int dx, int dy) {
        return (int)in[clampi(y + dy, 0, h - 1) * w + clampi(x + dx, 0, w - 1)];
      };
      int gx = -p(-1, -1) - 2 * p(-1, 0) - p(-1, 1) + p(1, -1) + 2 * p(1, 0) + p(1, 1);
      int gy = -p(-1, -1) - 2 * p(0, -1) - p(1, -1) + p(-1, 1) + 2 * p(0, 1) + p(1, 1);
      out[y * w + x] = sobelAt(gx, gy);
    }
}

int main() {
  const int w = 800, h = 600;
  unsigned char *img = new unsigned char[w * h];
  unsigned char *gpu = new unsigned char[w * h];
  unsigned char *cpu = new unsigned char[w * h];
  // concentric rings give edges in every direction
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      float r = sqrtf((float)((x - w / 2) * (x - w / 2) + (y - h / 2) * (y - h / 2)));
      img[y * w + x] = ((int)(r / 12.0f) % 2) ? 200 : 30;
    }

  unsigned char *d_in, *d_out;
  CUDA_OK(cudaMalloc(&d_in, w * h));
  CUDA_OK(cudaMalloc(&d_out, w * h));
  CUDA_OK(cudaMemcpy(d_in, img, w * h, cudaMemcpyHostToDevice));
  dim3 block(TILE, TILE);
  dim3 grid((w + TILE - 1) / TILE, (h + TILE - 1) / TILE);
  sobelShared<<<grid, block>>>(d_in, d_out, w, h);
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaMemcpy(gpu, d_out, w * h, cudaMemcpyDeviceToHost));

  sobelCPU(img, cpu, w, h);
  int diff = 0, edges = 0;
  for (int i = 0; i < w * h; i++) {
    if (abs(gpu[i] - cpu[i]) > 1) diff++;
    if (gpu[i] > 128) edges++;
  }
  printf("%d edge pixels, %d differ from CPU\n", edges, diff);
  delete[] img;
  delete[] gpu;
  delete[] cpu;
  cudaFree(d_in);
  cudaFree(d_out);
  puts(diff == 0 ? "PASS" : "FAIL");
  return diff != 0;
}
