// Uniform-grid neighbour search, the way particle samples pair Thrust with
// their own kernels:
//   - positions live in raw cudaMalloc memory wrapped by
//     thrust::device_pointer_cast for the library calls, and handed to the
//     kernels as plain pointers from thrust::raw_pointer_cast of
//     device_vectors;
//   - a kernel hashes each particle to its cell; thrust::sequence and
//     thrust::sort_by_key order the particle indices by cell;
//   - a kernel finds each cell's start and end by comparing neighbouring
//     keys through a shared-memory array offset by one (the previous
//     thread's key), after a cudaMemset of the starts to 0xff;
//   - a kernel reorders the positions, and one counts the neighbours within
//     a radius by visiting the 27 surrounding cells;
//   - thrust::transform with a __host__ __device__ functor and
//     thrust::reduce give the mean count, thrust::count_if the isolated ones.
// The host checks the counts by brute force.

#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>
#include <thrust/count.h>
#include <thrust/device_ptr.h>
#include <thrust/device_vector.h>
#include <thrust/functional.h>
#include <thrust/reduce.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/transform.h>

#define cudaCheck(ans) gpuAssert((ans), __FILE__, __LINE__)
inline void gpuAssert(cudaError_t code, const char *file, int line, bool abort = true) {
  if (code != cudaSuccess) {
    fprintf(stderr, "GPUassert: %s %s %d\n", cudaGetErrorString(code), file, line);
    if (abort) exit(code);
  }
}

#define GRID_SIZE 16
#define EMPTY_CELL 0xffffffffu

__device__ __host__ inline int3 cellOf(float4 p, float cellSize) {
  return make_int3((int)floorf(p.x / cellSize), (int)floorf(p.y / cellSize), (int)floorf(p.z / cellSize));
}

// Cells wrap around the grid, so every coordinate has a cell.
__device__ __host__ inline unsigned cellHash(int3 c) {
  int x = c.x & (GRID_SIZE - 1), y = c.y & (GRID_SIZE - 1), z = c.z & (GRID_SIZE - 1);
  return (unsigned)((z * GRID_SIZE + y) * GRID_SIZE + x);
}

__global__ void hashParticles(unsigned *cellKeys, const float4 *pos, float cellSize, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) cellKeys[i] = cellHash(cellOf(pos[i], cellSize));
}

// Sorted keys: a cell starts where the key differs from the previous one.
__global__ void findCellBounds(unsigned *cellStart, unsigned *cellEnd, float4 *sortedPos,
                               const unsigned *cellKeys, const unsigned *order, const float4 *pos,
                               int n) {
  extern __shared__ unsigned sharedKeys[];  // blockDim.x + 1
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned key = 0;
  if (i < n) {
    key = cellKeys[i];
    sharedKeys[threadIdx.x + 1] = key;
    if (i > 0 && threadIdx.x == 0) sharedKeys[0] = cellKeys[i - 1];
  }
  __syncthreads();
  if (i < n) {
    if (i == 0 || key != sharedKeys[threadIdx.x]) {
      cellStart[key] = i;
      if (i > 0) cellEnd[sharedKeys[threadIdx.x]] = i;
    }
    if (i == n - 1) cellEnd[key] = i + 1;
    sortedPos[i] = pos[order[i]];
  }
}

__global__ void countNeighbours(unsigned *counts, const float4 *sortedPos, const unsigned *order,
                                const unsigned *cellStart, const unsigned *cellEnd, float cellSize,
                                float radius, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float4 p = sortedPos[i];
  int3 c = cellOf(p, cellSize);
  unsigned count = 0;
  for (int dz = -1; dz <= 1; ++dz)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) {
        unsigned h = cellHash(make_int3(c.x + dx, c.y + dy, c.z + dz));
        unsigned start = cellStart[h];
        if (start == EMPTY_CELL) continue;
        for (unsigned j = start; j < cellEnd[h]; ++j) {
          if (j == (unsigned)i) continue;
          float4 q = sortedPos[j];
          float ddx = q.x - p.x, ddy = q.y - p.y, ddz = q.z - p.z;
          count += ddx * ddx + ddy * ddy + ddz * ddz < radius * radius;
        }
      }
  counts[order[i]] = count;
}

struct ToFloat {
  __host__ __device__ float operator()(unsigned c) const { return (float)c; }
};

struct IsZero {
  __host__ __device__ bool operator()(unsigned c) const { return c == 0; }
};

int main() {
  const int n = 4000;
  const float cellSize = 1.0f, radius = 0.9f;  // the world is the grid, [0, 16)^3
  std::vector<float4> host(n);
  srand(11);
  for (auto &p : host)
    p = make_float4(GRID_SIZE * (rand() / (RAND_MAX + 1.0f)), GRID_SIZE * (rand() / (RAND_MAX + 1.0f)),
                    GRID_SIZE * (rand() / (RAND_MAX + 1.0f)), 1.0f);

  float4 *dPos;
  cudaCheck(cudaMalloc(&dPos, n * sizeof(float4)));
  cudaCheck(cudaMemcpy(dPos, host.data(), n * sizeof(float4), cudaMemcpyHostToDevice));
  thrust::device_ptr<float4> posBegin = thrust::device_pointer_cast(dPos);
  printf("first particle w = %.1f\n", ((float4)posBegin[0]).w);

  const int cells = GRID_SIZE * GRID_SIZE * GRID_SIZE;
  thrust::device_vector<unsigned> keys(n), order(n), counts(n), start(cells), end(cells);
  thrust::device_vector<float4> sorted(n);
  const int threads = 128, blocks = (n + threads - 1) / threads;

  hashParticles<<<blocks, threads>>>(thrust::raw_pointer_cast(keys.data()), dPos, cellSize, n);
  cudaCheck(cudaGetLastError());
  thrust::sequence(order.begin(), order.end());
  thrust::sort_by_key(keys.begin(), keys.end(), order.begin());
  cudaCheck(cudaMemset(thrust::raw_pointer_cast(start.data()), 0xff, cells * sizeof(unsigned)));
  findCellBounds<<<blocks, threads, (threads + 1) * sizeof(unsigned)>>>(
      thrust::raw_pointer_cast(start.data()), thrust::raw_pointer_cast(end.data()),
      thrust::raw_pointer_cast(sorted.data()), thrust::raw_pointer_cast(keys.data()),
      thrust::raw_pointer_cast(order.data()), dPos, n);
  countNeighbours<<<blocks, threads>>>(
      thrust::raw_pointer_cast(counts.data()), thrust::raw_pointer_cast(sorted.data()),
      thrust::raw_pointer_cast(order.data()), thrust::raw_pointer_cast(start.data()),
      thrust::raw_pointer_cast(end.data()), cellSize, radius, n);
  cudaCheck(cudaGetLastError());

  thrust::device_vector<float> asFloat(n);
  thrust::transform(counts.begin(), counts.end(), asFloat.begin(), ToFloat());
  float mean = thrust::reduce(asFloat.begin(), asFloat.end(), 0.0f, thrust::plus<float>()) / n;
  long isolated = thrust::count_if(counts.begin(), counts.end(), IsZero());

  std::vector<unsigned> gpu(n);
  thrust::copy(counts.begin(), counts.end(), gpu.begin());
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    unsigned c = 0;
    for (int j = 0; j < n; ++j) {
      float dx = host[j].x - host[i].x, dy = host[j].y - host[i].y, dz = host[j].z - host[i].z;
      c += j != i && dx * dx + dy * dy + dz * dz < radius * radius;
    }
    bad += c != gpu[i];
  }
  printf("mean neighbours %.3f, isolated %ld, mismatches %d\n", mean, isolated, bad);
  cudaCheck(cudaFree(dPos));
  return bad == 0 ? 0 : 1;
}
