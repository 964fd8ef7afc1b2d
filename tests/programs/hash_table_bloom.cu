// A GPU hash table and Bloom filter, the kind of data structure found in
// database and genomics kernels. Keys and values are packed into one
// 64-bit slot and inserted with atomicCAS under linear probing; lookups
// probe the same way. Hashes are Murmur3-style finalizers built from
// funnel-shift rotations, __umulhi mixing and byte permutations. The Bloom
// filter sets bits with atomicOr; a statistics kernel counts bits with
// __popcll and reports leading zeros, bit reversal and first set bit.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <unordered_map>
#include <vector>

#define CUDA_RT_CALL(call)                                                   \
  {                                                                          \
    cudaError_t cudaStatus = call;                                           \
    if (cudaSuccess != cudaStatus)                                           \
      fprintf(stderr,                                                        \
              "ERROR: CUDA RT call \"%s\" in line %d of file %s failed "     \
              "with %s (%d).\n",                                             \
              #call, __LINE__, __FILE__, cudaGetErrorString(cudaStatus),     \
              cudaStatus);                                                   \
  }

typedef unsigned long long slot_t;
constexpr uint32_t kEmpty = 0xffffffffu;
constexpr slot_t kEmptySlot = ~0ull;
constexpr int kBloomHashes = 4;

struct KeyValue {
  uint32_t key;
  uint32_t value;
};
static_assert(sizeof(KeyValue) == sizeof(slot_t), "a slot is one word");

struct TableView {
  slot_t *slots;
  uint32_t capacity; // a power of two
};

__host__ __device__ inline slot_t pack(uint32_t key, uint32_t value) {
  return ((slot_t)value << 32) | key;
}

__device__ __forceinline__ uint32_t rotl32(uint32_t x, int r) {
  return __funnelshift_l(x, x, r);
}

__device__ uint32_t murmurMix(uint32_t k) {
  k ^= k >> 16;
  k *= 0x85ebca6bu;
  k ^= k >> 13;
  k *= 0xc2b2ae35u;
  k ^= k >> 16;
  return k;
}

// A second, independent hash: byte-swapped key, rotated and mixed with the
// high half of a 32x32 product.
__device__ uint32_t altHash(uint32_t k) {
  uint32_t swapped = __byte_perm(k, 0, 0x0123);
  uint32_t h = rotl32(swapped * 0x9e3779b1u, 13);
  return h ^ __umulhi(h, 0x7feb352du);
}

__global__ void insertKernel(TableView t, const KeyValue *kvs, int n,
                             unsigned int *probes) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  uint32_t key = kvs[i].key;
  uint32_t slot = murmurMix(key) & (t.capacity - 1);
  unsigned int steps = 0;
  while (true) {
    slot_t prev = atomicCAS(&t.slots[slot], kEmptySlot, pack(key, kvs[i].value));
    uint32_t prevKey = (uint32_t)(prev & 0xffffffffu);
    if (prevKey == kEmpty) break;
    if (prevKey == key) {
      // Same key: last writer wins for the value.
      atomicExch(&t.slots[slot], pack(key, kvs[i].value));
      break;
    }
    slot = (slot + 1) & (t.capacity - 1);
    ++steps;
  }
  atomicMax(probes, steps);
}

__global__ void lookupKernel(TableView t, const uint32_t *keys,
                             uint32_t *values, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  uint32_t key = keys[i];
  uint32_t slot = murmurMix(key) & (t.capacity - 1);
  for (uint32_t step = 0; step < t.capacity; ++step) {
    slot_t s = t.slots[slot];
    uint32_t k = (uint32_t)s;
    if (k == key) {
      values[i] = (uint32_t)(s >> 32);
      return;
    }
    if (k == kEmpty) break;
    slot = (slot + 1) & (t.capacity - 1);
  }
  values[i] = kEmpty;
}

__global__ void bloomAdd(unsigned int *bits, uint32_t nbits,
                         const uint32_t *keys, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  uint32_t h1 = murmurMix(keys[i]), h2 = altHash(keys[i]) | 1u;
#pragma unroll
  for (int j = 0; j < kBloomHashes; ++j) {
    uint32_t bit = (h1 + j * h2) & (nbits - 1);
    atomicOr(&bits[bit >> 5], 1u << (bit & 31));
  }
}

__global__ void bloomQuery(const unsigned int *bits, uint32_t nbits,
                           const uint32_t *keys, unsigned char *maybe,
                           int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  uint32_t h1 = murmurMix(keys[i]), h2 = altHash(keys[i]) | 1u;
  bool all = true;
  for (int j = 0; j < kBloomHashes && all; ++j) {
    uint32_t bit = (h1 + j * h2) & (nbits - 1);
    all = (bits[bit >> 5] >> (bit & 31)) & 1u;
  }
  maybe[i] = all;
}

// stats[0]: set bits; [1]: min leading zeros of a 64-bit word; [2]: xor of
// bit-reversed words; [3]: sum of first-set-bit positions.
__global__ void bitStats(const unsigned long long *words, int n,
                         unsigned int *stats) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned long long w = words[i];
  atomicAdd(&stats[0], (unsigned int)__popcll(w));
  atomicMin(&stats[1], (unsigned int)__clzll(w));
  atomicXor(&stats[2], __brev((unsigned int)w) ^ (unsigned int)__brevll(w));
  atomicAdd(&stats[3], (unsigned int)__ffs((int)(w >> 32)) +
                           (unsigned int)__ffsll((long long)w));
}

int main() {
  const int n = 1 << 16;
  const uint32_t capacity = 1u << 17, nbits = 1u << 20;
  std::mt19937 rng(7);
  std::vector<KeyValue> kvs(n);
  std::vector<uint32_t> keys(n);
  std::unordered_map<uint32_t, uint32_t> ref;
  for (int i = 0; i < n; ++i) {
    kvs[i].key = rng() % (4u * n);
    kvs[i].value = (uint32_t)i;
    keys[i] = kvs[i].key;
    ref[kvs[i].key] = 0;
  }

  TableView t{nullptr, capacity};
  KeyValue *d_kvs;
  uint32_t *d_keys, *d_values;
  unsigned int *d_probes, *d_bits;
  unsigned char *d_maybe;
  CUDA_RT_CALL(cudaMalloc(&t.slots, capacity * sizeof(slot_t)));
  CUDA_RT_CALL(cudaMemset(t.slots, 0xff, capacity * sizeof(slot_t)));
  CUDA_RT_CALL(cudaMalloc(&d_kvs, n * sizeof(KeyValue)));
  CUDA_RT_CALL(cudaMalloc(&d_keys, n * sizeof(uint32_t)));
  CUDA_RT_CALL(cudaMalloc(&d_values, n * sizeof(uint32_t)));
  CUDA_RT_CALL(cudaMalloc(&d_probes, sizeof(unsigned int)));
  CUDA_RT_CALL(cudaMalloc(&d_bits, nbits / 8));
  CUDA_RT_CALL(cudaMalloc(&d_maybe, n));
  CUDA_RT_CALL(cudaMemset(d_probes, 0, sizeof(unsigned int)));
  CUDA_RT_CALL(cudaMemset(d_bits, 0, nbits / 8));
  CUDA_RT_CALL(cudaMemcpy(d_kvs, kvs.data(), n * sizeof(KeyValue),
                          cudaMemcpyHostToDevice));
  CUDA_RT_CALL(cudaMemcpy(d_keys, keys.data(), n * sizeof(uint32_t),
                          cudaMemcpyHostToDevice));

  const int block = 256, grid = (n + block - 1) / block;
  insertKernel<<<grid, block>>>(t, d_kvs, n, d_probes);
  lookupKernel<<<grid, block>>>(t, d_keys, d_values, n);
  bloomAdd<<<grid, block>>>(d_bits, nbits, d_keys, n);
  bloomQuery<<<grid, block>>>(d_bits, nbits, d_keys, d_maybe, n);
  CUDA_RT_CALL(cudaDeviceSynchronize());

  std::vector<uint32_t> values(n);
  std::vector<unsigned char> maybe(n);
  unsigned int maxProbe = 0;
  CUDA_RT_CALL(cudaMemcpy(values.data(), d_values, n * sizeof(uint32_t),
                          cudaMemcpyDeviceToHost));
  CUDA_RT_CALL(cudaMemcpy(maybe.data(), d_maybe, n, cudaMemcpyDeviceToHost));
  CUDA_RT_CALL(cudaMemcpy(&maxProbe, d_probes, sizeof maxProbe,
                          cudaMemcpyDeviceToHost));
  int missing = 0, falseNeg = 0;
  for (int i = 0; i < n; ++i) {
    missing += values[i] == kEmpty;
    falseNeg += !maybe[i];
  }

  unsigned int stats[4] = {0, 64, 0, 0}, *d_stats;
  CUDA_RT_CALL(cudaMalloc(&d_stats, sizeof stats));
  CUDA_RT_CALL(cudaMemcpy(d_stats, stats, sizeof stats, cudaMemcpyHostToDevice));
  bitStats<<<(nbits / 64 + 255) / 256, 256>>>((const unsigned long long *)d_bits,
                                             nbits / 64, d_stats);
  CUDA_RT_CALL(cudaMemcpy(stats, d_stats, sizeof stats, cudaMemcpyDeviceToHost));
  printf("%zu distinct keys, max probe %u, missing %d, Bloom false negatives "
         "%d, %u of %u bits set\n",
         ref.size(), maxProbe, missing, falseNeg, stats[0], nbits);

  cudaFree(t.slots);
  cudaFree(d_kvs);
  cudaFree(d_keys);
  cudaFree(d_values);
  cudaFree(d_probes);
  cudaFree(d_bits);
  cudaFree(d_maybe);
  cudaFree(d_stats);
  return missing == 0 && falseNeg == 0 ? 0 : 1;
}
