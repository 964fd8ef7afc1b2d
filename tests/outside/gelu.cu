// GELU (tanh approximation) forward and backward, plus bias-add fused.
#define SQRT_2_OVER_PI 0.7978845608028654f
#define GELU_C 0.044715f

__device__ __forceinline__ float gelu_fwd(float x) {
    float u = SQRT_2_OVER_PI * (x + GELU_C * x * x * x);
    return 0.5f * x * (1.0f + tanhf(u));
}

__device__ __forceinline__ float gelu_bwd(float x) {
    float x3 = x * x * x;
    float u = SQRT_2_OVER_PI * (x + GELU_C * x3);
    float t = tanhf(u);
    float sech2 = 1.0f - t * t;
    return 0.5f * (1.0f + t) + 0.5f * x * sech2 * SQRT_2_OVER_PI * (1.0f + 3.0f * GELU_C * x * x);
}

extern "C" __global__ void bias_gelu(const float *__restrict__ x, const float *__restrict__ bias,
                                     float *__restrict__ y, int rows, int cols) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= rows * cols) return;
    y[idx] = gelu_fwd(x[idx] + bias[idx % cols]);
}

extern "C" __global__ void gelu_backward(const float *__restrict__ x, const float *__restrict__ dy,
                                         float *__restrict__ dx, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        dx[i] = dy[i] * gelu_bwd(x[i]);
}
