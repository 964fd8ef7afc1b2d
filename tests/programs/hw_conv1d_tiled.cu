// Lab 6: 1-D convolution with the mask in constant memory.
//   conv1dBasic: every input read from global memory
//   conv1dTiled: the tile and its halo cells loaded into shared memory
// MASK_WIDTH must be odd. Ghost cells outside the array count as zero.

#include <cstdio>
#include <cstdlib>
#include <cmath>

#define MASK_WIDTH 7
#define TILE_SIZE 256

#define check(ans)                                                          \
  do {                                                                      \
    cudaError_t e_ = (ans);                                                 \
    if (e_ != cudaSuccess) {                                                \
      printf("CUDA: %s (%s:%d)\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
      exit(1);                                                              \
    }                                                                       \
  } while (0)

__constant__ float M[MASK_WIDTH];

__global__ void conv1dBasic(const float *N, float *P, int width) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= width) return;
  float value = 0;
  int start = i - MASK_WIDTH / 2;
  for (int j = 0; j < MASK_WIDTH; j++)
    if (start + j >= 0 && start + j < width) value += N[start + j] * M[j];
  P[i] = value;
}

__global__ void conv1dTiled(const float *N, float *P, int width) {
  __shared__ float N_ds[TILE_SIZE + MASK_WIDTH - 1];
  const int n = MASK_WIDTH / 2;
  int i = blockIdx.x * blockDim.x + threadIdx.x;

  // left halo: the last n threads of the block load it
  int haloLeft = (blockIdx.x - 1) * blockDim.x + threadIdx.x;
  if (threadIdx.x >= blockDim.x - n) N_ds[threadIdx.x - (blockDim.x - n)] = haloLeft < 0 ? 0 : N[haloLeft];
  // centre
  N_ds[n + threadIdx.x] = i < width ? N[i] : 0;
  // right halo: the first n threads load it
  int haloRight = (blockIdx.x + 1) * blockDim.x + threadIdx.x;
  if (threadIdx.x < n) N_ds[n + blockDim.x + threadIdx.x] = haloRight >= width ? 0 : N[haloRight];
  __syncthreads();

  if (i < width) {
    float value = 0;
    for (int j = 0; j < MASK_WIDTH; j++) value += N_ds[threadIdx.x + j] * M[j];
    P[i] = value;
  }
}

int main() {
  const int width = 1000001;
  float mask[MASK_WIDTH] = {-1.f, 2.f, 0.5f, 3.f, 0.5f, 2.f, -1.f};
  float *h_N = new float[width], *h_P = new float[width], *h_ref = new float[width];
  for (int i = 0; i < width; i++) h_N[i] = (float)((i * 31) % 17) - 8.0f;
  for (int i = 0; i < width; i++) {
    float v = 0;
    for (int j = 0; j < MASK_WIDTH; j++) {
      int k = i - MASK_WIDTH / 2 + j;
      if (k >= 0 && k < width) v += h_N[k] * mask[j];
    }
    h_ref[i] = v;
  }

  float *d_N, *d_P;
  check(cudaMalloc(&d_N, width * sizeof(float)));
  check(cudaMalloc(&d_P, width * sizeof(float)));
  check(cudaMemcpy(d_N, h_N, width * sizeof(float), cudaMemcpyHostToDevice));
  check(cudaMemcpyToSymbol(M, mask, sizeof(mask)));

  int blocks = (width + TILE_SIZE - 1) / TILE_SIZE;
  bool ok = true;
  for (int version = 0; version < 2; version++) {
    check(cudaMemset(d_P, 0, width * sizeof(float)));
    if (version == 0)
      conv1dBasic<<<blocks, TILE_SIZE>>>(d_N, d_P, width);
    else
      conv1dTiled<<<blocks, TILE_SIZE>>>(d_N, d_P, width);
    check(cudaGetLastError());
    check(cudaMemcpy(h_P, d_P, width * sizeof(float), cudaMemcpyDeviceToHost));
    int wrong = 0;
    for (int i = 0; i < width; i++)
      if (fabsf(h_P[i] - h_ref[i]) > 1e-4f) wrong++;
    printf("%s: %d wrong\n", version == 0 ? "basic" : "tiled", wrong);
    ok = ok && wrong == 0;
  }

  cudaFree(d_N);
  cudaFree(d_P);
  delete[] h_N;
  delete[] h_P;
  delete[] h_ref;
  printf(ok ? "Solution is correct.\n" : "Solution is NOT correct.\n");
  return !ok;
}
