// Block sum with warp shuffles: each warp reduces its 32 values with
// __shfl_down_sync, lane 0 of every warp writes its partial sum to shared
// memory, and the first warp reduces those partial sums.
__inline__ __device__ float warpReduceSum(float val) {
    for (int offset = warpSize / 2; offset > 0; offset /= 2)
        val += __shfl_down_sync(0xffffffff, val, offset);
    return val;
}

extern "C" __global__ void reduce_sum(const float *in, float *blockSums, int n) {
    __shared__ float warpSums[32];
    int tid = threadIdx.x;
    int lane = tid % warpSize;
    int warp = tid / warpSize;

    // Grid-stride accumulation, two elements per step.
    float sum = 0.0f;
    for (int i = blockIdx.x * blockDim.x * 2 + tid; i < n; i += blockDim.x * gridDim.x * 2) {
        sum += in[i];
        if (i + blockDim.x < n)
            sum += in[i + blockDim.x];
    }

    sum = warpReduceSum(sum);
    if (lane == 0)
        warpSums[warp] = sum;
    __syncthreads();

    int numWarps = (blockDim.x + warpSize - 1) / warpSize;
    sum = (tid < numWarps) ? warpSums[lane] : 0.0f;
    if (warp == 0)
        sum = warpReduceSum(sum);
    if (tid == 0)
        blockSums[blockIdx.x] = sum;
}

// Integer version: every block adds its total to one global counter.
extern "C" __global__ void reduce_count_atomic(const int *in, int n, unsigned long long *total) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = (i < n) ? in[i] : 0;
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, offset);
    if ((threadIdx.x & 31) == 0)
        atomicAdd(total, (unsigned long long)(long long)v);
}
