// Bits, random numbers and hashing: Philox4x32-10, a 64-bit murmur
// finalizer hash table insert with linear probing (atomicCAS), radix digit
// histogram with shared atomics + per-block offsets, ballot/popc stream
// compaction with one atomic per warp, float<->half bit conversions, FFT
// bit-reversal permutation, Morton codes, clz-based log2 buckets, Hamming
// distance matrix with __popcll, xorwow Box-Muller normals.

struct uint4x { unsigned a, b, c, d; };

__device__ __forceinline__ void philox_round(unsigned &c0, unsigned &c1, unsigned &c2, unsigned &c3,
                                             unsigned k0, unsigned k1) {
    unsigned hi0 = __umulhi(0xD2511F53u, c0), lo0 = 0xD2511F53u * c0;
    unsigned hi1 = __umulhi(0xCD9E8D57u, c2), lo1 = 0xCD9E8D57u * c2;
    unsigned n0 = hi1 ^ c1 ^ k0;
    unsigned n2 = hi0 ^ c3 ^ k1;
    c0 = n0; c1 = lo1; c2 = n2; c3 = lo0;
}

extern "C" __global__ void philox_uniform(float4 *__restrict__ out, unsigned long long seed, unsigned long long offset, int n4) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n4) return;
    unsigned long long ctr = offset + (unsigned long long)i;
    unsigned c0 = (unsigned)ctr, c1 = (unsigned)(ctr >> 32), c2 = 0, c3 = 0;
    unsigned k0 = (unsigned)seed, k1 = (unsigned)(seed >> 32);
#pragma unroll
    for (int r = 0; r < 10; ++r) {
        philox_round(c0, c1, c2, c3, k0, k1);
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
    }
    const float s = 2.3283064e-10f;
    out[i] = make_float4(c0 * s, c1 * s, c2 * s, c3 * s);
}

__device__ __forceinline__ unsigned long long fmix64(unsigned long long k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ULL;
    k ^= k >> 33;
    return k;
}

#define EMPTY_KEY 0xffffffffffffffffULL
extern "C" __global__ void hash_insert(const unsigned long long *__restrict__ keys, const int *__restrict__ vals, int n,
                                       unsigned long long *table_keys, int *table_vals, unsigned capacity_mask) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned long long k = keys[i];
    unsigned slot = (unsigned)fmix64(k) & capacity_mask;
    for (unsigned probe = 0; probe <= capacity_mask; ++probe) {
        unsigned long long prev = atomicCAS(&table_keys[slot], EMPTY_KEY, k);
        if (prev == EMPTY_KEY || prev == k) {
            table_vals[slot] = vals[i];
            return;
        }
        slot = (slot + 1) & capacity_mask;
    }
}

#define RADIX_BITS 4
#define RADIX (1 << RADIX_BITS)
extern "C" __global__ void radix_block_hist(const unsigned *__restrict__ keys, int n, int shift,
                                            unsigned *__restrict__ blockHist /* [RADIX][gridDim.x] */) {
    __shared__ unsigned h[RADIX];
    if (threadIdx.x < RADIX) h[threadIdx.x] = 0;
    __syncthreads();
    int per = (n + gridDim.x - 1) / gridDim.x;
    int begin = blockIdx.x * per, end = min(n, begin + per);
    for (int i = begin + threadIdx.x; i < end; i += blockDim.x) {
        unsigned d = (keys[i] >> shift) & (RADIX - 1);
        atomicAdd(&h[d], 1u);
    }
    __syncthreads();
    if (threadIdx.x < RADIX) blockHist[threadIdx.x * gridDim.x + blockIdx.x] = h[threadIdx.x];
}

extern "C" __global__ void compact_ballot(const int *__restrict__ in, int *__restrict__ out, int *__restrict__ outCount,
                                          int n, int threshold) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    int v = i < n ? in[i] : 0;
    bool keep = i < n && v > threshold;
    unsigned mask = __ballot_sync(0xffffffffu, keep);
    int total = __popc(mask);
    int base = 0;
    if (lane == 0 && total) base = atomicAdd(outCount, total);
    base = __shfl_sync(0xffffffffu, base, 0);
    if (keep) out[base + __popc(mask & ((1u << lane) - 1u))] = v;
}

__device__ unsigned short f32_to_f16_bits(float f) {
    unsigned x = __float_as_uint(f);
    unsigned sign = (x >> 16) & 0x8000u;
    unsigned e = (x >> 23) & 0xffu;
    unsigned m = x & 0x7fffffu;
    if (e == 0xffu) return (unsigned short)(sign | 0x7c00u | (m ? 0x200u : 0u));
    int ne = (int)e - 127 + 15;
    if (ne >= 31) return (unsigned short)(sign | 0x7c00u);
    if (ne <= 0) {
        if (ne < -10) return (unsigned short)sign;
        m |= 0x800000u;
        int sh = 14 - ne;
        unsigned hm = m >> sh;
        unsigned rem = m & ((1u << sh) - 1u);
        unsigned halfway = 1u << (sh - 1);
        if (rem > halfway || (rem == halfway && (hm & 1u))) hm++;
        return (unsigned short)(sign | hm);
    }
    unsigned hm = m >> 13;
    unsigned rem = m & 0x1fffu;
    unsigned r = sign | ((unsigned)ne << 10) | hm;
    if (rem > 0x1000u || (rem == 0x1000u && (hm & 1u))) r++;
    return (unsigned short)r;
}

__device__ float f16_bits_to_f32(unsigned short h) {
    unsigned sign = ((unsigned)h & 0x8000u) << 16;
    unsigned e = ((unsigned)h >> 10) & 0x1fu;
    unsigned m = (unsigned)h & 0x3ffu;
    if (e == 0) {
        if (m == 0) return __uint_as_float(sign);
        int sh = __clz(m) - 21;
        m = (m << sh) & 0x3ffu;
        e = 1 - sh;
        return __uint_as_float(sign | ((e + 112u) << 23) | (m << 13));
    }
    if (e == 31) return __uint_as_float(sign | 0x7f800000u | (m << 13));
    return __uint_as_float(sign | ((e + 112u) << 23) | (m << 13));
}

extern "C" __global__ void f32_to_f16_array(const float *__restrict__ in, unsigned short *__restrict__ out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = f32_to_f16_bits(in[i]);
}

extern "C" __global__ void f16_scale_roundtrip(const unsigned short *__restrict__ in, unsigned short *__restrict__ out,
                                               float scale, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = f32_to_f16_bits(f16_bits_to_f32(in[i]) * scale);
}

extern "C" __global__ void bitrev_permute(const float2 *__restrict__ in, float2 *__restrict__ out, int log2n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (1u << log2n)) return;
    unsigned j = __brev(i) >> (32 - log2n);
    out[j] = in[i];
}

__device__ __forceinline__ unsigned expand_bits10(unsigned v) {
    v = (v * 0x00010001u) & 0xFF0000FFu;
    v = (v * 0x00000101u) & 0x0F00F00Fu;
    v = (v * 0x00000011u) & 0xC30C30C3u;
    v = (v * 0x00000005u) & 0x49249249u;
    return v;
}

extern "C" __global__ void morton3d(const float3 *__restrict__ p, unsigned *__restrict__ codes, float3 lo, float3 inv_ext, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float3 q = p[i];
    float x = fminf(fmaxf((q.x - lo.x) * inv_ext.x * 1024.0f, 0.0f), 1023.0f);
    float y = fminf(fmaxf((q.y - lo.y) * inv_ext.y * 1024.0f, 0.0f), 1023.0f);
    float z = fminf(fmaxf((q.z - lo.z) * inv_ext.z * 1024.0f, 0.0f), 1023.0f);
    codes[i] = expand_bits10((unsigned)x) * 4 + expand_bits10((unsigned)y) * 2 + expand_bits10((unsigned)z);
}

extern "C" __global__ void log2_bucket_count(const unsigned *__restrict__ sizes, unsigned *__restrict__ buckets, int n) {
    __shared__ unsigned sb[33];
    if (threadIdx.x < 33) sb[threadIdx.x] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        unsigned s = sizes[i];
        int b = s ? 32 - __clz(s - 1) : 0;   // ceil(log2(s))
        if ((s & (s - 1)) == 0 && s) b = __ffs(s) - 1;
        atomicAdd(&sb[b], 1u);
    }
    __syncthreads();
    if (threadIdx.x < 33 && sb[threadIdx.x]) atomicAdd(&buckets[threadIdx.x], sb[threadIdx.x]);
}

// Hamming distances between 256-bit descriptors (4 x u64), query block in shared memory.
extern "C" __global__ void hamming_matrix(const unsigned long long *__restrict__ q, const unsigned long long *__restrict__ db,
                                          unsigned char *__restrict__ dist, int nq, int ndb) {
    __shared__ unsigned long long sq[16][4];
    int qi = blockIdx.y * 16;
    if (threadIdx.x < 64) {
        int r = threadIdx.x >> 2, w = threadIdx.x & 3;
        sq[r][w] = qi + r < nq ? q[(size_t)(qi + r) * 4 + w] : 0ULL;
    }
    __syncthreads();
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= ndb) return;
    unsigned long long d0 = db[(size_t)j * 4], d1 = db[(size_t)j * 4 + 1], d2 = db[(size_t)j * 4 + 2], d3 = db[(size_t)j * 4 + 3];
    for (int r = 0; r < 16 && qi + r < nq; ++r) {
        int h = __popcll(d0 ^ sq[r][0]) + __popcll(d1 ^ sq[r][1]) + __popcll(d2 ^ sq[r][2]) + __popcll(d3 ^ sq[r][3]);
        dist[(size_t)(qi + r) * ndb + j] = (unsigned char)h;
    }
}

struct XorwowState { unsigned x, y, z, w, v, d; };

extern "C" __global__ void xorwow_normal(float *__restrict__ out, unsigned seed, int perThread) {
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    XorwowState s;
    s.x = 123456789u ^ seed; s.y = 362436069u + tid; s.z = 521288629u; s.w = 88675123u ^ (tid * 2654435761u);
    s.v = 5783321u; s.d = 6615241u + tid;
    for (int k = 0; k < perThread; k += 2) {
        unsigned u[2];
        for (int t = 0; t < 2; ++t) {
            unsigned tt = s.x ^ (s.x >> 2);
            s.x = s.y; s.y = s.z; s.z = s.w; s.w = s.v;
            s.v = (s.v ^ (s.v << 4)) ^ (tt ^ (tt << 1));
            s.d += 362437u;
            u[t] = s.d + s.v;
        }
        float u1 = (u[0] + 1.0f) * 2.3283064e-10f;
        float u2 = u[1] * 2.3283064e-10f;
        float r = sqrtf(-2.0f * logf(u1));
        float sn, cs;
        sincospif(2.0f * u2, &sn, &cs);
        out[(size_t)tid * perThread + k] = r * cs;
        if (k + 1 < perThread) out[(size_t)tid * perThread + k + 1] = r * sn;
    }
}
