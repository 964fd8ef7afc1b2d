// Multi-block inclusive scan (prefix sums and running maxima) built on the
// BlockScan class template of a small header library, found with -I as a
// build system would pass it. Three passes: scan each block and record its
// total, scan the block totals in one block, then add each block's carry.
//
// nvcc-flags: -I tests/programs/cxx_scan/include

#include <algorithm>
#include <numeric>
#include <random>
#include <stdexcept>
#include <vector>

#include <scan/block_scan.cuh>
#include <scan/host_utils.hpp>
#include <scan/operators.cuh>

constexpr int kThreads = 256;

template <class T, class Op>
__global__ void scanBlocks(const T *in, T *out, T *blockTotals, int n) {
  using Scan = scan::BlockScan<T, kThreads, Op>;
  __shared__ typename Scan::TempStorage storage;
  int i = blockIdx.x * kThreads + threadIdx.x;
  T total;
  T value = Scan(storage).inclusive(i < n ? in[i] : Op::template identity<T>(), total);
  if (i < n) out[i] = value;
  if (threadIdx.x == 0 && blockTotals != nullptr) blockTotals[blockIdx.x] = total;
}

template <class T, class Op>
__global__ void addCarries(T *out, const T *scannedTotals, int n) {
  int i = blockIdx.x * kThreads + threadIdx.x;
  if (blockIdx.x > 0 && i < n) out[i] = Op()(scannedTotals[blockIdx.x - 1], out[i]);
}

template <class T, class Op>
std::vector<T> deviceScan(const std::vector<T> &input) {
  const int n = static_cast<int>(input.size());
  const int blocks = (n + kThreads - 1) / kThreads;
  if (blocks > kThreads) throw std::runtime_error("input too long for a two-level scan");
  T *dIn, *dOut, *dTotals;
  SCAN_CHECK(cudaMalloc(&dIn, n * sizeof(T)));
  SCAN_CHECK(cudaMalloc(&dOut, n * sizeof(T)));
  SCAN_CHECK(cudaMalloc(&dTotals, blocks * sizeof(T)));
  SCAN_CHECK(cudaMemcpy(dIn, input.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  {
    scan::ScopedTimer timer("three-pass scan");
    scanBlocks<T, Op><<<blocks, kThreads>>>(dIn, dOut, dTotals, n);
    scanBlocks<T, Op><<<1, kThreads>>>(dTotals, dTotals, nullptr, blocks);
    addCarries<T, Op><<<blocks, kThreads>>>(dOut, dTotals, n);
    SCAN_CHECK(cudaGetLastError());
    SCAN_CHECK(cudaDeviceSynchronize());
  }
  std::vector<T> output(n);
  SCAN_CHECK(cudaMemcpy(output.data(), dOut, n * sizeof(T), cudaMemcpyDeviceToHost));
  SCAN_CHECK(cudaFree(dIn));
  SCAN_CHECK(cudaFree(dOut));
  SCAN_CHECK(cudaFree(dTotals));
  return output;
}

int main() {
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> dist(-50, 100);
  std::vector<int> data(50000);
  std::generate(data.begin(), data.end(), [&] { return dist(rng); });

  std::vector<int> sums(data.size()), maxima(data.size());
  std::partial_sum(data.begin(), data.end(), sums.begin());
  std::partial_sum(data.begin(), data.end(), maxima.begin(), [](int a, int b) { return std::max(a, b); });

  bool ok = deviceScan<int, scan::Sum>(data) == sums;
  ok = deviceScan<int, scan::Max>(data) == maxima && ok;

  std::vector<long long> wide(data.begin(), data.end());
  std::vector<long long> wideSums(wide.size());
  std::partial_sum(wide.begin(), wide.end(), wideSums.begin());
  ok = deviceScan<long long, scan::Sum>(wide) == wideSums && ok;

  std::printf("%s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
