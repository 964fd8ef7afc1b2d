// A small benchmark driver that keeps its kernels in a table and launches
// them through the runtime API rather than the chevron syntax: each entry
// has a name, a pointer to the kernel and a std::function that packs the
// kernel's arguments into the void* array cudaLaunchKernel takes. Block
// sizes come from cudaOccupancyMaxPotentialBlockSize, reported next to
// cudaOccupancyMaxActiveBlocksPerMultiprocessor. One kernel takes its
// parameters as a __grid_constant__ struct; another is launched with
// cudaLaunchKernelEx and a launch-attribute array.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#define CHECK(call)                                                          \
  do {                                                                       \
    const cudaError_t error = call;                                          \
    if (error != cudaSuccess) {                                              \
      printf("Error: %s:%d, ", __FILE__, __LINE__);                          \
      printf("code:%d, reason: %s\n", error, cudaGetErrorString(error));     \
      exit(1);                                                               \
    }                                                                        \
  } while (0)

struct SaxpyParams {
  float a;
  const float *x;
  float *y;
  int n;
};

__global__ void saxpyParams(const __grid_constant__ SaxpyParams p) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < p.n) p.y[i] = p.a * p.x[i] + p.y[i];
}

__global__ void scaleShift(float *data, float scale, float shift, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    data[i] = fmaf(data[i], scale, shift);
}

__global__ void clampRange(float *data, float lo, float hi, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = fminf(fmaxf(data[i], lo), hi);
}

// Sums squares per block into out[blockIdx.x] using dynamic shared memory.
__global__ void sumSquares(const float *in, float *out, int n) {
  extern __shared__ float partial[];
  int tid = threadIdx.x;
  float acc = 0.f;
  for (int i = blockIdx.x * blockDim.x + tid; i < n; i += blockDim.x * gridDim.x)
    acc += in[i] * in[i];
  partial[tid] = acc;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) partial[tid] += partial[tid + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = partial[0];
}

struct KernelEntry {
  const void *func;
  std::function<std::vector<void *>()> args;
  size_t smemPerThread;
};

// Dynamic shared memory of sumSquares for a block of `block` threads.
static size_t floatPerThread(int block) { return block * sizeof(float); }

static int blockSizeFor(const void *func, size_t smemPerThread, int *minGrid) {
  int block = 0;
  if (smemPerThread == 0) {
    CHECK(cudaOccupancyMaxPotentialBlockSize(minGrid, &block, func, 0, 0));
  } else {
    CHECK(cudaOccupancyMaxPotentialBlockSizeVariableSMem(
        minGrid, &block, (void (*)(const float *, float *, int))func,
        floatPerThread));
    // The tree reduction needs a power of two.
    while (block & (block - 1)) block &= block - 1;
  }
  return block;
}

int main() {
  const int n = 1 << 18;
  std::vector<float> hx(n), hy(n);
  for (int i = 0; i < n; ++i) {
    hx[i] = (float)(i % 100) * 0.01f;
    hy[i] = 1.0f;
  }
  float *x, *y, *sums;
  CHECK(cudaMalloc(&x, n * sizeof(float)));
  CHECK(cudaMalloc(&y, n * sizeof(float)));
  CHECK(cudaMalloc(&sums, 1024 * sizeof(float)));
  CHECK(cudaMemcpy(x, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(y, hy.data(), n * sizeof(float), cudaMemcpyHostToDevice));

  // Argument values live here; the packers hand out their addresses.
  SaxpyParams params{2.0f, x, y, n};
  float scale = 0.5f, shift = -0.25f, lo = 0.f, hi = 1.f;
  int count = n;
  std::unordered_map<std::string, KernelEntry> table;
  table["saxpy"] = {(const void *)saxpyParams,
                    [&] { return std::vector<void *>{&params}; }, 0};
  table["scaleShift"] = {(const void *)scaleShift,
                         [&] {
                           return std::vector<void *>{&y, &scale, &shift,
                                                      &count};
                         },
                         0};
  table["clamp"] = {(const void *)clampRange,
                    [&] { return std::vector<void *>{&y, &lo, &hi, &count}; },
                    0};
  table["sumSquares"] = {(const void *)sumSquares,
                         [&] { return std::vector<void *>{&y, &sums, &count}; },
                         sizeof(float)};

  const char *order[] = {"saxpy", "scaleShift", "clamp", "sumSquares"};
  int gridUsed = 0;
  for (const char *name : order) {
    KernelEntry &k = table.at(name);
    int minGrid = 0;
    int block = blockSizeFor(k.func, k.smemPerThread, &minGrid);
    int active = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &active, k.func, block, block * k.smemPerThread));
    int grid = std::string(name) == "sumSquares"
                   ? std::min(minGrid, 1024)
                   : (n + block - 1) / block;
    std::vector<void *> args = k.args();
    CHECK(cudaLaunchKernel(k.func, dim3(grid), dim3(block), args.data(),
                           block * k.smemPerThread, 0));
    CHECK(cudaGetLastError());
    printf("%-11s block %4d grid %5d (%d blocks/SM)\n", name, block, grid,
           active);
    if (std::string(name) == "sumSquares") gridUsed = grid;
  }

  // The same clamp again through cudaLaunchKernelEx, with a priority hint.
  cudaLaunchConfig_t config = {};
  cudaLaunchAttribute attrs[1];
  attrs[0].id = cudaLaunchAttributePriority;
  attrs[0].val.priority = 0;
  config.gridDim = dim3((n + 255) / 256);
  config.blockDim = dim3(256);
  config.attrs = attrs;
  config.numAttrs = 1;
  CHECK(cudaLaunchKernelEx(&config, clampRange, y, lo, hi, count));
  CHECK(cudaDeviceSynchronize());

  std::vector<float> partial(gridUsed);
  CHECK(cudaMemcpy(hy.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(partial.data(), sums, gridUsed * sizeof(float),
                   cudaMemcpyDeviceToHost));
  double gpu = 0, ref = 0;
  for (float p : partial) gpu += p;
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    float v = (2.0f * ((float)(i % 100) * 0.01f) + 1.0f) * 0.5f - 0.25f;
    v = v < 0.f ? 0.f : (v > 1.f ? 1.f : v);
    ref += (double)v * v;
    bad += std::abs(hy[i] - v) > 1e-6f;
  }
  printf("mismatches %d, sum of squares %.3f (ref %.3f)\n", bad, gpu, ref);
  cudaFree(x);
  cudaFree(y);
  cudaFree(sums);
  return bad == 0 && std::abs(gpu - ref) < 1e-3 * ref ? 0 : 1;
}
