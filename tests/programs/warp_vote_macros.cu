// Warp-level statistics over ragged segments, the kernels stamped out by
// a macro per element type: each warp handles one segment, lanes past
// the segment's end return early, and the survivors find their peers
// with __activemask() before voting (__ballot_sync, __any_sync,
// __all_sync) and reducing by shuffles. On sm_80 and later the integer
// minimum uses __reduce_min_sync; older GPUs shuffle.

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_OK(call)                                                                   \
  if ((call) != cudaSuccess) {                                                          \
    printf("%s failed at line %d: %s\n", #call, __LINE__, cudaGetErrorString(cudaGetLastError())); \
    exit(EXIT_FAILURE);                                                                 \
  }

struct SegmentStats {
  int count;      // active lanes that saw an element
  int negatives;  // elements below zero
  int anyZero;    // some element is zero
  int allSmall;   // every element has magnitude below 100
  int firstNeg;   // lane of the first negative element, -1 if none
};

template <typename T>
static __device__ __forceinline__ T shuffleMax(unsigned mask, T v, int leader) {
  for (int o = 16; o > 0; o >>= 1) {
    T other = __shfl_xor_sync(mask, v, o);
    int peer = (threadIdx.x & 31) ^ o;
    if ((mask >> peer) & 1u) v = other > v ? other : v;
  }
  return __shfl_sync(mask, v, leader);
}

static __device__ __forceinline__ int warpMinInt(unsigned mask, int v, int leader) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  (void)leader;
  return __reduce_min_sync(mask, v);
#else
  for (int o = 16; o > 0; o >>= 1) {
    int other = __shfl_xor_sync(mask, v, o);
    int peer = (threadIdx.x & 31) ^ o;
    if ((mask >> peer) & 1u) v = min(v, other);
  }
  return __shfl_sync(mask, v, leader);
#endif
}

#define DEFINE_SEGMENT_KERNEL(NAME, T, ABS)                                                  \
  __global__ void NAME(const T *data, const int *offsets, int segments, SegmentStats *stats, \
                       T *maxima, int *minIndex) {                                           \
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;                                 \
    int lane = threadIdx.x & 31;                                                             \
    if (warp >= segments) return;                                                            \
    int begin = offsets[warp], end = offsets[warp + 1];                                      \
    if (begin + lane >= end) return;                                                         \
    unsigned mask = __activemask();                                                          \
    int leader = __ffs(mask) - 1;                                                            \
    T best = data[begin + lane];                                                             \
    int index = begin + lane;                                                                \
    bool negative = false, zero = false, small = true;                                       \
    for (int i = begin + lane; i < end; i += 32) {                                           \
      T v = data[i];                                                                         \
      negative |= v < T(0);                                                                  \
      zero |= v == T(0);                                                                     \
      small &= ABS(v) < T(100);                                                              \
      if (v > best) {                                                                        \
        best = v;                                                                            \
        index = i;                                                                           \
      }                                                                                      \
    }                                                                                        \
    unsigned negLanes = __ballot_sync(mask, negative);                                       \
    T mine = best;                                                                           \
    best = shuffleMax(mask, best, leader);                                                   \
    index = warpMinInt(mask, mine == best ? index : INT_MAX, leader);                        \
    int anyZero = __any_sync(mask, zero);                                                    \
    int allSmall = __all_sync(mask, small);                                                  \
    if (lane == leader) {                                                                    \
      stats[warp].count = __popc(mask);                                                      \
      stats[warp].negatives = __popc(negLanes);                                              \
      stats[warp].anyZero = anyZero;                                                         \
      stats[warp].allSmall = allSmall;                                                       \
      stats[warp].firstNeg = negLanes ? __ffs(negLanes) - 1 : -1;                            \
      maxima[warp] = best;                                                                   \
      minIndex[warp] = index;                                                                \
    }                                                                                        \
  }

DEFINE_SEGMENT_KERNEL(segmentStatsInt, int, abs)
DEFINE_SEGMENT_KERNEL(segmentStatsFloat, float, fabsf)
DEFINE_SEGMENT_KERNEL(segmentStatsDouble, double, fabs)

template <typename T, typename Launch>
static int runCase(const char *name, Launch launch, int segments) {
  std::vector<int> offsets(segments + 1, 0);
  for (int s = 0; s < segments; ++s) offsets[s + 1] = offsets[s] + 1 + (s * 7) % 70;
  const int n = offsets[segments];
  std::vector<T> h(n);
  for (int i = 0; i < n; ++i) h[i] = T((i * 37) % 211 - 60) / T(i % 3 == 0 ? 1 : 2);
  T *d, *dmax;
  int *doff, *didx;
  SegmentStats *dstats;
  CUDA_OK(cudaMalloc(&d, n * sizeof(T)));
  CUDA_OK(cudaMalloc(&doff, (segments + 1) * sizeof(int)));
  CUDA_OK(cudaMalloc(&dstats, segments * sizeof(SegmentStats)));
  CUDA_OK(cudaMalloc(&dmax, segments * sizeof(T)));
  CUDA_OK(cudaMalloc(&didx, segments * sizeof(int)));
  CUDA_OK(cudaMemcpy(d, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(doff, offsets.data(), (segments + 1) * sizeof(int), cudaMemcpyHostToDevice));
  launch((segments * 32 + 127) / 128, 128, d, doff, segments, dstats, dmax, didx);
  CUDA_OK(cudaGetLastError());
  std::vector<SegmentStats> stats(segments);
  std::vector<T> maxima(segments);
  std::vector<int> idx(segments);
  CUDA_OK(cudaMemcpy(stats.data(), dstats, segments * sizeof(SegmentStats), cudaMemcpyDeviceToHost));
  CUDA_OK(cudaMemcpy(maxima.data(), dmax, segments * sizeof(T), cudaMemcpyDeviceToHost));
  CUDA_OK(cudaMemcpy(idx.data(), didx, segments * sizeof(int), cudaMemcpyDeviceToHost));
  cudaFree(d);
  cudaFree(doff);
  cudaFree(dstats);
  cudaFree(dmax);
  cudaFree(didx);

  int errors = 0;
  for (int s = 0; s < segments; ++s) {
    int b = offsets[s], e = offsets[s + 1], lanes = std::min(32, e - b);
    unsigned neg = 0;
    bool zero = false, small = true;
    T best = h[b];
    for (int i = b; i < e; ++i) {
      if (h[i] < T(0)) neg |= 1u << ((i - b) % 32);
      zero |= h[i] == T(0);
      small &= (h[i] < T(0) ? -h[i] : h[i]) < T(100);
      best = std::max(best, h[i]);
    }
    int first = int(std::find(h.begin() + b, h.begin() + e, best) - h.begin());
    const SegmentStats &st = stats[s];
    errors += st.count != lanes || st.negatives != __builtin_popcount(neg) || st.anyZero != zero ||
              st.allSmall != small || st.firstNeg != (neg ? __builtin_ctz(neg) : -1) ||
              maxima[s] != best || idx[s] != first;
  }
  printf("%-6s %d segments, %d errors\n", name, segments, errors);
  return errors;
}

int main() {
  int errors = 0;
  errors += runCase<int>("int", [](int g, int b, const int *d, const int *o, int s, SegmentStats *st, int *m,
                                   int *i) { segmentStatsInt<<<g, b>>>(d, o, s, st, m, i); }, 100);
  errors += runCase<float>("float", [](int g, int b, const float *d, const int *o, int s, SegmentStats *st,
                                       float *m, int *i) { segmentStatsFloat<<<g, b>>>(d, o, s, st, m, i); }, 77);
  errors += runCase<double>("double", [](int g, int b, const double *d, const int *o, int s, SegmentStats *st,
                                         double *m, int *i) { segmentStatsDouble<<<g, b>>>(d, o, s, st, m, i); }, 50);
  printf("%s\n", errors ? "FAILED" : "PASSED");
  return errors ? 1 : 0;
}
