// RMSNorm, one warp per row, float4 vectorized when cols % 4 == 0.
extern "C" __global__ void rmsnorm_warp(const float *__restrict__ x, const float *__restrict__ w,
                                        float *__restrict__ y, int rows, int cols, float eps) {
    int warpsPerBlock = blockDim.x / 32;
    int row = blockIdx.x * warpsPerBlock + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (row >= rows) return;
    const float4 *xr = (const float4 *)(x + (size_t)row * cols);
    float4 *yr = (float4 *)(y + (size_t)row * cols);
    const float4 *w4 = (const float4 *)w;
    int c4 = cols / 4;
    float ss = 0.0f;
    for (int c = lane; c < c4; c += 32) {
        float4 v = xr[c];
        ss += v.x * v.x + v.y * v.y + v.z * v.z + v.w * v.w;
    }
    for (int o = 16; o > 0; o /= 2) ss += __shfl_down_sync(0xffffffffu, ss, o);
    ss = __shfl_sync(0xffffffffu, ss, 0);
    float inv = rsqrtf(ss / cols + eps);
    for (int c = lane; c < c4; c += 32) {
        float4 v = xr[c];
        float4 g = w4[c];
        v.x *= inv * g.x;
        v.y *= inv * g.y;
        v.z *= inv * g.z;
        v.w *= inv * g.w;
        yr[c] = v;
    }
}
