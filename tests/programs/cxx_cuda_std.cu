// libcu++ (`cuda::std::`) in device code, as libraries that share headers
// between host and device write it instead of hand-rolled structs:
//   - `cuda::std::array<float, N>` as a per-thread register tile, passed to
//     and returned from functions, walked with range-for and `size()`;
//   - `cuda::std::tuple` returned from a device function and unpacked with
//     `cuda::std::get<I>` and `cuda::std::tie`;
//   - `cuda::std::pair` of (value, index) for an arg-min;
//   - `cuda::std::complex<float>` arithmetic for a Mandelbrot escape count;
//   - `cuda::std::min`/`max`, `cuda::std::numeric_limits`, `cuda::std::swap`.
// The host repeats each computation with `std::` and compares.
//
// nvcc-flags: -std=c++17

#include <algorithm>
#include <complex>
#include <cstdio>
#include <limits>
#include <numeric>
#include <tuple>
#include <vector>

#include <cuda/std/algorithm>
#include <cuda/std/array>
#include <cuda/std/complex>
#include <cuda/std/limits>
#include <cuda/std/tuple>
#include <cuda/std/utility>

#include <cuda_runtime.h>

#define CK(x)                                                                    \
  do {                                                                           \
    cudaError_t s = (x);                                                         \
    if (s != cudaSuccess) {                                                      \
      std::printf("%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(s));     \
      return 1;                                                                  \
    }                                                                            \
  } while (0)

constexpr int kTile = 8;
using Tile = cuda::std::array<float, kTile>;

// Loads kTile consecutive values (zero past the end).
__device__ Tile loadTile(const float *p, int n) {
  Tile t{};
  for (int k = 0; k < kTile; ++k) t[k] = k < n ? p[k] : 0.0f;
  return t;
}

// Sum, minimum and maximum of a tile, as one tuple.
__device__ cuda::std::tuple<float, float, float> tileStats(const Tile &t) {
  float sum = 0.0f;
  float lo = cuda::std::numeric_limits<float>::max();
  float hi = cuda::std::numeric_limits<float>::lowest();
  for (float v : t) {
    sum += v;
    lo = cuda::std::min(lo, v);
    hi = cuda::std::max(hi, v);
  }
  return cuda::std::make_tuple(sum, lo, hi);
}

// Each thread summarizes one tile of `in`: stats[3*i + {0,1,2}].
__global__ void tileSummary(const float *in, float *stats, int n) {
  int tile = blockIdx.x * blockDim.x + threadIdx.x;
  int base = tile * kTile;
  if (base >= n) return;
  Tile t = loadTile(in + base, n - base);
  float sum, lo;
  cuda::std::tie(sum, lo, cuda::std::ignore) = tileStats(t);
  stats[3 * tile + 0] = sum;
  stats[3 * tile + 1] = lo;
  stats[3 * tile + 2] = cuda::std::get<2>(tileStats(t));
}

// Sorts each tile in registers (odd-even transposition with swap) and
// writes it back.
__global__ void sortTiles(float *data, int n) {
  int base = (blockIdx.x * blockDim.x + threadIdx.x) * kTile;
  if (base + kTile > n) return;
  Tile t = loadTile(data + base, kTile);
  for (size_t round = 0; round < t.size(); ++round) {
    for (size_t k = round & 1; k + 1 < t.size(); k += 2) {
      if (t[k + 1] < t[k]) cuda::std::swap(t[k], t[k + 1]);
    }
  }
  for (int k = 0; k < kTile; ++k) data[base + k] = t[k];
}

// The nearest centroid of each point (1-D), as a (distance, index) pair.
__global__ void nearest(const float *points, const float *centroids, int k, int *best, float *dist, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  cuda::std::pair<float, int> m{cuda::std::numeric_limits<float>::infinity(), -1};
  for (int c = 0; c < k; ++c) {
    float d = fabsf(points[i] - centroids[c]);
    if (d < m.first) m = cuda::std::make_pair(d, c);
  }
  best[i] = m.second;
  dist[i] = m.first;
}

__global__ void mandelbrot(int *counts, int width, int height, int maxIter) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  using C = cuda::std::complex<float>;
  const C c(-2.0f + 2.5f * x / width, -1.25f + 2.5f * y / height);
  C z(0.0f, 0.0f);
  int it = 0;
  while (it < maxIter && cuda::std::norm(z) <= 4.0f) {
    z = z * z + c;
    ++it;
  }
  counts[y * width + x] = it;
}

int main() {
  const int n = 4096, k = 5, w = 64, h = 48, maxIter = 64;
  std::vector<float> in(n), cent = {-3.f, -1.f, 0.5f, 2.f, 4.f};
  for (int i = 0; i < n; ++i) in[i] = static_cast<float>((i * 7919) % 1000) / 100.0f - 5.0f;

  float *dIn, *dStats, *dSorted, *dCent, *dDist;
  int *dBest, *dCounts;
  const int tiles = (n + kTile - 1) / kTile;
  CK(cudaMalloc(&dIn, n * sizeof(float)));
  CK(cudaMalloc(&dSorted, n * sizeof(float)));
  CK(cudaMalloc(&dStats, 3 * tiles * sizeof(float)));
  CK(cudaMalloc(&dCent, k * sizeof(float)));
  CK(cudaMalloc(&dDist, n * sizeof(float)));
  CK(cudaMalloc(&dBest, n * sizeof(int)));
  CK(cudaMalloc(&dCounts, w * h * sizeof(int)));
  CK(cudaMemcpy(dIn, in.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dSorted, in.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dCent, cent.data(), k * sizeof(float), cudaMemcpyHostToDevice));

  tileSummary<<<(tiles + 127) / 128, 128>>>(dIn, dStats, n);
  sortTiles<<<(tiles + 127) / 128, 128>>>(dSorted, n);
  nearest<<<(n + 255) / 256, 256>>>(dIn, dCent, k, dBest, dDist, n);
  mandelbrot<<<dim3((w + 15) / 16, (h + 15) / 16), dim3(16, 16)>>>(dCounts, w, h, maxIter);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());

  std::vector<float> stats(3 * tiles), sorted(n), dist(n);
  std::vector<int> best(n), counts(w * h);
  CK(cudaMemcpy(stats.data(), dStats, stats.size() * sizeof(float), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(sorted.data(), dSorted, n * sizeof(float), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(dist.data(), dDist, n * sizeof(float), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(best.data(), dBest, n * sizeof(int), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(counts.data(), dCounts, counts.size() * sizeof(int), cudaMemcpyDeviceToHost));

  int errors = 0;
  for (int t = 0; t < tiles; ++t) {
    auto first = in.begin() + t * kTile, last = first + kTile;
    float sum = std::accumulate(first, last, 0.0f);
    auto [lo, hi] = std::minmax_element(first, last);
    if (std::abs(stats[3 * t] - sum) > 1e-4f * (1 + std::abs(sum)) || stats[3 * t + 1] != *lo ||
        stats[3 * t + 2] != *hi)
      ++errors;
    std::vector<float> want(first, last);
    std::sort(want.begin(), want.end());
    if (!std::equal(want.begin(), want.end(), sorted.begin() + t * kTile)) ++errors;
  }
  for (int i = 0; i < n; ++i) {
    auto it = std::min_element(cent.begin(), cent.end(), [&](float a, float b) {
      return std::abs(in[i] - a) < std::abs(in[i] - b);
    });
    if (best[i] != static_cast<int>(it - cent.begin())) ++errors;
  }
  int mismatched = 0;
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      std::complex<float> c(-2.0f + 2.5f * x / w, -1.25f + 2.5f * y / h), z(0.0f, 0.0f);
      int it = 0;
      while (it < maxIter && std::norm(z) <= 4.0f) {
        z = z * z + c;
        ++it;
      }
      mismatched += counts[y * w + x] != it;
    }
  }
  // Points near the set's edge may escape one step apart.
  if (mismatched > w * h / 50) ++errors;

  std::printf("cuda::std: %s (%d errors, %d boundary pixels differ)\n", errors ? "FAILED" : "PASSED",
              errors, mismatched);
  cudaFree(dIn);
  cudaFree(dSorted);
  cudaFree(dStats);
  cudaFree(dCent);
  cudaFree(dDist);
  cudaFree(dBest);
  cudaFree(dCounts);
  return errors != 0;
}
