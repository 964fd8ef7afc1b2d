// A 2-D acoustic wave solver with high-order finite differences, written
// in modern C++ on the host:
//   - the central-difference weights of the second derivative for radii
//     1 to 4 are `constexpr std::array` tables chosen by a constexpr
//     function template; the one in use is copied into __constant__ memory
//     from `std::array::data()`;
//   - the kernel is a template over the radius and the block shape with
//     static_asserts on them, a shared tile with halos loaded by the
//     threads near the edge, `if constexpr` on the radius for a
//     specialised second-order path, and a `constexpr` device helper;
//   - the host holds the grid shape in a `std::array<int, 2>` unpacked with
//     structured bindings, dispatches the radius from a runtime value with a
//     `switch` over instantiations, rotates the three fields through a
//     struct, and checks the result against a CPU version of the same
//     update written with std::inner_product over `std::array` windows.
//
// nvcc-flags: -std=c++17

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <utility>
#include <vector>

#include <cuda_runtime.h>

#define CUDA_CALL(x)                                                                    \
  do {                                                                                  \
    if ((x) != cudaSuccess) {                                                           \
      printf("Error %s at %s:%d\n", cudaGetErrorString(cudaGetLastError()), __FILE__,   \
             __LINE__);                                                                 \
      return EXIT_FAILURE;                                                              \
    }                                                                                   \
  } while (0)

constexpr int kMaxRadius = 4;

// Second-derivative weights, centre first: w[0] * f(0) + sum w[k] (f(k) + f(-k)).
template <int R>
constexpr std::array<float, kMaxRadius + 1> laplacianWeights() {
  static_assert(R >= 1 && R <= kMaxRadius, "radius out of range");
  if constexpr (R == 1) return {-2.0f, 1.0f, 0.0f, 0.0f, 0.0f};
  else if constexpr (R == 2) return {-5.0f / 2, 4.0f / 3, -1.0f / 12, 0.0f, 0.0f};
  else if constexpr (R == 3) return {-49.0f / 18, 3.0f / 2, -3.0f / 20, 1.0f / 90, 0.0f};
  else return {-205.0f / 72, 8.0f / 5, -1.0f / 5, 8.0f / 315, -1.0f / 560};
}

// The weights of each order sum to zero (a constant has no curvature).
static_assert(laplacianWeights<2>()[0] + 2 * (laplacianWeights<2>()[1] + laplacianWeights<2>()[2]) == 0.0f);

__constant__ float c_weights[kMaxRadius + 1];

__host__ __device__ constexpr int idx(int x, int y, int pitch) { return y * pitch + x; }

// next = 2 u - prev + c2 * laplacian(u), interior points only (a border of
// R points stays fixed).
template <int R, int BX, int BY>
__global__ void __launch_bounds__(BX *BY) waveStep(float *__restrict__ next, const float *__restrict__ u,
                                                   const float *__restrict__ prev, int nx, int ny,
                                                   float c2) {
  static_assert(BX >= R && BY >= R, "halo wider than the block");
  static_assert((BX * BY) % 32 == 0, "whole warps");
  __shared__ float tile[BY + 2 * R][BX + 2 * R];

  const int gx = blockIdx.x * BX + threadIdx.x, gy = blockIdx.y * BY + threadIdx.y;
  const int tx = threadIdx.x + R, ty = threadIdx.y + R;
  const bool inside = gx < nx && gy < ny;
  auto load = [&](int sx, int sy, int x, int y) {
    tile[sy][sx] = (x >= 0 && x < nx && y >= 0 && y < ny) ? u[idx(x, y, nx)] : 0.0f;
  };
  load(tx, ty, gx, gy);
  if (threadIdx.x < R) {
    load(tx - R, ty, gx - R, gy);
    load(tx + BX, ty, gx + BX, gy);
  }
  if (threadIdx.y < R) {
    load(tx, ty - R, gx, gy - R);
    load(tx, ty + BY, gx, gy + BY);
  }
  __syncthreads();
  if (!inside || gx < R || gy < R || gx >= nx - R || gy >= ny - R) return;

  float lap;
  if constexpr (R == 1) {
    lap = tile[ty][tx - 1] + tile[ty][tx + 1] + tile[ty - 1][tx] + tile[ty + 1][tx] - 4.0f * tile[ty][tx];
  } else {
    lap = 2.0f * c_weights[0] * tile[ty][tx];
#pragma unroll
    for (int k = 1; k <= R; ++k)
      lap += c_weights[k] * (tile[ty][tx - k] + tile[ty][tx + k] + tile[ty - k][tx] + tile[ty + k][tx]);
  }
  const int i = idx(gx, gy, nx);
  next[i] = 2.0f * tile[ty][tx] - prev[i] + c2 * lap;
}

template <int R>
void stepHost(std::vector<float> &next, const std::vector<float> &u, const std::vector<float> &prev,
              std::array<int, 2> shape, float c2) {
  const auto [nx, ny] = shape;
  constexpr auto w = laplacianWeights<R>();
  for (int y = R; y < ny - R; ++y)
    for (int x = R; x < nx - R; ++x) {
      std::array<float, 2 * R + 1> row, col;
      for (int k = -R; k <= R; ++k) {
        row[k + R] = u[idx(x + k, y, nx)];
        col[k + R] = u[idx(x, y + k, nx)];
      }
      std::array<float, 2 * R + 1> weights{};
      for (int k = 0; k <= R; ++k) weights[R + k] = weights[R - k] = w[k];
      float lap = std::inner_product(row.begin(), row.end(), weights.begin(), 0.0f) +
                  std::inner_product(col.begin(), col.end(), weights.begin(), 0.0f);
      next[idx(x, y, nx)] = 2.0f * u[idx(x, y, nx)] - prev[idx(x, y, nx)] + c2 * lap;
    }
}

struct Fields {
  float *prev, *cur, *next;
};

template <int R>
cudaError_t runOrder(Fields d, std::array<int, 2> shape, int steps, float c2) {
  constexpr auto weights = laplacianWeights<R>();
  cudaError_t err = cudaMemcpyToSymbol(c_weights, weights.data(), sizeof(float) * weights.size());
  if (err != cudaSuccess) return err;
  constexpr int BX = 32, BY = 8;
  const auto [nx, ny] = shape;
  const dim3 block(BX, BY), grid((nx + BX - 1) / BX, (ny + BY - 1) / BY);
  for (int s = 0; s < steps; ++s) {
    waveStep<R, BX, BY><<<grid, block>>>(d.next, d.cur, d.prev, nx, ny, c2);
    Fields rotated{d.cur, d.next, d.prev};
    d = rotated;
  }
  return cudaGetLastError();
}

// The radius is a runtime choice; each case instantiates the solver.
cudaError_t dispatchRadius(int radius, Fields d, std::array<int, 2> shape, int steps, float c2) {
  switch (radius) {
    case 1: return runOrder<1>(d, shape, steps, c2);
    case 2: return runOrder<2>(d, shape, steps, c2);
    case 3: return runOrder<3>(d, shape, steps, c2);
    case kMaxRadius: return runOrder<kMaxRadius>(d, shape, steps, c2);
    default: return cudaErrorInvalidValue;
  }
}

template <int R>
void hostSteps(std::vector<float> &prev, std::vector<float> &cur, std::array<int, 2> shape,
               int steps, float c2) {
  std::vector<float> next(cur);
  for (int s = 0; s < steps; ++s) {
    stepHost<R>(next, cur, prev, shape, c2);
    std::swap(prev, cur);
    std::swap(cur, next);
  }
}

int main(int argc, char **argv) {
  const int radius = argc > 1 ? atoi(argv[1]) : 4;
  const std::array<int, 2> shape{200, 120};
  const auto [nx, ny] = shape;
  const int steps = 6;
  const float c2 = 0.1f;
  const size_t bytes = sizeof(float) * nx * ny;

  std::vector<float> u0(nx * ny, 0.0f);
  for (int y = 0; y < ny; ++y)
    for (int x = 0; x < nx; ++x) {
      float dx = x - nx / 2.0f, dy = y - ny / 2.0f;
      u0[idx(x, y, nx)] = std::exp(-(dx * dx + dy * dy) / 50.0f);
    }

  Fields d{};
  CUDA_CALL(cudaMalloc(&d.prev, bytes));
  CUDA_CALL(cudaMalloc(&d.cur, bytes));
  CUDA_CALL(cudaMalloc(&d.next, bytes));
  CUDA_CALL(cudaMemcpy(d.prev, u0.data(), bytes, cudaMemcpyHostToDevice));
  CUDA_CALL(cudaMemcpy(d.cur, u0.data(), bytes, cudaMemcpyHostToDevice));
  CUDA_CALL(cudaMemcpy(d.next, u0.data(), bytes, cudaMemcpyHostToDevice));
  CUDA_CALL(dispatchRadius(radius, d, shape, steps, c2));
  CUDA_CALL(cudaDeviceSynchronize());

  // After `steps` rotations the newest field is where `cur` ends up.
  float *newest = steps % 3 == 0 ? d.cur : steps % 3 == 1 ? d.next : d.prev;
  std::vector<float> gpu(nx * ny);
  CUDA_CALL(cudaMemcpy(gpu.data(), newest, bytes, cudaMemcpyDeviceToHost));

  std::vector<float> prev(u0), cur(u0);
  switch (radius) {
    case 1: hostSteps<1>(prev, cur, shape, steps, c2); break;
    case 2: hostSteps<2>(prev, cur, shape, steps, c2); break;
    case 3: hostSteps<3>(prev, cur, shape, steps, c2); break;
    default: hostSteps<4>(prev, cur, shape, steps, c2); break;
  }
  float worst = 0.0f;
  for (size_t i = 0; i < gpu.size(); ++i) worst = std::fmax(worst, std::fabs(gpu[i] - cur[i]));
  printf("radius %d, %d x %d, %d steps: max difference %.3g\n", radius, nx, ny, steps, worst);

  cudaFree(d.prev);
  cudaFree(d.cur);
  cudaFree(d.next);
  return worst < 1e-4f ? EXIT_SUCCESS : EXIT_FAILURE;
}
