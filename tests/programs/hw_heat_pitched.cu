// Assignment 4: 2D heat equation on a pitched grid. The grid lives in
// memory from cudaMallocPitch and is copied with cudaMemcpy2D; rows are
// reached by byte arithmetic on the pitch. The tiled kernel loads a tile
// plus a one-cell halo into shared memory (edges and corners loaded by the
// border threads). Two streams: one computes, the other copies a snapshot
// out every SNAPSHOT steps after waiting on an event the first records; a
// host callback counts the snapshots. Timing with cudaEvent.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

#define BX 32
#define BY 8
#define STEPS 200
#define SNAPSHOT 50

#define cudaCheck(err) (cudaCheckImpl((err), __FILE__, __LINE__))
static void cudaCheckImpl(cudaError_t err, const char *file, int line) {
  if (err != cudaSuccess) {
    printf("CUDA error %d (%s) at %s:%d\n", (int)err, cudaGetErrorString(err),
           file, line);
    exit(EXIT_FAILURE);
  }
}

template <typename T>
__device__ __forceinline__ T *rowPtr(T *base, size_t pitch, int y) {
  return (T *)((char *)base + y * pitch);
}

__global__ void heatStepNaive(const float *in, float *out, size_t pitch,
                              int nx, int ny, float alpha) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x <= 0 || y <= 0 || x >= nx - 1 || y >= ny - 1) return;
  const float *row = rowPtr(in, pitch, y);
  float c = row[x];
  float lap = row[x - 1] + row[x + 1] + rowPtr(in, pitch, y - 1)[x] +
              rowPtr(in, pitch, y + 1)[x] - 4.f * c;
  rowPtr(out, pitch, y)[x] = c + alpha * lap;
}

__global__ void heatStepTiled(const float *__restrict__ in,
                              float *__restrict__ out, size_t pitch, int nx,
                              int ny, float alpha) {
  __shared__ float tile[BY + 2][BX + 2];
  const int tx = threadIdx.x + 1, ty = threadIdx.y + 1;
  const int x = blockIdx.x * BX + threadIdx.x;
  const int y = blockIdx.y * BY + threadIdx.y;
  auto load = [&](int gx, int gy) -> float {
    gx = max(0, min(gx, nx - 1));
    gy = max(0, min(gy, ny - 1));
    return rowPtr(in, pitch, gy)[gx];
  };
  tile[ty][tx] = load(x, y);
  if (threadIdx.x == 0) tile[ty][0] = load(x - 1, y);
  if (threadIdx.x == BX - 1) tile[ty][BX + 1] = load(x + 1, y);
  if (threadIdx.y == 0) tile[0][tx] = load(x, y - 1);
  if (threadIdx.y == BY - 1) tile[BY + 1][tx] = load(x, y + 1);
  __syncthreads();
  if (x <= 0 || y <= 0 || x >= nx - 1 || y >= ny - 1) return;
  float c = tile[ty][tx];
  float lap = tile[ty][tx - 1] + tile[ty][tx + 1] + tile[ty - 1][tx] +
              tile[ty + 1][tx] - 4.f * c;
  rowPtr(out, pitch, y)[x] = c + alpha * lap;
}

// Fixed boundary: a hot left edge, the rest cold.
__global__ void setBoundary(float *grid, size_t pitch, int nx, int ny,
                            float hot) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < ny) {
    rowPtr(grid, pitch, i)[0] = hot;
    rowPtr(grid, pitch, i)[nx - 1] = 0.f;
  }
  if (i < nx) {
    rowPtr(grid, pitch, 0)[i] = i == 0 ? hot : 0.f;
    rowPtr(grid, pitch, ny - 1)[i] = i == 0 ? hot : 0.f;
  }
}

static void CUDART_CB onSnapshot(void *userData) {
  ++*static_cast<int *>(userData);
}

static void heatCpu(std::vector<float> &u, int nx, int ny, float alpha,
                    int steps) {
  std::vector<float> v(u);
  for (int s = 0; s < steps; ++s) {
    for (int y = 1; y < ny - 1; ++y)
      for (int x = 1; x < nx - 1; ++x) {
        float c = u[y * nx + x];
        v[y * nx + x] = c + alpha * (u[y * nx + x - 1] + u[y * nx + x + 1] +
                                     u[(y - 1) * nx + x] +
                                     u[(y + 1) * nx + x] - 4.f * c);
      }
    std::swap(u, v);
  }
}

int main(int argc, char **argv) {
  const int nx = argc > 1 ? atoi(argv[1]) : 500, ny = argc > 2 ? atoi(argv[2]) : 300;
  const float alpha = 0.2f, hot = 100.f;
  bool tiled = !(argc > 3 && argv[3][0] == 'n');

  std::vector<float> host(nx * ny, 0.f);
  for (int y = 0; y < ny; ++y) host[y * nx] = hot;
  std::vector<float> ref(host), snap(nx * ny);

  float *d_a, *d_b;
  size_t pitch;
  cudaCheck(cudaMallocPitch(&d_a, &pitch, nx * sizeof(float), ny));
  cudaCheck(cudaMallocPitch(&d_b, &pitch, nx * sizeof(float), ny));
  printf("grid %d x %d, pitch %zu bytes (%zu floats)\n", nx, ny, pitch,
         pitch / sizeof(float));
  cudaCheck(cudaMemcpy2D(d_a, pitch, host.data(), nx * sizeof(float),
                         nx * sizeof(float), ny, cudaMemcpyHostToDevice));
  cudaCheck(cudaMemcpy2D(d_b, pitch, host.data(), nx * sizeof(float),
                         nx * sizeof(float), ny, cudaMemcpyHostToDevice));

  cudaStream_t compute, copy;
  cudaCheck(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking));
  cudaCheck(cudaStreamCreateWithFlags(&copy, cudaStreamNonBlocking));
  cudaEvent_t ready, start, stop;
  cudaCheck(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming));
  cudaCheck(cudaEventCreate(&start));
  cudaCheck(cudaEventCreate(&stop));

  dim3 block(BX, BY), grid((nx + BX - 1) / BX, (ny + BY - 1) / BY);
  int snapshots = 0;
  setBoundary<<<(std::max(nx, ny) + 255) / 256, 256, 0, compute>>>(d_a, pitch,
                                                                   nx, ny, hot);
  cudaCheck(cudaEventRecord(start, compute));
  for (int step = 1; step <= STEPS; ++step) {
    if (tiled)
      heatStepTiled<<<grid, block, 0, compute>>>(d_a, d_b, pitch, nx, ny, alpha);
    else
      heatStepNaive<<<grid, block, 0, compute>>>(d_a, d_b, pitch, nx, ny, alpha);
    std::swap(d_a, d_b);
    if (step % SNAPSHOT == 0) {
      cudaCheck(cudaEventRecord(ready, compute));
      cudaCheck(cudaStreamWaitEvent(copy, ready, 0));
      cudaCheck(cudaMemcpy2DAsync(snap.data(), nx * sizeof(float), d_a, pitch,
                                  nx * sizeof(float), ny,
                                  cudaMemcpyDeviceToHost, copy));
      cudaCheck(cudaLaunchHostFunc(copy, onSnapshot, &snapshots));
      // The next step writes d_b, which the copy does not read.
    }
  }
  cudaCheck(cudaEventRecord(stop, compute));
  cudaCheck(cudaStreamSynchronize(compute));
  cudaCheck(cudaStreamSynchronize(copy));
  float ms = 0.f;
  cudaCheck(cudaEventElapsedTime(&ms, start, stop));

  cudaCheck(cudaMemcpy2D(host.data(), nx * sizeof(float), d_a, pitch,
                         nx * sizeof(float), ny, cudaMemcpyDeviceToHost));
  heatCpu(ref, nx, ny, alpha, STEPS);
  float maxErr = 0.f;
  for (int i = 0; i < nx * ny; ++i)
    maxErr = std::max(maxErr, std::fabs(host[i] - ref[i]));
  printf("%s: %d steps in %.3f ms (%.2f us/step), %d snapshots, max err %g\n",
         tiled ? "tiled" : "naive", STEPS, ms, 1000.f * ms / STEPS, snapshots,
         maxErr);

  cudaStreamDestroy(compute);
  cudaStreamDestroy(copy);
  cudaEventDestroy(ready);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaFree(d_a);
  cudaFree(d_b);
  return maxErr < 1e-3f && snapshots == STEPS / SNAPSHOT ? 0 : 1;
}
