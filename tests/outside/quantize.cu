// Per-row symmetric int8 quantization: absmax per row (one block per row,
// shared reduction), then round and clamp; dequantize kernel with a struct
// of per-tensor parameters.
struct QParams {
    float scale;
    int zero_point;
    int qmin;
    int qmax;
};

extern "C" __global__ void quantize_rows(const float *__restrict__ x, signed char *__restrict__ q,
                                         float *__restrict__ scales, int cols) {
    __shared__ float red[256];
    const float *xr = x + (size_t)blockIdx.x * cols;
    float m = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, fabsf(xr[c]));
    red[threadIdx.x] = m;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
        __syncthreads();
    }
    float amax = red[0];
    float scale = amax > 0.0f ? amax / 127.0f : 1.0f;
    float inv = 1.0f / scale;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        int v = __float2int_rn(xr[c] * inv);
        v = v > 127 ? 127 : (v < -127 ? -127 : v);
        q[(size_t)blockIdx.x * cols + c] = (signed char)v;
    }
    if (threadIdx.x == 0) scales[blockIdx.x] = scale;
}

extern "C" __global__ void dequantize_u8(const unsigned char *__restrict__ q, float *__restrict__ y,
                                         QParams p, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = max(p.qmin, min(p.qmax, (int)q[i]));
    y[i] = (v - p.zero_point) * p.scale;
}
