// Thermal simulation of a chip: each step, every cell's temperature moves
// toward its neighbours' and the ambient temperature, plus the power
// dissipated in the cell. The grid is cut into 16x16 tiles held in shared
// memory with a one-cell halo; border cells use their own temperature for
// missing neighbours. Benchmark-suite style, with a CPU reference.
//
// usage: bench_hotspot [rows] [cols] [steps]

#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>

#include <cuda_runtime.h>

#define BLOCK 16
#define CHECK(e)                                                               \
  if ((e) != cudaSuccess) {                                                    \
    fprintf(stderr, "%s:%d CUDA failure\n", __FILE__, __LINE__);                \
    exit(1);                                                                   \
  }

struct ChipConstants {
  float cap;      // step / capacitance
  float rx, ry;   // 1 / lateral resistances
  float rz;       // 1 / vertical resistance to ambient
  float ambient;
};

__device__ __host__ inline float updateCell(float t, float n, float s, float e, float w, float p,
                                            const ChipConstants &k) {
  return t + k.cap * (p + (n + s - 2.0f * t) * k.ry + (e + w - 2.0f * t) * k.rx +
                      (k.ambient - t) * k.rz);
}

__global__ void hotspotStep(float *__restrict__ tOut, const float *__restrict__ tIn,
                            const float *__restrict__ power, int rows, int cols, ChipConstants k) {
  __shared__ float tile[BLOCK + 2][BLOCK + 2];
  int c = blockIdx.x * BLOCK + threadIdx.x;
  int r = blockIdx.y * BLOCK + threadIdx.y;
  int cc = min(c, cols - 1), rr = min(r, rows - 1); // clamp for the loads
  float self = tIn[rr * cols + cc];
  tile[threadIdx.y + 1][threadIdx.x + 1] = self;
  // Threads past the chip's edge hold the clamped edge value, which is what
  // the edge cell uses for its missing neighbour. Halo: the tile's edge
  // threads load their outside neighbour, clamped at the chip border.
  if (threadIdx.y == 0) tile[0][threadIdx.x + 1] = rr > 0 ? tIn[(rr - 1) * cols + cc] : self;
  if (threadIdx.y == BLOCK - 1)
    tile[threadIdx.y + 2][threadIdx.x + 1] = rr < rows - 1 ? tIn[(rr + 1) * cols + cc] : self;
  if (threadIdx.x == 0) tile[threadIdx.y + 1][0] = cc > 0 ? tIn[rr * cols + cc - 1] : self;
  if (threadIdx.x == BLOCK - 1)
    tile[threadIdx.y + 1][threadIdx.x + 2] = cc < cols - 1 ? tIn[rr * cols + cc + 1] : self;
  __syncthreads();

  if (r < rows && c < cols) {
    int ty = threadIdx.y + 1, tx = threadIdx.x + 1;
    tOut[r * cols + c] = updateCell(tile[ty][tx], tile[ty - 1][tx], tile[ty + 1][tx],
                                    tile[ty][tx + 1], tile[ty][tx - 1], power[r * cols + c], k);
  }
}

int main(int argc, char **argv) {
  int rows = argc > 1 ? atoi(argv[1]) : 512;
  int cols = argc > 2 ? atoi(argv[2]) : 500;
  int steps = argc > 3 ? atoi(argv[3]) : 60;
  ChipConstants k = {0.5f, 0.1f, 0.1f, 0.01f, 80.0f};
  size_t n = (size_t)rows * cols;
  std::vector<float> temp(n), power(n);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      temp[r * cols + c] = 80.0f + (float)((r * 7 + c * 3) % 10);
      // two hot blocks
      bool hot = (r / 64 == 2 && c / 64 == 3) || (r / 100 == 4 && c / 50 == 1);
      power[r * cols + c] = hot ? 1.5f : 0.05f;
    }

  float *dA, *dB, *dP;
  CHECK(cudaMalloc(&dA, n * sizeof(float)));
  CHECK(cudaMalloc(&dB, n * sizeof(float)));
  CHECK(cudaMalloc(&dP, n * sizeof(float)));
  CHECK(cudaMemcpy(dA, temp.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dP, power.data(), n * sizeof(float), cudaMemcpyHostToDevice));

  dim3 block(BLOCK, BLOCK), grid((cols + BLOCK - 1) / BLOCK, (rows + BLOCK - 1) / BLOCK);
  cudaEvent_t t0, t1;
  cudaEventCreate(&t0);
  cudaEventCreate(&t1);
  cudaEventRecord(t0);
  for (int s = 0; s < steps; ++s) {
    hotspotStep<<<grid, block>>>(dB, dA, dP, rows, cols, k);
    std::swap(dA, dB);
  }
  cudaEventRecord(t1);
  CHECK(cudaGetLastError());
  cudaEventSynchronize(t1);
  float ms;
  cudaEventElapsedTime(&ms, t0, t1);
  std::vector<float> gpu(n);
  CHECK(cudaMemcpy(gpu.data(), dA, n * sizeof(float), cudaMemcpyDeviceToHost));

  std::vector<float> next(n);
  for (int s = 0; s < steps; ++s) {
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c) {
        float t = temp[r * cols + c];
        float nn = r > 0 ? temp[(r - 1) * cols + c] : t;
        float ss = r < rows - 1 ? temp[(r + 1) * cols + c] : t;
        float ee = c < cols - 1 ? temp[r * cols + c + 1] : t;
        float ww = c > 0 ? temp[r * cols + c - 1] : t;
        next[r * cols + c] = updateCell(t, nn, ss, ee, ww, power[r * cols + c], k);
      }
    temp.swap(next);
  }
  double maxErr = 0;
  float hottest = 0;
  for (size_t i = 0; i < n; ++i) {
    maxErr = fmax(maxErr, fabs(gpu[i] - temp[i]));
    hottest = fmaxf(hottest, gpu[i]);
  }
  printf("%dx%d, %d steps: %.3f ms, hottest %.2f, max error vs CPU %.2e\n", rows, cols, steps, ms,
         hottest, maxErr);
  cudaFree(dA); cudaFree(dB); cudaFree(dP);
  bool ok = maxErr < 1e-3;
  printf("%s\n", ok ? "PASS" : "FAIL");
  return !ok;
}
