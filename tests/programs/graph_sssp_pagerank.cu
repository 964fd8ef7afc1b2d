// Graph analytics over CSR, in the style of GPU graph libraries' examples:
//   - single-source shortest paths by data-driven Bellman-Ford: a frontier
//     of vertices whose distance changed, edges relaxed with atomicMin and
//     the next frontier marked with atomicExch on per-vertex flags; edge
//     arrays read through __ldg with const __restrict__ pointers;
//   - a vertex-per-warp variant for high-degree vertices (lanes stride
//     over the neighbour list);
//   - PageRank, pull-based over the transposed graph, the dangling mass
//     summed with a warp reduction and one atomicAdd per warp, the L1
//     change accumulated the same way, iterating to a tolerance.
// The host builds a random graph with a few hubs, checks SSSP against
// Dijkstra on a std::priority_queue and PageRank against its own power
// iteration.
//
// nvcc-flags: -std=c++17

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <functional>
#include <numeric>
#include <queue>
#include <random>
#include <tuple>
#include <utility>
#include <vector>

#include <cuda_runtime.h>

#define CUDA_TRY(call)                                                                  \
  do {                                                                                  \
    cudaError_t const status = (call);                                                  \
    if (cudaSuccess != status) {                                                        \
      std::fprintf(stderr, "CUDA error %s:%d: '%s' %s\n", __FILE__, __LINE__, #call,    \
                   cudaGetErrorString(status));                                         \
      std::exit(1);                                                                     \
    }                                                                                   \
  } while (false)

using vertex_t = int;
using edge_t = int;
using weight_t = int;
constexpr weight_t kInfinity = INT_MAX;

// Relaxes the out-edges of every frontier vertex; a vertex whose distance
// drops is flagged for the next round.
__global__ void relaxFrontier(const edge_t *__restrict__ offsets, const vertex_t *__restrict__ indices,
                             const weight_t *__restrict__ weights, weight_t *distances,
                             const int *__restrict__ frontier, int *nextFrontier, int *anyChanged,
                             vertex_t numVertices) {
  vertex_t u = blockIdx.x * blockDim.x + threadIdx.x;
  if (u >= numVertices || !frontier[u]) return;
  weight_t du = distances[u];
  for (edge_t e = __ldg(&offsets[u]); e < __ldg(&offsets[u + 1]); ++e) {
    vertex_t v = __ldg(&indices[e]);
    weight_t candidate = du + __ldg(&weights[e]);
    if (candidate < atomicMin(&distances[v], candidate)) {
      atomicExch(&nextFrontier[v], 1);
      *anyChanged = 1;
    }
  }
}

// The same relaxation with one warp per vertex.
__global__ void relaxFrontierWarp(const edge_t *__restrict__ offsets,
                                  const vertex_t *__restrict__ indices,
                                  const weight_t *__restrict__ weights, weight_t *distances,
                                  const int *__restrict__ frontier, int *nextFrontier,
                                  int *anyChanged, vertex_t numVertices) {
  const int lane = threadIdx.x & 31;
  vertex_t u = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  if (u >= numVertices || !frontier[u]) return;
  weight_t du = distances[u];
  bool improved = false;
  for (edge_t e = __ldg(&offsets[u]) + lane; e < __ldg(&offsets[u + 1]); e += 32) {
    vertex_t v = __ldg(&indices[e]);
    weight_t candidate = du + __ldg(&weights[e]);
    if (candidate < atomicMin(&distances[v], candidate)) {
      nextFrontier[v] = 1;
      improved = true;
    }
  }
  if (__any_sync(__activemask(), improved) && lane == 0) atomicOr(anyChanged, 1);
}

__device__ __forceinline__ float warpReduceSum(float v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffff, v, offset);
  return v;
}

// contrib[v] = rank[v] / outDegree[v]; the rank of vertices without
// out-edges is summed into *dangling.
__global__ void prepareContributions(float *__restrict__ contrib, float *dangling,
                                     const float *__restrict__ rank,
                                     const edge_t *__restrict__ outOffsets, vertex_t n) {
  vertex_t v = blockIdx.x * blockDim.x + threadIdx.x;
  float lost = 0.0f;
  if (v < n) {
    edge_t degree = outOffsets[v + 1] - outOffsets[v];
    contrib[v] = degree > 0 ? rank[v] / degree : 0.0f;
    lost = degree > 0 ? 0.0f : rank[v];
  }
  lost = warpReduceSum(lost);
  if ((threadIdx.x & 31) == 0 && lost != 0.0f) atomicAdd(dangling, lost);
}

// rank'[v] = (1 - d) / n + d * (sum of in-neighbour contributions +
// dangling / n); *delta += |rank' - rank|.
__global__ void pullRanks(float *__restrict__ nextRank, float *delta, const float *__restrict__ rank,
                          const float *__restrict__ contrib, const edge_t *__restrict__ inOffsets,
                          const vertex_t *__restrict__ inIndices, const float *__restrict__ dangling,
                          float damping, vertex_t n) {
  vertex_t v = blockIdx.x * blockDim.x + threadIdx.x;
  float change = 0.0f;
  if (v < n) {
    float sum = 0.0f;
    for (edge_t e = inOffsets[v]; e < inOffsets[v + 1]; ++e) sum += __ldg(&contrib[__ldg(&inIndices[e])]);
    float r = (1.0f - damping) / n + damping * (sum + *dangling / n);
    nextRank[v] = r;
    change = fabsf(r - rank[v]);
  }
  change = warpReduceSum(change);
  if ((threadIdx.x & 31) == 0) atomicAdd(delta, change);
}

struct Csr {
  std::vector<edge_t> offsets;
  std::vector<vertex_t> indices;
  std::vector<weight_t> weights;
};

using Edge = std::tuple<vertex_t, vertex_t, weight_t>;

static Csr toCsr(std::vector<Edge> edges, vertex_t n, bool transpose) {
  if (transpose)
    for (auto &[s, d, w] : edges) std::swap(s, d);
  std::sort(edges.begin(), edges.end());
  Csr g;
  g.offsets.assign(n + 1, 0);
  for (const auto &[s, d, w] : edges) {
    g.offsets[s + 1]++;
    g.indices.push_back(d);
    g.weights.push_back(w);
  }
  std::partial_sum(g.offsets.begin(), g.offsets.end(), g.offsets.begin());
  return g;
}

static std::vector<weight_t> dijkstra(const Csr &g, vertex_t source) {
  std::vector<weight_t> dist(g.offsets.size() - 1, kInfinity);
  using Item = std::pair<weight_t, vertex_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> queue;
  dist[source] = 0;
  queue.push({0, source});
  while (!queue.empty()) {
    auto [d, u] = queue.top();
    queue.pop();
    if (d > dist[u]) continue;
    for (edge_t e = g.offsets[u]; e < g.offsets[u + 1]; ++e) {
      vertex_t v = g.indices[e];
      if (d + g.weights[e] < dist[v]) {
        dist[v] = d + g.weights[e];
        queue.push({dist[v], v});
      }
    }
  }
  return dist;
}

template <typename T>
T *toDevice(const std::vector<T> &host) {
  T *ptr = nullptr;
  CUDA_TRY(cudaMalloc(&ptr, std::max<size_t>(1, host.size()) * sizeof(T)));
  CUDA_TRY(cudaMemcpy(ptr, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  return ptr;
}

int main() {
  const vertex_t n = 4096;
  std::mt19937 rng(42);
  std::uniform_int_distribution<vertex_t> pick(0, n - 1);
  std::uniform_int_distribution<weight_t> weight(1, 20);
  std::vector<Edge> edges;
  for (vertex_t u = 0; u < n; ++u)
    for (int k = 0; k < 4; ++k) edges.emplace_back(u, pick(rng), weight(rng));
  for (vertex_t hub = 0; hub < 8; ++hub)
    for (int k = 0; k < 400; ++k) edges.emplace_back(hub * 97, pick(rng), weight(rng));
  const Csr out = toCsr(edges, n, false), in = toCsr(edges, n, true);

  edge_t *dOffsets = toDevice(out.offsets), *dInOffsets = toDevice(in.offsets);
  vertex_t *dIndices = toDevice(out.indices), *dInIndices = toDevice(in.indices);
  weight_t *dWeights = toDevice(out.weights);

  // SSSP from vertex 0, alternating the two relaxation kernels.
  std::vector<weight_t> dist(n, kInfinity);
  dist[0] = 0;
  std::vector<int> frontier(n, 0);
  frontier[0] = 1;
  weight_t *dDist = toDevice(dist);
  int *dFrontier = toDevice(frontier), *dNext = toDevice(std::vector<int>(n, 0));
  int *dChanged = toDevice(std::vector<int>(1, 0));
  const int threads = 256;
  int rounds = 0, changed = 1;
  while (changed) {
    CUDA_TRY(cudaMemset(dChanged, 0, sizeof(int)));
    CUDA_TRY(cudaMemset(dNext, 0, n * sizeof(int)));
    if (rounds % 2 == 0)
      relaxFrontier<<<(n + threads - 1) / threads, threads>>>(dOffsets, dIndices, dWeights, dDist,
                                                              dFrontier, dNext, dChanged, n);
    else
      relaxFrontierWarp<<<(n * 32 + threads - 1) / threads, threads>>>(
          dOffsets, dIndices, dWeights, dDist, dFrontier, dNext, dChanged, n);
    CUDA_TRY(cudaGetLastError());
    CUDA_TRY(cudaMemcpy(&changed, dChanged, sizeof(int), cudaMemcpyDeviceToHost));
    std::swap(dFrontier, dNext);
    ++rounds;
  }
  CUDA_TRY(cudaMemcpy(dist.data(), dDist, n * sizeof(weight_t), cudaMemcpyDeviceToHost));
  const bool ssspOk = dist == dijkstra(out, 0);
  printf("sssp: %d rounds, %s\n", rounds, ssspOk ? "matches Dijkstra" : "MISMATCH");

  // PageRank.
  const float damping = 0.85f;
  std::vector<float> rank(n, 1.0f / n);
  float *dRank = toDevice(rank), *dNextRank = toDevice(rank), *dContrib = toDevice(rank);
  float *dScalars = toDevice(std::vector<float>(2, 0.0f));  // dangling, delta
  int iterations = 0;
  for (float delta = 1.0f; delta > 1e-6f && iterations < 100; ++iterations) {
    CUDA_TRY(cudaMemset(dScalars, 0, 2 * sizeof(float)));
    prepareContributions<<<(n + threads - 1) / threads, threads>>>(dContrib, dScalars, dRank,
                                                                   dOffsets, n);
    pullRanks<<<(n + threads - 1) / threads, threads>>>(dNextRank, dScalars + 1, dRank, dContrib,
                                                        dInOffsets, dInIndices, dScalars, damping, n);
    CUDA_TRY(cudaMemcpy(&delta, dScalars + 1, sizeof(float), cudaMemcpyDeviceToHost));
    std::swap(dRank, dNextRank);
  }
  CUDA_TRY(cudaMemcpy(rank.data(), dRank, n * sizeof(float), cudaMemcpyDeviceToHost));

  std::vector<double> ref(n, 1.0 / n), next(n);
  for (int it = 0; it < iterations; ++it) {
    double dangling = 0;
    for (vertex_t v = 0; v < n; ++v)
      if (out.offsets[v + 1] == out.offsets[v]) dangling += ref[v];
    std::fill(next.begin(), next.end(), (1.0 - damping) / n + damping * dangling / n);
    for (vertex_t u = 0; u < n; ++u) {
      edge_t degree = out.offsets[u + 1] - out.offsets[u];
      for (edge_t e = out.offsets[u]; e < out.offsets[u + 1]; ++e)
        next[out.indices[e]] += damping * ref[u] / degree;
    }
    ref.swap(next);
  }
  double worst = 0;
  for (vertex_t v = 0; v < n; ++v) worst = std::max(worst, std::fabs(rank[v] - ref[v]));
  printf("pagerank: %d iterations, max error %.3g\n", iterations, worst);

  for (void *p : {(void *)dOffsets, (void *)dInOffsets, (void *)dIndices, (void *)dInIndices,
                  (void *)dWeights, (void *)dDist, (void *)dFrontier, (void *)dNext,
                  (void *)dChanged, (void *)dRank, (void *)dNextRank, (void *)dContrib,
                  (void *)dScalars})
    CUDA_TRY(cudaFree(p));
  return ssspOk && worst < 1e-5 ? 0 : 1;
}
