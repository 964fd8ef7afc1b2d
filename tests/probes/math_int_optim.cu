// Probe kernels written while measuring kernelc against nvcc (issue 10,
// 2026-11-27): daxpy, a double norm, 64-bit indexing, warp votes, softplus, sigmoid/tanh, integer division and modulo, column sums, an Adam step, a block prefix sum.
// Not tuned for kernelc; compared with `scripts/compare-nvcc tests/probes/*.cu`.

extern "C" __global__ void daxpy(double a, const double *__restrict__ x, double *__restrict__ y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
extern "C" __global__ void dnorm(const double *__restrict__ x, double *__restrict__ out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = sqrt(x[i] * x[i] + 1.0) * exp(-x[i]);
}
extern "C" __global__ void i64_index(const float *__restrict__ x, float *__restrict__ y, long long n, long long stride) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i * stride] * 2.0f;
}
extern "C" __global__ void warp_vote_count(const int *__restrict__ x, int *__restrict__ out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int p = i < n && x[i] > 0;
    unsigned m = __ballot_sync(0xffffffffu, p);
    if ((threadIdx.x & 31) == 0) atomicAdd(out, __popc(m));
}
extern "C" __global__ void softplus(const float *__restrict__ x, float *__restrict__ y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { float v = x[i]; y[i] = v > 20.0f ? v : log1pf(expf(v)); }
}
extern "C" __global__ void sigmoid_tanh(const float *__restrict__ x, float *__restrict__ s, float *__restrict__ t, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { float v = x[i]; s[i] = 1.0f / (1.0f + expf(-v)); t[i] = tanhf(v); }
}
extern "C" __global__ void int_div_mod(const int *__restrict__ x, int *__restrict__ q, int *__restrict__ r, int d, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { q[i] = x[i] / d; r[i] = x[i] % d; }
}
extern "C" __global__ void col_sum(const float *__restrict__ m, float *__restrict__ out, int rows, int cols) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols) return;
    float s = 0.0f;
    for (int r = 0; r < rows; ++r) s += m[r * cols + c];
    out[c] = s;
}
extern "C" __global__ void adam_step(float *__restrict__ p, const float *__restrict__ g, float *__restrict__ m, float *__restrict__ v,
                                     float lr, float b1, float b2, float eps, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float gi = g[i];
    float mi = b1 * m[i] + (1.0f - b1) * gi;
    float vi = b2 * v[i] + (1.0f - b2) * gi * gi;
    m[i] = mi; v[i] = vi;
    p[i] -= lr * mi / (sqrtf(vi) + eps);
}
extern "C" __global__ void prefix_block(const int *__restrict__ in, int *__restrict__ out, int n) {
    __shared__ int s[512];
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    s[t] = i < n ? in[i] : 0;
    __syncthreads();
    for (int o = 1; o < blockDim.x; o <<= 1) {
        int v = t >= o ? s[t - o] : 0;
        __syncthreads();
        s[t] += v;
        __syncthreads();
    }
    if (i < n) out[i] = s[t];
}
