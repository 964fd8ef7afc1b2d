// Breadth-first search, level-synchronous with an explicit frontier queue:
// each level, one thread per frontier vertex scans its adjacency list in
// CSR form and claims unvisited neighbours with atomicCAS on their level,
// appending them to the next queue with atomicAdd. Benchmark-suite style:
// a synthetic graph (or its size from the command line), timing, and a
// CPU BFS as the check.
//
// usage: bench_bfs [vertices] [average_degree]

#include <cstdio>
#include <algorithm>
#include <cstdlib>
#include <queue>
#include <vector>

#include <cuda_runtime.h>

#define CUDA_SAFE_CALL(call)                                                        \
  do {                                                                              \
    cudaError_t err = call;                                                         \
    if (cudaSuccess != err) {                                                       \
      fprintf(stderr, "Cuda error in file '%s' in line %i : %s.\n", __FILE__, __LINE__, \
              cudaGetErrorString(err));                                             \
      exit(EXIT_FAILURE);                                                           \
    }                                                                               \
  } while (0)

#define UNVISITED -1
#define MAX_THREADS_PER_BLOCK 512

__global__ void bfsExpand(const int *__restrict__ rowOffsets, const int *__restrict__ adjacency,
                          int *levels, const int *__restrict__ frontier, int frontierSize,
                          int *nextFrontier, int *nextSize, int depth) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= frontierSize) return;
  int v = frontier[tid];
  for (int e = rowOffsets[v]; e < rowOffsets[v + 1]; ++e) {
    int u = adjacency[e];
    // Exactly one thread wins the claim, so u is queued once.
    if (atomicCAS(&levels[u], UNVISITED, depth + 1) == UNVISITED) {
      int slot = atomicAdd(nextSize, 1);
      nextFrontier[slot] = u;
    }
  }
}

__global__ void bfsInit(int *levels, int n, int source) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) levels[i] = (i == source) ? 0 : UNVISITED;
}

static void buildGraph(int n, int degree, std::vector<int> &offsets, std::vector<int> &adj) {
  // Undirected random graph with a ring so that everything is connected.
  std::vector<std::vector<int>> lists(n);
  unsigned s = 2463534242u;
  auto next = [&s]() { s ^= s << 13; s ^= s >> 17; s ^= s << 5; return s; };
  for (int v = 0; v < n; ++v) {
    int w = (v + 1) % n;
    lists[v].push_back(w);
    lists[w].push_back(v);
    for (int k = 1; k < degree / 2; ++k) {
      int u = (int)(next() % n);
      if (u == v) continue;
      lists[v].push_back(u);
      lists[u].push_back(v);
    }
  }
  offsets.assign(n + 1, 0);
  for (int v = 0; v < n; ++v) offsets[v + 1] = offsets[v] + (int)lists[v].size();
  adj.resize(offsets[n]);
  for (int v = 0; v < n; ++v)
    std::copy(lists[v].begin(), lists[v].end(), adj.begin() + offsets[v]);
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1 << 20;
  int degree = argc > 2 ? atoi(argv[2]) : 8;
  if (n < 2 || degree < 2) {
    fprintf(stderr, "usage: %s [vertices>=2] [average_degree>=2]\n", argv[0]);
    return 1;
  }
  std::vector<int> offsets, adj;
  buildGraph(n, degree, offsets, adj);
  int edges = (int)adj.size();
  printf("graph: %d vertices, %d directed edges\n", n, edges);

  int *d_offsets, *d_adj, *d_levels, *d_queueA, *d_queueB, *d_nextSize;
  CUDA_SAFE_CALL(cudaMalloc(&d_offsets, (n + 1) * sizeof(int)));
  CUDA_SAFE_CALL(cudaMalloc(&d_adj, edges * sizeof(int)));
  CUDA_SAFE_CALL(cudaMalloc(&d_levels, n * sizeof(int)));
  CUDA_SAFE_CALL(cudaMalloc(&d_queueA, n * sizeof(int)));
  CUDA_SAFE_CALL(cudaMalloc(&d_queueB, n * sizeof(int)));
  CUDA_SAFE_CALL(cudaMalloc(&d_nextSize, sizeof(int)));
  CUDA_SAFE_CALL(cudaMemcpy(d_offsets, offsets.data(), (n + 1) * sizeof(int), cudaMemcpyHostToDevice));
  CUDA_SAFE_CALL(cudaMemcpy(d_adj, adj.data(), edges * sizeof(int), cudaMemcpyHostToDevice));

  const int source = 0;
  cudaEvent_t start, stop;
  CUDA_SAFE_CALL(cudaEventCreate(&start));
  CUDA_SAFE_CALL(cudaEventCreate(&stop));
  CUDA_SAFE_CALL(cudaEventRecord(start));

  bfsInit<<<(n + MAX_THREADS_PER_BLOCK - 1) / MAX_THREADS_PER_BLOCK, MAX_THREADS_PER_BLOCK>>>(d_levels, n, source);
  CUDA_SAFE_CALL(cudaMemcpy(d_queueA, &source, sizeof(int), cudaMemcpyHostToDevice));
  int frontierSize = 1, depth = 0;
  while (frontierSize > 0) {
    CUDA_SAFE_CALL(cudaMemset(d_nextSize, 0, sizeof(int)));
    int blocks = (frontierSize + MAX_THREADS_PER_BLOCK - 1) / MAX_THREADS_PER_BLOCK;
    bfsExpand<<<blocks, MAX_THREADS_PER_BLOCK>>>(d_offsets, d_adj, d_levels, d_queueA,
                                                 frontierSize, d_queueB, d_nextSize, depth);
    CUDA_SAFE_CALL(cudaGetLastError());
    CUDA_SAFE_CALL(cudaMemcpy(&frontierSize, d_nextSize, sizeof(int), cudaMemcpyDeviceToHost));
    std::swap(d_queueA, d_queueB);
    ++depth;
  }
  CUDA_SAFE_CALL(cudaEventRecord(stop));
  CUDA_SAFE_CALL(cudaEventSynchronize(stop));
  float ms;
  CUDA_SAFE_CALL(cudaEventElapsedTime(&ms, start, stop));
  printf("GPU BFS: %d levels in %.3f ms\n", depth, ms);

  std::vector<int> levels(n);
  CUDA_SAFE_CALL(cudaMemcpy(levels.data(), d_levels, n * sizeof(int), cudaMemcpyDeviceToHost));

  std::vector<int> ref(n, UNVISITED);
  std::queue<int> q;
  ref[source] = 0;
  q.push(source);
  while (!q.empty()) {
    int v = q.front();
    q.pop();
    for (int e = offsets[v]; e < offsets[v + 1]; ++e)
      if (ref[adj[e]] == UNVISITED) {
        ref[adj[e]] = ref[v] + 1;
        q.push(adj[e]);
      }
  }
  int mismatches = 0;
  for (int v = 0; v < n; ++v) mismatches += levels[v] != ref[v];
  printf("%d vertices with a different level than the CPU BFS\n", mismatches);

  cudaFree(d_offsets); cudaFree(d_adj); cudaFree(d_levels);
  cudaFree(d_queueA); cudaFree(d_queueB); cudaFree(d_nextSize);
  printf("%s\n", mismatches == 0 ? "PASS" : "FAIL");
  return mismatches != 0;
}
