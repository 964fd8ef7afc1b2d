// Vector loads and stores: float4 SAXPY with a scalar tail, and an int2
// gather of (key, value) pairs with __ldg.
extern "C" __global__ void saxpy_float4(int n, float a, const float *__restrict__ x,
                                        float *__restrict__ y) {
    int n4 = n / 4;
    int stride = blockDim.x * gridDim.x;
    const float4 *x4 = (const float4 *)x;
    float4 *y4 = (float4 *)y;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
        float4 xv = x4[i];
        float4 yv = y4[i];
        yv.x = a * xv.x + yv.x;
        yv.y = a * xv.y + yv.y;
        yv.z = a * xv.z + yv.z;
        yv.w = a * xv.w + yv.w;
        y4[i] = yv;
    }
    int t = n4 * 4 + blockIdx.x * blockDim.x + threadIdx.x;
    if (t < n) y[t] = a * x[t] + y[t];
}

extern "C" __global__ void gather_pairs(const int2 *__restrict__ pairs, const int *__restrict__ idx,
                                        int *__restrict__ keys, float *__restrict__ vals, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int2 p = __ldg(&pairs[__ldg(&idx[i])]);
    keys[i] = p.x;
    vals[i] = __int_as_float(p.y) * 2.0f;
}
