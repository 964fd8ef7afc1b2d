// Column statistics (min, max, mean) of a row-major table, organized the way
// larger code bases are: one namespace per layer, an anonymous namespace for
// file-local device helpers, `namespace cg = cooperative_groups` with tiled
// partitions and cg::reduce, an enum class naming the statistic, and the
// identities taken from cuda::std::numeric_limits so device code needs no
// relaxed-constexpr flag.

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <numeric>
#include <random>
#include <vector>

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda/std/limits>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

#define CHECK(call)                                                                       \
  do {                                                                                    \
    const cudaError_t status = (call);                                                    \
    if (status != cudaSuccess) {                                                          \
      std::cerr << __FILE__ << ":" << __LINE__ << ": " << cudaGetErrorString(status)      \
                << std::endl;                                                             \
      std::exit(1);                                                                       \
    }                                                                                     \
  } while (false)

namespace tablestats {

enum class Statistic : int { Min = 0, Max = 1, Mean = 2 };
constexpr int kStatistics = 3;

struct ColumnSummary {
  float min;
  float max;
  float mean;
};

namespace device {
namespace {

__device__ float identity(Statistic s) {
  switch (s) {
    case Statistic::Min: return cuda::std::numeric_limits<float>::max();
    case Statistic::Max: return cuda::std::numeric_limits<float>::lowest();
    default: return 0.0f;
  }
}

template <class Group>
__device__ float combine(const Group &g, float v, Statistic s) {
  switch (s) {
    case Statistic::Min: return cg::reduce(g, v, cg::less<float>());
    case Statistic::Max: return cg::reduce(g, v, cg::greater<float>());
    default: return cg::reduce(g, v, cg::plus<float>());
  }
}

} // namespace

// One block per column; each warp-sized tile walks a strided share of the
// rows, then tile leaders combine through shared memory.
__global__ void columnStatistic(const float *table, int rows, int cols, Statistic s, float *out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  __shared__ float perTile[32];

  const int col = blockIdx.x;
  float acc = identity(s);
  for (int r = block.thread_rank(); r < rows; r += block.size()) {
    float v = table[size_t(r) * cols + col];
    acc = s == Statistic::Min ? fminf(acc, v) : s == Statistic::Max ? fmaxf(acc, v) : acc + v;
  }
  acc = combine(tile, acc, s);
  if (tile.thread_rank() == 0) perTile[tile.meta_group_rank()] = acc;
  block.sync();

  if (tile.meta_group_rank() == 0) {
    float v = tile.thread_rank() < tile.meta_group_size() ? perTile[tile.thread_rank()] : identity(s);
    v = combine(tile, v, s);
    if (tile.thread_rank() == 0)
      out[col * kStatistics + static_cast<int>(s)] = s == Statistic::Mean ? v / rows : v;
  }
}

} // namespace device

namespace host {

std::vector<ColumnSummary> summarize(const std::vector<float> &table, int rows, int cols) {
  float *dTable = nullptr, *dOut = nullptr;
  CHECK(cudaMalloc(&dTable, table.size() * sizeof(float)));
  CHECK(cudaMalloc(&dOut, size_t(cols) * kStatistics * sizeof(float)));
  CHECK(cudaMemcpy(dTable, table.data(), table.size() * sizeof(float), cudaMemcpyHostToDevice));
  for (Statistic s : {Statistic::Min, Statistic::Max, Statistic::Mean}) {
    device::columnStatistic<<<cols, 256>>>(dTable, rows, cols, s, dOut);
    CHECK(cudaGetLastError());
  }
  std::vector<float> flat(size_t(cols) * kStatistics);
  CHECK(cudaMemcpy(flat.data(), dOut, flat.size() * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(dTable));
  CHECK(cudaFree(dOut));
  std::vector<ColumnSummary> result(cols);
  for (int c = 0; c < cols; ++c)
    result[c] = {flat[c * kStatistics], flat[c * kStatistics + 1], flat[c * kStatistics + 2]};
  return result;
}

} // namespace host
} // namespace tablestats

int main() {
  using namespace std;
  using tablestats::ColumnSummary;
  const int rows = 5000, cols = 12;
  vector<float> table(size_t(rows) * cols);
  mt19937 rng(2024);
  for (int c = 0; c < cols; ++c) {
    normal_distribution<float> dist(float(c), 1.0f + c);
    for (int r = 0; r < rows; ++r) table[size_t(r) * cols + c] = dist(rng);
  }

  vector<ColumnSummary> gpu = tablestats::host::summarize(table, rows, cols);
  int bad = 0;
  for (int c = 0; c < cols; ++c) {
    float lo = numeric_limits<float>::max(), hi = numeric_limits<float>::lowest();
    double sum = 0;
    for (int r = 0; r < rows; ++r) {
      float v = table[size_t(r) * cols + c];
      lo = min(lo, v);
      hi = max(hi, v);
      sum += v;
    }
    float mean = float(sum / rows);
    bool ok = gpu[c].min == lo && gpu[c].max == hi && abs(gpu[c].mean - mean) < 1e-3f;
    printf("column %2d: min %8.3f max %8.3f mean %7.3f %s\n", c, gpu[c].min, gpu[c].max,
           gpu[c].mean, ok ? "" : "MISMATCH");
    bad += !ok;
  }
  cout << (bad == 0 ? "PASSED" : "FAILED") << endl;
  return bad == 0 ? 0 : 1;
}
