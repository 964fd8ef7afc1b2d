// Probe kernels written while measuring kernelc against nvcc (issue 10,
// 2026-11-27): top-k threshold, strided saxpy, atomic dot product, tiled matmul, per-thread polynomial, an 8-wide window sum, row scaling, L2 row norms, a shared 256-bin histogram, complex multiply.
// Not tuned for kernelc; compared with `scripts/compare-nvcc tests/probes/*.cu`.

extern "C" __global__ void topk_threshold(const float *__restrict__ x, int *__restrict__ out_idx, int *__restrict__ count, float thr, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && x[i] > thr) {
        int pos = atomicAdd(count, 1);
        out_idx[pos] = i;
    }
}

extern "C" __global__ void saxpy_strided(float a, const float *__restrict__ x, int incx, float *__restrict__ y, int incy, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        y[i * incy] = a * x[i * incx] + y[i * incy];
}

extern "C" __global__ void dot_atomic(const float *__restrict__ a, const float *__restrict__ b, float *__restrict__ out, int n) {
    __shared__ float s[256];
    float acc = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) acc += a[i] * b[i];
    s[threadIdx.x] = acc;
    __syncthreads();
    for (int k = 128; k > 0; k >>= 1) {
        if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(out, s[0]);
}

extern "C" __global__ void tiled_matmul(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int N) {
    __shared__ float As[16][16], Bs[16][16];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * 16 + ty, col = blockIdx.x * 16 + tx;
    float acc = 0.0f;
    for (int t = 0; t < N / 16; ++t) {
        As[ty][tx] = A[row * N + t * 16 + tx];
        Bs[ty][tx] = B[(t * 16 + ty) * N + col];
        __syncthreads();
        for (int k = 0; k < 16; ++k) acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[row * N + col] = acc;
}

extern "C" __global__ void per_thread_poly(const float *__restrict__ x, float *__restrict__ y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float c[6] = {1.0f, -0.5f, 0.25f, -0.125f, 0.0625f, -0.03125f};
    float v = x[i], acc = 0.0f;
    for (int k = 5; k >= 0; --k) acc = acc * v + c[k];
    y[i] = acc;
}

extern "C" __global__ void window_sum8(const float *__restrict__ x, float *__restrict__ y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i + 8 > n) return;
    float s = 0.0f;
    for (int k = 0; k < 8; ++k) s += x[i + k];
    y[i] = s;
}

extern "C" __global__ void mat_rows_scale(float *__restrict__ m, const float *__restrict__ s, int rows, int cols) {
    int r = blockIdx.x;
    float f = s[r];
    for (int c = threadIdx.x; c < cols; c += blockDim.x) m[r * cols + c] *= f;
}

extern "C" __global__ void l2norm_rows(const float *__restrict__ x, float *__restrict__ y, int cols) {
    int r = blockIdx.x;
    const float *xr = x + (size_t)r * cols;
    float *yr = y + (size_t)r * cols;
    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += 32) s += xr[c] * xr[c];
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    float inv = rsqrtf(s + 1e-12f);
    for (int c = threadIdx.x; c < cols; c += 32) yr[c] = xr[c] * inv;
}

extern "C" __global__ void hist256_shared(const unsigned char *__restrict__ data, unsigned int *__restrict__ hist, int n) {
    __shared__ unsigned int h[256];
    h[threadIdx.x] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) atomicAdd(&h[data[i]], 1u);
    __syncthreads();
    atomicAdd(&hist[threadIdx.x], h[threadIdx.x]);
}

extern "C" __global__ void complex_mul(const float2 *__restrict__ a, const float2 *__restrict__ b, float2 *__restrict__ c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float2 x = a[i], y = b[i];
    c[i] = make_float2(x.x * y.x - x.y * y.y, x.x * y.y + x.y * y.x);
}
