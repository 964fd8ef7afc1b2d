// Order-preserving integer keys for floating-point values, as radix sorts
// and top-k selections need them: the bits of a float or double are read
// through a union (and through __float_as_uint / __double_as_longlong),
// the sign flipped so that unsigned comparison orders like the numbers,
// then bucketed by their top bits into a histogram. The key traits are a
// class template specialized for float and double, with constexpr masks;
// a constexpr table of bucket widths sits in constant memory; static
// __device__ helpers do the bit work; `if constexpr` picks the intrinsic.
//
// nvcc-flags: -std=c++17

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <type_traits>
#include <vector>

#ifdef __CUDACC__
#define KEYS_HD __host__ __device__
#else
#define KEYS_HD
#endif

namespace keys {

template <typename T>
struct KeyTraits;

template <>
struct KeyTraits<float> {
  using Bits = uint32_t;
  static constexpr Bits kSign = 0x80000000u;
  static constexpr int kBits = 32;
};

template <>
struct KeyTraits<double> {
  using Bits = unsigned long long;
  static constexpr Bits kSign = 0x8000000000000000ull;
  static constexpr int kBits = 64;
};

template <typename T>
union Pun {
  T value;
  typename KeyTraits<T>::Bits bits;
};

// Negative numbers: flip every bit; positive ones: flip the sign bit.
template <typename T>
KEYS_HD inline typename KeyTraits<T>::Bits toOrderedBits(T v) {
  using Traits = KeyTraits<T>;
  Pun<T> p;
  p.value = v;
  typename Traits::Bits mask = (p.bits & Traits::kSign) ? ~typename Traits::Bits(0) : Traits::kSign;
  return p.bits ^ mask;
}

template <typename T>
KEYS_HD inline T fromOrderedBits(typename KeyTraits<T>::Bits b) {
  using Traits = KeyTraits<T>;
  typename Traits::Bits mask = (b & Traits::kSign) ? Traits::kSign : ~typename Traits::Bits(0);
  Pun<T> p;
  p.bits = b ^ mask;
  return p.value;
}

}  // namespace keys

constexpr int kBucketBits[4] = {4, 6, 8, 10};
__constant__ int c_bucketBits[4] = {kBucketBits[0], kBucketBits[1], kBucketBits[2], kBucketBits[3]};

static __device__ __forceinline__ unsigned topBits32(uint32_t key, int bits) { return key >> (32 - bits); }

static __device__ __forceinline__ unsigned topBits64(unsigned long long key, int bits) {
  return static_cast<unsigned>(key >> (64 - bits));
}

// Through the intrinsics instead of the union: the same keys.
template <typename T>
static __device__ auto orderedBitsIntrinsic(T v) {
  if constexpr (std::is_same_v<T, float>) {
    uint32_t b = __float_as_uint(v);
    return b ^ ((b >> 31) ? 0xffffffffu : 0x80000000u);
  } else {
    static_assert(std::is_same_v<T, double>, "float or double keys only");
    unsigned long long b = static_cast<unsigned long long>(__double_as_longlong(v));
    return b ^ ((b >> 63) ? ~0ull : 0x8000000000000000ull);
  }
}

template <typename T>
__global__ void makeKeys(typename keys::KeyTraits<T>::Bits *out, const T *in, int n, int *mismatches) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  auto k = keys::toOrderedBits(in[i]);
  if (k != orderedBitsIntrinsic(in[i]) || keys::fromOrderedBits<T>(k) != in[i]) atomicAdd(mismatches, 1);
  out[i] = k;
}

// Histogram of the top c_bucketBits[level] bits, in shared memory first.
template <typename T>
__global__ void bucketHistogram(unsigned *hist, const typename keys::KeyTraits<T>::Bits *k, int n, int level) {
  extern __shared__ unsigned s_hist[];
  const int bits = c_bucketBits[level];
  const int buckets = 1 << bits;
  for (int b = threadIdx.x; b < buckets; b += blockDim.x) s_hist[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    unsigned b;
    if constexpr (keys::KeyTraits<T>::kBits == 32)
      b = topBits32(k[i], bits);
    else
      b = topBits64(k[i], bits);
    atomicAdd(&s_hist[b], 1u);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < buckets; b += blockDim.x)
    if (s_hist[b]) atomicAdd(&hist[b], s_hist[b]);
}

template <typename T>
static int check(int n, int level) {
  using Bits = typename keys::KeyTraits<T>::Bits;
  std::vector<T> h(n);
  for (int i = 0; i < n; ++i) h[i] = T((i * 2654435761u) % 20011) / T(97) - T(103.0) + (i % 5 == 0 ? T(-0.0) : T(0));
  T *d_in;
  Bits *d_keys;
  unsigned *d_hist;
  int *d_bad;
  const int buckets = 1 << kBucketBits[level];
  cudaMalloc(&d_in, n * sizeof(T));
  cudaMalloc(&d_keys, n * sizeof(Bits));
  cudaMalloc(&d_hist, buckets * sizeof(unsigned));
  cudaMalloc(&d_bad, sizeof(int));
  cudaMemcpy(d_in, h.data(), n * sizeof(T), cudaMemcpyHostToDevice);
  cudaMemset(d_hist, 0, buckets * sizeof(unsigned));
  cudaMemset(d_bad, 0, sizeof(int));
  makeKeys<T><<<(n + 127) / 128, 128>>>(d_keys, d_in, n, d_bad);
  bucketHistogram<T><<<16, 256, buckets * sizeof(unsigned)>>>(d_hist, d_keys, n, level);
  std::vector<Bits> k(n);
  std::vector<unsigned> hist(buckets);
  int bad = 0;
  cudaMemcpy(k.data(), d_keys, n * sizeof(Bits), cudaMemcpyDeviceToHost);
  cudaMemcpy(hist.data(), d_hist, buckets * sizeof(unsigned), cudaMemcpyDeviceToHost);
  cudaMemcpy(&bad, d_bad, sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(d_in);
  cudaFree(d_keys);
  cudaFree(d_hist);
  cudaFree(d_bad);
  if (cudaGetLastError() != cudaSuccess) return 1;

  std::vector<unsigned> want(buckets, 0);
  for (int i = 0; i < n; ++i) {
    Bits kb = keys::toOrderedBits(h[i]);
    if (kb != k[i]) ++bad;
    ++want[static_cast<size_t>(kb >> (keys::KeyTraits<T>::kBits - kBucketBits[level]))];
    // keys order like the values they came from
    if (i > 0 && (h[i - 1] < h[i]) != (k[i - 1] < k[i]) && h[i - 1] != h[i]) ++bad;
  }
  for (int b = 0; b < buckets; ++b) bad += hist[b] != want[b];
  std::printf("%s keys, %d buckets: %d errors\n", sizeof(T) == 4 ? "float" : "double", buckets, bad);
  return bad;
}

int main() {
  int errors = check<float>(50000, 2) + check<double>(30000, 1) + check<float>(1000, 3);
  std::printf(errors ? "FAILED\n" : "PASSED\n");
  return errors ? 1 : 0;
}
