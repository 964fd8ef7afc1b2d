// Lennard-Jones forces for a small molecular-dynamics box, in the style of
// MD engines' CUDA back ends: a Vec3<T> class template with arithmetic
// operators and friend functions (dot, norm2), the pair potential as a
// functor with a cutoff, a cell list built with atomics (count, scan on the
// host, fill), and a force kernel over the 27 neighbouring cells with
// __restrict__ pointers, __ldg loads, #pragma unroll and double-precision
// accumulation. A direct all-pairs kernel gives the reference the cell
// kernel is checked against on the device; the host checks both against a
// CPU sum and checks that the total force vanishes (Newton's third law).

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <vector>

#include <cuda_runtime.h>

#define CUDA_CHECK(stmt)                                                                 \
  do {                                                                                   \
    cudaError_t rc_ = (stmt);                                                            \
    if (rc_ != cudaSuccess) {                                                            \
      std::fprintf(stderr, "[%s:%d] %s -> %s\n", __FILE__, __LINE__, #stmt,              \
                   cudaGetErrorString(rc_));                                             \
      std::exit(2);                                                                      \
    }                                                                                    \
  } while (0)

namespace md {

template <typename T>
class Vec3 {
 public:
  T x, y, z;

  __host__ __device__ Vec3() : x(0), y(0), z(0) {}
  __host__ __device__ Vec3(T x_, T y_, T z_) : x(x_), y(y_), z(z_) {}
  template <typename U>
  __host__ __device__ explicit Vec3(const Vec3<U> &o) : x(T(o.x)), y(T(o.y)), z(T(o.z)) {}

  __host__ __device__ Vec3 &operator+=(const Vec3 &o) {
    x += o.x;
    y += o.y;
    z += o.z;
    return *this;
  }
  __host__ __device__ Vec3 &operator-=(const Vec3 &o) {
    x -= o.x;
    y -= o.y;
    z -= o.z;
    return *this;
  }
  __host__ __device__ Vec3 operator-() const { return Vec3(-x, -y, -z); }

  friend __host__ __device__ Vec3 operator+(Vec3 a, const Vec3 &b) { return a += b; }
  friend __host__ __device__ Vec3 operator-(Vec3 a, const Vec3 &b) { return a -= b; }
  friend __host__ __device__ Vec3 operator*(T s, const Vec3 &v) { return Vec3(s * v.x, s * v.y, s * v.z); }
  friend __host__ __device__ T dot(const Vec3 &a, const Vec3 &b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
  friend __host__ __device__ T norm2(const Vec3 &v) { return dot(v, v); }
};

using float3v = Vec3<float>;
using double3v = Vec3<double>;

// The nearest image of a separation in a cubic periodic box.
template <typename T>
__host__ __device__ inline Vec3<T> minimumImage(Vec3<T> d, T box) {
  d.x -= box * rint(d.x / box);
  d.y -= box * rint(d.y / box);
  d.z -= box * rint(d.z / box);
  return d;
}

struct LennardJones {
  float epsilon, sigma, cutoff2;

  // Force on the first particle divided by the separation (F = f * r) for
  // a separation of squared length r2; zero beyond the cutoff.
  __host__ __device__ float operator()(float r2) const {
    if (r2 >= cutoff2) return 0.0f;
    const float s2 = sigma * sigma / r2;
    const float s6 = s2 * s2 * s2;
    return 24.0f * epsilon * s6 * (2.0f * s6 - 1.0f) / r2;
  }
};

struct CellGrid {
  int perSide;
  float box;
  __host__ __device__ int cellOf(const float3v &p) const {
    const float scale = perSide / box;
    int cx = min(static_cast<int>(p.x * scale), perSide - 1);
    int cy = min(static_cast<int>(p.y * scale), perSide - 1);
    int cz = min(static_cast<int>(p.z * scale), perSide - 1);
    return (cz * perSide + cy) * perSide + cx;
  }
  __host__ __device__ int wrap(int c) const { return (c + perSide) % perSide; }
};

__device__ inline float3v loadPosition(const float *__restrict__ pos, int i) {
  return float3v(__ldg(pos + 3 * i), __ldg(pos + 3 * i + 1), __ldg(pos + 3 * i + 2));
}

__global__ void countCells(const float *__restrict__ pos, int n, CellGrid grid, int *__restrict__ counts,
                           int *__restrict__ cellOfAtom) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int c = grid.cellOf(loadPosition(pos, i));
  cellOfAtom[i] = c;
  atomicAdd(&counts[c], 1);
}

__global__ void fillCells(const int *__restrict__ cellOfAtom, int n, const int *__restrict__ cellStart,
                          int *__restrict__ cursor, int *__restrict__ cellAtoms) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int c = cellOfAtom[i];
  cellAtoms[cellStart[c] + atomicAdd(&cursor[c], 1)] = i;
}

__global__ void forcesCellList(const float *__restrict__ pos, int n, CellGrid grid,
                               const int *__restrict__ cellStart, const int *__restrict__ cellAtoms,
                               LennardJones lj, float *__restrict__ force, double *__restrict__ energy) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float3v pi = loadPosition(pos, i);
  const int home = grid.cellOf(pi);
  const int side = grid.perSide;
  const int hx = home % side, hy = (home / side) % side, hz = home / (side * side);
  double3v acc;
  double pairs = 0.0;
#pragma unroll
  for (int dz = -1; dz <= 1; ++dz) {
#pragma unroll
    for (int dy = -1; dy <= 1; ++dy) {
#pragma unroll
      for (int dx = -1; dx <= 1; ++dx) {
        const int c = (grid.wrap(hz + dz) * side + grid.wrap(hy + dy)) * side + grid.wrap(hx + dx);
        for (int k = cellStart[c]; k < cellStart[c + 1]; ++k) {
          const int j = __ldg(cellAtoms + k);
          if (j == i) continue;
          const float3v d = minimumImage(pi - loadPosition(pos, j), grid.box);
          const float f = lj(norm2(d));
          acc += double3v(f * d);
          pairs += f != 0.0f ? 1.0 : 0.0;
        }
      }
    }
  }
  force[3 * i] = static_cast<float>(acc.x);
  force[3 * i + 1] = static_cast<float>(acc.y);
  force[3 * i + 2] = static_cast<float>(acc.z);
  atomicAdd(energy, pairs);
}

__global__ void forcesAllPairs(const float *__restrict__ pos, int n, float box, float epsilon, float sigma,
                               float cutoff, float *__restrict__ force) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const LennardJones lj{epsilon, sigma, cutoff * cutoff};
  const float3v pi = loadPosition(pos, i);
  double3v acc;
  for (int j = 0; j < n; ++j) {
    if (j == i) continue;
    const float3v d = minimumImage(pi - loadPosition(pos, j), box);
    acc += double3v(lj(norm2(d)) * d);
  }
  force[3 * i] = static_cast<float>(acc.x);
  force[3 * i + 1] = static_cast<float>(acc.y);
  force[3 * i + 2] = static_cast<float>(acc.z);
}

}  // namespace md

// ---- host -------------------------------------------------------------------------

// Atoms on a jittered lattice, so no two start too close together.
static std::vector<float> latticePositions(int perSide, float box, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> jitter(-0.1f, 0.1f);
  const float spacing = box / perSide;
  std::vector<float> pos;
  for (int z = 0; z < perSide; ++z)
    for (int y = 0; y < perSide; ++y)
      for (int x = 0; x < perSide; ++x) {
        const float p[3] = {(x + 0.5f) * spacing, (y + 0.5f) * spacing, (z + 0.5f) * spacing};
        for (float c : p) pos.push_back(std::fmod(c + jitter(rng) * spacing + box, box));
      }
  return pos;
}

static std::vector<float> forcesOnHost(const std::vector<float> &pos, float box, const md::LennardJones &lj) {
  const int n = static_cast<int>(pos.size() / 3);
  std::vector<float> f(pos.size());
  for (int i = 0; i < n; ++i) {
    md::double3v acc;
    const md::float3v pi(pos[3 * i], pos[3 * i + 1], pos[3 * i + 2]);
    for (int j = 0; j < n; ++j) {
      if (j == i) continue;
      const md::float3v pj(pos[3 * j], pos[3 * j + 1], pos[3 * j + 2]);
      const md::float3v d = md::minimumImage(pi - pj, box);
      acc += md::double3v(lj(norm2(d)) * d);
    }
    f[3 * i] = static_cast<float>(acc.x);
    f[3 * i + 1] = static_cast<float>(acc.y);
    f[3 * i + 2] = static_cast<float>(acc.z);
  }
  return f;
}

static int compareForces(const char *what, const std::vector<float> &got, const std::vector<float> &want) {
  int bad = 0;
  double net[3] = {0, 0, 0};
  for (size_t k = 0; k < got.size(); ++k) {
    net[k % 3] += got[k];
    if (std::fabs(got[k] - want[k]) > 1e-3f * (1.0f + std::fabs(want[k]))) ++bad;
  }
  const double drift = std::sqrt(net[0] * net[0] + net[1] * net[1] + net[2] * net[2]);
  std::printf("%-10s %d components wrong, |sum F| = %.3e\n", what, bad, drift);
  return bad + (drift > 1e-2 ? 1 : 0);
}

int main() {
  const int perSide = 12;
  const float box = 14.0f;
  const int n = perSide * perSide * perSide;
  const md::LennardJones lj{1.0f, 1.0f, 2.5f * 2.5f};
  const md::CellGrid grid{static_cast<int>(box / 2.5f), box};
  const int cells = grid.perSide * grid.perSide * grid.perSide;
  const std::vector<float> pos = latticePositions(perSide, box, 7u);

  float *dPos, *dForce, *dForceRef;
  int *dCounts, *dCellOf, *dStart, *dCursor, *dAtoms;
  double *dPairs;
  CUDA_CHECK(cudaMalloc(&dPos, pos.size() * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&dForce, pos.size() * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&dForceRef, pos.size() * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&dCounts, cells * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&dCursor, cells * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&dStart, (cells + 1) * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&dCellOf, n * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&dAtoms, n * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&dPairs, sizeof(double)));
  CUDA_CHECK(cudaMemcpy(dPos, pos.data(), pos.size() * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(dCounts, 0, cells * sizeof(int)));
  CUDA_CHECK(cudaMemset(dCursor, 0, cells * sizeof(int)));
  CUDA_CHECK(cudaMemset(dPairs, 0, sizeof(double)));

  const int threads = 128, blocks = (n + threads - 1) / threads;
  md::countCells<<<blocks, threads>>>(dPos, n, grid, dCounts, dCellOf);
  CUDA_CHECK(cudaGetLastError());
  std::vector<int> counts(cells), start(cells + 1, 0);
  CUDA_CHECK(cudaMemcpy(counts.data(), dCounts, cells * sizeof(int), cudaMemcpyDeviceToHost));
  std::partial_sum(counts.begin(), counts.end(), start.begin() + 1);
  CUDA_CHECK(cudaMemcpy(dStart, start.data(), (cells + 1) * sizeof(int), cudaMemcpyHostToDevice));
  md::fillCells<<<blocks, threads>>>(dCellOf, n, dStart, dCursor, dAtoms);
  CUDA_CHECK(cudaGetLastError());

  cudaEvent_t t0, t1;
  CUDA_CHECK(cudaEventCreate(&t0));
  CUDA_CHECK(cudaEventCreate(&t1));
  CUDA_CHECK(cudaEventRecord(t0));
  md::forcesCellList<<<blocks, threads>>>(dPos, n, grid, dStart, dAtoms, lj, dForce, dPairs);
  CUDA_CHECK(cudaEventRecord(t1));
  CUDA_CHECK(cudaGetLastError());
  md::forcesAllPairs<<<blocks, threads>>>(dPos, n, box, lj.epsilon, lj.sigma, std::sqrt(lj.cutoff2), dForceRef);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaEventSynchronize(t1));
  float ms = 0.0f;
  CUDA_CHECK(cudaEventElapsedTime(&ms, t0, t1));

  std::vector<float> cellForces(pos.size()), pairForces(pos.size());
  double pairs = 0.0;
  CUDA_CHECK(cudaMemcpy(cellForces.data(), dForce, pos.size() * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(pairForces.data(), dForceRef, pos.size() * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(&pairs, dPairs, sizeof(double), cudaMemcpyDeviceToHost));
  std::printf("%d atoms, %d cells, %.0f interacting pairs, cell-list kernel %.3f ms\n", n, cells, pairs / 2, ms);

  const std::vector<float> reference = forcesOnHost(pos, box, lj);
  int failures = compareForces("cell list", cellForces, reference);
  failures += compareForces("all pairs", pairForces, reference);

  for (void *p : {static_cast<void *>(dPos), static_cast<void *>(dForce), static_cast<void *>(dForceRef),
                  static_cast<void *>(dCounts), static_cast<void *>(dCursor), static_cast<void *>(dStart),
                  static_cast<void *>(dCellOf), static_cast<void *>(dAtoms), static_cast<void *>(dPairs)})
    CUDA_CHECK(cudaFree(p));
  std::puts(failures == 0 ? "OK" : "MISMATCH");
  return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
