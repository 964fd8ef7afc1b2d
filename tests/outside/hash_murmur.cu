// 32-bit and 64-bit integer hashing (MurmurHash3 finalizers, xorshift RNG)
// used for bucket assignment with a modulo by a runtime bucket count.
__device__ __forceinline__ unsigned fmix32(unsigned h) {
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}

__device__ __forceinline__ unsigned long long fmix64(unsigned long long k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ull;
    k ^= k >> 33;
    return k;
}

extern "C" __global__ void hash_buckets(const unsigned long long *__restrict__ keys, int n,
                                        unsigned nbuckets, unsigned *__restrict__ bucket,
                                        unsigned *__restrict__ bucketCount) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned long long k = keys[i];
    unsigned h = fmix32((unsigned)k ^ fmix32((unsigned)(k >> 32)));
    unsigned long long h64 = fmix64(k);
    unsigned b = (h ^ (unsigned)(h64 >> 17)) % nbuckets;
    bucket[i] = b;
    atomicAdd(&bucketCount[b], 1u);
}

extern "C" __global__ void xorshift_fill(unsigned *__restrict__ out, int n, unsigned seed, int rounds) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned s = fmix32(seed + i * 0x9e3779b9u);
    for (int r = 0; r < rounds; ++r) {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
    }
    out[i] = s;
}
