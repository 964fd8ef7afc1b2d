// Elementwise float math: softplus, sigmoid, log-sum of two values, and a
// clamp, with the common single-precision library functions.
extern "C" __global__ void elementwise_math(const float *__restrict__ x,
                                            const float *__restrict__ y,
                                            float *__restrict__ out, int n,
                                            float lo, float hi) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float a = x[i];
    float b = y[i];
    float softplus = logf(1.0f + expf(a));
    float sig = 1.0f / (1.0f + expf(-b));
    float m = fmaxf(a, b);
    float lse = m + logf(expf(a - m) + expf(b - m));
    float r = rsqrtf(fabsf(a) + 1.0f) * sqrtf(fabsf(b));
    float s = sinf(a) * cosf(b) + powf(fabsf(a) + 1e-3f, 1.5f);
    float t = tanhf(0.5f * (a - b));
    float v = softplus + sig + lse + r + s + t;
    out[i] = fminf(fmaxf(v, lo), hi);
}
