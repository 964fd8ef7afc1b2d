// Classic shared-memory tree reduction (sequential addressing) with the
// last warp unrolled via volatile shared memory, summing doubles.
#define BLOCK 256

__device__ void warpReduce(volatile double *s, int tid) {
    s[tid] += s[tid + 32];
    s[tid] += s[tid + 16];
    s[tid] += s[tid + 8];
    s[tid] += s[tid + 4];
    s[tid] += s[tid + 2];
    s[tid] += s[tid + 1];
}

extern "C" __global__ void reduce_double(const double *in, double *out, unsigned n) {
    __shared__ double sdata[BLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * (BLOCK * 2) + tid;
    unsigned gridSize = BLOCK * 2 * gridDim.x;
    double sum = 0.0;
    while (i < n) {
        sum += in[i];
        if (i + BLOCK < n) sum += in[i + BLOCK];
        i += gridSize;
    }
    sdata[tid] = sum;
    __syncthreads();
    for (unsigned s = BLOCK / 2; s > 32; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid < 32) warpReduce(sdata, tid);
    if (tid == 0) out[blockIdx.x] = sdata[0];
}
