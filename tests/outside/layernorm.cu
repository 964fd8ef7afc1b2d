// LayerNorm over rows: one block per row, Welford-free two-pass mean and
// variance with a warp-shuffle + shared-memory block reduction.
__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

__device__ float block_sum(float v, float *scratch) {
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    v = warp_sum(v);
    if (lane == 0) scratch[warp] = v;
    __syncthreads();
    int nw = (blockDim.x + 31) >> 5;
    v = threadIdx.x < nw ? scratch[threadIdx.x] : 0.0f;
    v = warp_sum(v);
    if (threadIdx.x == 0) scratch[0] = v;
    __syncthreads();
    float r = scratch[0];
    __syncthreads();
    return r;
}

extern "C" __global__ void layernorm_row(const float *__restrict__ x, const float *__restrict__ gamma,
                                         const float *__restrict__ beta, float *__restrict__ y,
                                         int cols, float eps) {
    __shared__ float scratch[32];
    const float *xr = x + (size_t)blockIdx.x * cols;
    float *yr = y + (size_t)blockIdx.x * cols;
    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) s += xr[c];
    float mean = block_sum(s, scratch) / cols;
    float sq = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        float d = xr[c] - mean;
        sq += d * d;
    }
    float rstd = rsqrtf(block_sum(sq, scratch) / cols + eps);
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        yr[c] = (xr[c] - mean) * rstd * gamma[c] + beta[c];
}
