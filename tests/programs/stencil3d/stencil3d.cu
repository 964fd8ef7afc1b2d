// 7-point Jacobi stencil on a 3-D grid with a fixed (Dirichlet) halo,
// two versions:
//   stencilNaive:   one thread per cell, seven global loads
//   stencil25D:     2.5-D blocking: a 2-D block of threads marches along z,
//                   keeping the current xy plane (with its halo) in shared
//                   memory and the planes below and above in registers
// Headers come from include/ and are found with -I, as a build system
// would pass them:
//   nvcc -I tests/programs/stencil3d/include stencil3d.cu
//
// nvcc-flags: -I tests/programs/stencil3d/include

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

#include <grid3d.cuh>
#include <timer.hpp>

#define BX 32
#define BY 8

#define CHECK(call)                                                                 \
  do {                                                                              \
    cudaError_t e = (call);                                                         \
    if (e != cudaSuccess) {                                                         \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
      std::exit(1);                                                                 \
    }                                                                               \
  } while (0)

using stencil::Coefficients;
using stencil::Extent;

__global__ void stencilNaive(float *__restrict__ out, const float *__restrict__ in, Extent e,
                             Coefficients c) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z;
  if (x >= e.nx || y >= e.ny || z >= e.nz) return;
  float sum = in[e.at(x - 1, y, z)] + in[e.at(x + 1, y, z)] + in[e.at(x, y - 1, z)] +
              in[e.at(x, y + 1, z)] + in[e.at(x, y, z - 1)] + in[e.at(x, y, z + 1)];
  out[e.at(x, y, z)] = c.center * in[e.at(x, y, z)] + c.neighbour * sum;
}

__global__ void __launch_bounds__(BX * BY)
stencil25D(float *__restrict__ out, const float *__restrict__ in, Extent e, Coefficients c) {
  __shared__ float plane[BY + 2][BX + 2];
  const int x = blockIdx.x * BX + threadIdx.x;
  const int y = blockIdx.y * BY + threadIdx.y;
  const bool inside = x < e.nx && y < e.ny;
  const int tx = threadIdx.x + 1, ty = threadIdx.y + 1;

  float below = inside ? in[e.at(x, y, -1)] : 0.0f;
  float current = inside ? in[e.at(x, y, 0)] : 0.0f;
  for (int z = 0; z < e.nz; ++z) {
    float above = inside ? in[e.at(x, y, z + 1)] : 0.0f;
    if (inside) {
      // Threads outside the grid write nothing: their slots may be the
      // halo that an edge thread fills.
      plane[ty][tx] = current;
      if (threadIdx.x == 0) plane[ty][0] = in[e.at(x - 1, y, z)];
      if (threadIdx.x == BX - 1 || x == e.nx - 1) plane[ty][tx + 1] = in[e.at(x + 1, y, z)];
      if (threadIdx.y == 0) plane[0][tx] = in[e.at(x, y - 1, z)];
      if (threadIdx.y == BY - 1 || y == e.ny - 1) plane[ty + 1][tx] = in[e.at(x, y + 1, z)];
    }
    __syncthreads();
    if (inside) {
      float sum = plane[ty][tx - 1] + plane[ty][tx + 1] + plane[ty - 1][tx] + plane[ty + 1][tx] +
                  below + above;
      out[e.at(x, y, z)] = c.center * current + c.neighbour * sum;
    }
    __syncthreads(); // the plane is overwritten in the next iteration
    below = current;
    current = above;
  }
}

int main(int argc, char **argv) {
  Extent e{argc > 1 ? std::atoi(argv[1]) : 130, argc > 2 ? std::atoi(argv[2]) : 97,
           argc > 3 ? std::atoi(argv[3]) : 64};
  Coefficients coef{0.4f, 0.1f};
  const int iterations = 10;
  std::vector<float> grid(e.cells());
  for (size_t i = 0; i < grid.size(); ++i) grid[i] = std::sin(0.001f * (float)i);

  float *dA, *dB;
  CHECK(cudaMalloc(&dA, grid.size() * sizeof(float)));
  CHECK(cudaMalloc(&dB, grid.size() * sizeof(float)));
  std::vector<float> results[2];
  for (int version = 0; version < 2; ++version) {
    CHECK(cudaMemcpy(dA, grid.data(), grid.size() * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dB, grid.data(), grid.size() * sizeof(float), cudaMemcpyHostToDevice));
    float *src = dA, *dst = dB;
    {
      GpuTimer timer(version == 0 ? "naive" : "2.5-D blocked");
      for (int it = 0; it < iterations; ++it) {
        if (version == 0) {
          dim3 block(BX, BY), grd((e.nx + BX - 1) / BX, (e.ny + BY - 1) / BY, e.nz);
          stencilNaive<<<grd, block>>>(dst, src, e, coef);
        } else {
          dim3 block(BX, BY), grd((e.nx + BX - 1) / BX, (e.ny + BY - 1) / BY);
          stencil25D<<<grd, block>>>(dst, src, e, coef);
        }
        std::swap(src, dst);
      }
    }
    CHECK(cudaGetLastError());
    results[version].resize(grid.size());
    CHECK(cudaMemcpy(results[version].data(), src, grid.size() * sizeof(float), cudaMemcpyDeviceToHost));
  }

  // CPU reference for the same number of sweeps.
  std::vector<float> a = grid, b = grid;
  for (int it = 0; it < iterations; ++it) {
    for (int z = 0; z < e.nz; ++z)
      for (int y = 0; y < e.ny; ++y)
        for (int x = 0; x < e.nx; ++x) {
          float sum = a[e.at(x - 1, y, z)] + a[e.at(x + 1, y, z)] + a[e.at(x, y - 1, z)] +
                      a[e.at(x, y + 1, z)] + a[e.at(x, y, z - 1)] + a[e.at(x, y, z + 1)];
          b[e.at(x, y, z)] = coef.center * a[e.at(x, y, z)] + coef.neighbour * sum;
        }
    a.swap(b);
  }
  double err[2] = {0, 0};
  for (int v = 0; v < 2; ++v)
    for (size_t i = 0; i < a.size(); ++i) err[v] = std::fmax(err[v], std::fabs(results[v][i] - a[i]));
  std::printf("max error: naive %.2e, 2.5-D %.2e\n", err[0], err[1]);
  cudaFree(dA);
  cudaFree(dB);
  bool ok = err[0] < 1e-5 && err[1] < 1e-5;
  std::puts(ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
