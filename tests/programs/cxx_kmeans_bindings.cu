// One k-means step over 2-D points, written with C++17 structured bindings
// on both sides: the nearest centroid comes back from a device function as
// a small struct and is unpacked with `auto [dist, best] = ...`, points and
// centroids are unpacked by reference, a range-for over a local array of
// (count, sum) pairs accumulates per-thread partials, and a function
// template unpacks any pair-like accumulator. The host runs the same step
// on the CPU (unpacking std::pair and std::tuple) and compares assignments,
// counts and the new centroids.

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <tuple>
#include <utility>
#include <vector>

#include <cuda_runtime.h>

#define CHECK_CUDA(call)                                                          \
  do {                                                                            \
    cudaError_t err_ = (call);                                                    \
    if (err_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                     \
                   cudaGetErrorString(err_));                                     \
      std::exit(1);                                                               \
    }                                                                             \
  } while (0)

constexpr int K = 4;
constexpr int THREADS = 128;

struct Point {
  float x, y;
};

struct Nearest {
  float dist2;
  int index;
};

struct Partial {
  int count;
  Point sum;
};

__device__ Nearest nearestCentroid(const Point &p, const Point *centroids) {
  Nearest best{1e30f, -1};
  for (int c = 0; c < K; ++c) {
    const auto &[cx, cy] = centroids[c];
    const auto &[px, py] = p;
    float dx = px - cx, dy = py - cy;
    float d2 = dx * dx + dy * dy;
    if (d2 < best.dist2) best = Nearest{d2, c};
  }
  return best;
}

// Adds one pair-like (count, sum) accumulator into another.
template <typename Acc>
__device__ void merge(Acc &into, const Acc &from) {
  auto &[n, s] = into;
  const auto &[m, t] = from;
  n += m;
  s.x += t.x;
  s.y += t.y;
}

// Assigns each point to its nearest centroid; each thread accumulates its
// points in a local table, then adds it to the global sums with atomics.
__global__ void assignPoints(const Point *points, int n, const Point *centroids,
                             int *labels, int *counts, float *sums) {
  Partial local[K];
  for (auto &[count, sum] : local) {
    count = 0;
    sum = Point{0.0f, 0.0f};
  }
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += gridDim.x * blockDim.x) {
    auto [dist2, best] = nearestCentroid(points[i], centroids);
    labels[i] = best;
    merge(local[best], Partial{1, points[i]});
    (void)dist2;
  }
  int c = 0;
  for (const auto &[count, sum] : local) {
    if (count > 0) {
      atomicAdd(&counts[c], count);
      atomicAdd(&sums[2 * c], sum.x);
      atomicAdd(&sums[2 * c + 1], sum.y);
    }
    ++c;
  }
}

// New centroids: the mean of each cluster (an empty one stays put).
__global__ void updateCentroids(Point *centroids, const int *counts, const float *sums) {
  int c = threadIdx.x;
  if (c >= K) return;
  auto &[x, y] = centroids[c];
  int n = counts[c];
  if (n > 0) {
    float s[2] = {sums[2 * c], sums[2 * c + 1]};
    auto [sx, sy] = s;
    x = sx / n;
    y = sy / n;
  }
}

int main() {
  const int n = 5000;
  std::mt19937 rng(7);
  std::normal_distribution<float> noise(0.0f, 0.6f);
  const std::pair<float, float> centers[K] = {{-3, -3}, {3, -3}, {-3, 3}, {3, 3}};
  std::vector<Point> points(n);
  for (int i = 0; i < n; ++i) {
    auto [cx, cy] = centers[i % K];
    points[i] = Point{cx + noise(rng), cy + noise(rng)};
  }
  std::vector<Point> centroids = {{-1, -1}, {1, -1}, {-1, 1}, {1, 1}};

  Point *dPoints, *dCentroids;
  int *dLabels, *dCounts;
  float *dSums;
  CHECK_CUDA(cudaMalloc(&dPoints, n * sizeof(Point)));
  CHECK_CUDA(cudaMalloc(&dCentroids, K * sizeof(Point)));
  CHECK_CUDA(cudaMalloc(&dLabels, n * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&dCounts, K * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&dSums, 2 * K * sizeof(float)));
  CHECK_CUDA(cudaMemcpy(dPoints, points.data(), n * sizeof(Point), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(dCentroids, centroids.data(), K * sizeof(Point),
                        cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemset(dCounts, 0, K * sizeof(int)));
  CHECK_CUDA(cudaMemset(dSums, 0, 2 * K * sizeof(float)));

  assignPoints<<<8, THREADS>>>(dPoints, n, dCentroids, dLabels, dCounts, dSums);
  CHECK_CUDA(cudaGetLastError());
  updateCentroids<<<1, 32>>>(dCentroids, dCounts, dSums);
  CHECK_CUDA(cudaDeviceSynchronize());

  std::vector<int> labels(n), counts(K);
  std::vector<Point> updated(K);
  CHECK_CUDA(cudaMemcpy(labels.data(), dLabels, n * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(counts.data(), dCounts, K * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(updated.data(), dCentroids, K * sizeof(Point), cudaMemcpyDeviceToHost));

  // The same step on the CPU.
  std::vector<std::tuple<int, double, double>> cpu(K, {0, 0.0, 0.0});
  int mislabeled = 0;
  for (int i = 0; i < n; ++i) {
    const auto &[px, py] = points[i];
    std::pair<float, int> best{1e30f, -1};
    for (int c = 0; c < K; ++c) {
      float dx = px - centroids[c].x, dy = py - centroids[c].y;
      float d2 = dx * dx + dy * dy;
      if (d2 < best.first) best = {d2, c};
    }
    auto [d2, label] = best;
    (void)d2;
    mislabeled += label != labels[i];
    auto &[count, sx, sy] = cpu[label];
    ++count;
    sx += px;
    sy += py;
  }
  bool ok = mislabeled == 0;
  for (int c = 0; c < K; ++c) {
    auto [count, sx, sy] = cpu[c];
    ok = ok && count == counts[c];
    if (count > 0) {
      ok = ok && std::fabs(sx / count - updated[c].x) < 1e-3 &&
           std::fabs(sy / count - updated[c].y) < 1e-3;
    }
    std::printf("cluster %d: %d points, centroid (%.3f, %.3f)\n", c, counts[c], updated[c].x,
                updated[c].y);
  }

  cudaFree(dPoints);
  cudaFree(dCentroids);
  cudaFree(dLabels);
  cudaFree(dCounts);
  cudaFree(dSums);
  std::printf("%s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
