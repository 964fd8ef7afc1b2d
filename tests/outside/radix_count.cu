// Radix-sort digit counting: each block counts the 4-bit digit at `shift`
// of its keys in shared memory and writes a column of the digit-count
// table; also a ballot-based per-warp count of one bit.
#define RADIX 16

extern "C" __global__ void radix_digit_count(const unsigned *__restrict__ keys, int n, int shift,
                                             unsigned *__restrict__ counts) {
    __shared__ unsigned c[RADIX];
    if (threadIdx.x < RADIX) c[threadIdx.x] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        unsigned d = (keys[i] >> shift) & (RADIX - 1);
        atomicAdd(&c[d], 1u);
    }
    __syncthreads();
    if (threadIdx.x < RADIX) counts[threadIdx.x * gridDim.x + blockIdx.x] = c[threadIdx.x];
}

extern "C" __global__ void bit_split_count(const unsigned *__restrict__ keys, int n, int bit,
                                           unsigned *__restrict__ warpOnes) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned k = i < n ? keys[i] : 0u;
    unsigned mask = __ballot_sync(0xffffffffu, (k >> bit) & 1u);
    if ((threadIdx.x & 31) == 0) warpOnes[i / 32] = __popc(mask);
}
