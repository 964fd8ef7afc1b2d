// A bottom-up GPU merge sort parameterized by comparator functors, in the
// style of header-only sorting libraries:
//   - comparators as class templates (`Less<T>`, `Greater<T>`) passed as
//     template template parameters (`template <typename> class Cmp`), and a
//     comparator on a record's key built from an accessor functor and a
//     comparator template (`ByAccessor<KeyOf, Greater>`), whose call
//     operator is itself a template;
//   - an insertion sort of each block's slice in shared memory, then merge
//     passes that find each thread's split with a merge-path binary search
//     (`mergePathSearch`), so every thread writes a fixed number of outputs;
//   - stability: equal keys keep their input order (the search takes from
//     the left run on ties), which the host checks with a record's index;
//   - host: `<random>` (`std::mt19937`, distributions), `std::stable_sort`
//     as the reference, `std::is_sorted`.

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <vector>

#include <cuda_runtime.h>

#define CHECK_CUDA(call)                                                                 \
  do {                                                                                   \
    const cudaError_t e = call;                                                          \
    if (e != cudaSuccess) {                                                              \
      printf("%s:%d %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e));        \
      exit(1);                                                                           \
    }                                                                                    \
  } while (false)

template <typename T>
struct Less {
  __host__ __device__ bool operator()(const T &a, const T &b) const { return a < b; }
};

template <typename T>
struct Greater {
  __host__ __device__ bool operator()(const T &a, const T &b) const { return b < a; }
};

struct Record {
  float key;
  int index;
};

struct KeyOf {
  __host__ __device__ float operator()(const Record &r) const { return r.key; }
};

// Orders records by an accessor's value, with an inner comparator on it.
template <typename Get, template <typename> class Cmp>
struct ByAccessor {
  template <typename Rec>
  __host__ __device__ bool operator()(const Rec &a, const Rec &b) const {
    return Cmp<float>()(Get()(a), Get()(b));
  }
};

// The number of elements of the merge of a[0, na) and b[0, nb) that come
// from `a` among its first `diag` outputs (ties taken from `a`).
template <typename T, typename Comp>
__device__ int mergePathSearch(const T *a, int na, const T *b, int nb, int diag, Comp comp) {
  int lo = max(0, diag - nb);
  int hi = min(diag, na);
  while (lo < hi) {
    int mid = (lo + hi) >> 1;
    if (comp(b[diag - 1 - mid], a[mid])) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

// Sorts each block's TILE elements in shared memory: each thread places
// elements by counting those that precede them (a stable rank sort).
template <typename T, int TILE, typename Comp>
__global__ void sortTiles(const T *in, T *out, int n, Comp comp) {
  __shared__ T tile[TILE];
  const int base = blockIdx.x * TILE;
  const int count = min(TILE, n - base);
  for (int i = threadIdx.x; i < count; i += blockDim.x) tile[i] = in[base + i];
  __syncthreads();
  for (int i = threadIdx.x; i < count; i += blockDim.x) {
    const T v = tile[i];
    int rank = 0;
    for (int j = 0; j < count; ++j) {
      const T w = tile[j];
      rank += comp(w, v) || (!comp(v, w) && j < i);
    }
    out[base + rank] = v;
  }
}

// One merge pass: runs of `width` sorted elements are merged pairwise;
// each thread writes `perThread` consecutive outputs.
template <typename T, typename Comp>
__global__ void mergePass(const T *in, T *out, int n, int width, int perThread, Comp comp) {
  const int tid = blockIdx.x * blockDim.x + threadIdx.x;
  const int start = tid * perThread;
  if (start >= n) return;
  const int pairBase = (start / (2 * width)) * (2 * width);
  const T *a = in + pairBase;
  const int na = min(width, n - pairBase);
  const T *b = a + na;
  const int nb = max(0, min(width, n - pairBase - na));
  const int diag = start - pairBase;
  int i = mergePathSearch(a, na, b, nb, diag, comp);
  int j = diag - i;
  const int end = min(start + perThread, pairBase + na + nb);
  for (int k = start; k < end; ++k) {
    const bool takeB = i >= na || (j < nb && comp(b[j], a[i]));
    out[k] = takeB ? b[j++] : a[i++];
  }
}

template <typename T, template <typename> class Cmp>
struct Sorter {
  static constexpr int kTile = 256;
  static constexpr int kPerThread = 8;

  // Sorts d_data in place (d_tmp holds as many elements).
  static void sort(T *d_data, T *d_tmp, int n) { sortWith(d_data, d_tmp, n, Cmp<T>()); }

  template <typename Comp>
  static void sortWith(T *d_data, T *d_tmp, int n, Comp comp) {
    const int tiles = (n + kTile - 1) / kTile;
    sortTiles<T, kTile><<<tiles, 128>>>(d_data, d_tmp, n, comp);
    CHECK_CUDA(cudaGetLastError());
    T *src = d_tmp, *dst = d_data;
    for (int width = kTile; width < n; width *= 2) {
      const int threads = (n + kPerThread - 1) / kPerThread;
      mergePass<<<(threads + 127) / 128, 128>>>(src, dst, n, width, kPerThread, comp);
      CHECK_CUDA(cudaGetLastError());
      std::swap(src, dst);
    }
    if (src != d_data) CHECK_CUDA(cudaMemcpy(d_data, src, n * sizeof(T), cudaMemcpyDeviceToDevice));
  }
};

template <typename T, typename Comp>
static bool sortAndCheck(const char *name, std::vector<T> host, Comp hostComp,
                         void (*sort)(T *, T *, int)) {
  const int n = static_cast<int>(host.size());
  T *d_data, *d_tmp;
  CHECK_CUDA(cudaMalloc(&d_data, n * sizeof(T)));
  CHECK_CUDA(cudaMalloc(&d_tmp, n * sizeof(T)));
  CHECK_CUDA(cudaMemcpy(d_data, host.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  sort(d_data, d_tmp, n);
  std::vector<T> got(n);
  CHECK_CUDA(cudaMemcpy(got.data(), d_data, n * sizeof(T), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaFree(d_data));
  CHECK_CUDA(cudaFree(d_tmp));
  std::stable_sort(host.begin(), host.end(), hostComp);
  const bool ok = std::is_sorted(got.begin(), got.end(), hostComp) &&
                  std::equal(got.begin(), got.end(), host.begin(), [](const T &x, const T &y) {
                    return std::memcmp(&x, &y, sizeof(T)) == 0;
                  });
  printf("%-22s n=%-6d %s\n", name, n, ok ? "ok" : "MISMATCH");
  return ok;
}

static void sortRecordsByKey(Record *d, Record *t, int n) {
  Sorter<Record, Less>::sortWith(d, t, n, ByAccessor<KeyOf, Less>());
}

static void sortRecordsByKeyDescending(Record *d, Record *t, int n) {
  Sorter<Record, Less>::sortWith(d, t, n, ByAccessor<KeyOf, Greater>());
}

int main() {
  std::mt19937 rng(2024);
  std::uniform_int_distribution<int> ints(-1000, 1000);
  std::normal_distribution<float> normal(0.0f, 10.0f);
  std::uniform_int_distribution<int> fewKeys(0, 15);

  std::vector<int> vi(10000);
  for (auto &v : vi) v = ints(rng);
  std::vector<float> vf(7777);
  for (auto &v : vf) v = normal(rng);
  std::vector<Record> recs(5000);
  for (int i = 0; i < static_cast<int>(recs.size()); ++i) recs[i] = Record{static_cast<float>(fewKeys(rng)), i};

  bool ok = true;
  ok &= sortAndCheck("int ascending", vi, std::less<int>(), &Sorter<int, Less>::sort);
  ok &= sortAndCheck("int descending", vi, std::greater<int>(), &Sorter<int, Greater>::sort);
  ok &= sortAndCheck("float ascending", vf, std::less<float>(), &Sorter<float, Less>::sort);
  ok &= sortAndCheck("double descending", std::vector<double>(vf.begin(), vf.end()),
                     std::greater<double>(), &Sorter<double, Greater>::sort);
  ok &= sortAndCheck("records by key", recs,
                     [](const Record &a, const Record &b) { return a.key < b.key; }, &sortRecordsByKey);
  ok &= sortAndCheck("records by key desc", recs,
                     [](const Record &a, const Record &b) { return a.key > b.key; },
                     &sortRecordsByKeyDescending);
  printf("%s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
