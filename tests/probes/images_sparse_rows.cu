// Probe kernels written while measuring kernelc against nvcc (issue 10,
// 2026-11-27): a padded shared transpose, RGB to gray, a 3x3 convolution, bilinear sampling, CSR SpMV (vector), batch norm, shared row sums, bias + ReLU, gather/scatter, a shared matrix-vector product.
// Not tuned for kernelc; compared with `scripts/compare-nvcc tests/probes/*.cu`.

#define TILE 32
extern "C" __global__ void transpose_pad(const float *__restrict__ in, float *__restrict__ out, int w, int h) {
    __shared__ float t[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += 8)
        if (x < w && y + j < h) t[threadIdx.y + j][threadIdx.x] = in[(y + j) * w + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x; y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += 8)
        if (x < h && y + j < w) out[(y + j) * h + x] = t[threadIdx.x][threadIdx.y + j];
}

extern "C" __global__ void rgb_to_gray(const unsigned char *__restrict__ rgb, unsigned char *__restrict__ gray, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float r = rgb[3 * i], g = rgb[3 * i + 1], b = rgb[3 * i + 2];
    gray[i] = (unsigned char)(0.299f * r + 0.587f * g + 0.114f * b + 0.5f);
}

extern "C" __global__ void conv2d_3x3(const float *__restrict__ in, const float *__restrict__ k, float *__restrict__ out, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1) return;
    float s = 0.0f;
    for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx)
            s += k[(dy + 1) * 3 + dx + 1] * in[(y + dy) * w + x + dx];
    out[y * w + x] = s;
}

extern "C" __global__ void bilinear(const float *__restrict__ src, float *__restrict__ dst, int sw, int sh, int dw, int dh) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= dw || y >= dh) return;
    float fx = (x + 0.5f) * sw / dw - 0.5f, fy = (y + 0.5f) * sh / dh - 0.5f;
    int x0 = max(0, (int)floorf(fx)), y0 = max(0, (int)floorf(fy));
    int x1 = min(sw - 1, x0 + 1), y1 = min(sh - 1, y0 + 1);
    float ax = fx - x0, ay = fy - y0;
    float v = (1 - ax) * (1 - ay) * src[y0 * sw + x0] + ax * (1 - ay) * src[y0 * sw + x1]
            + (1 - ax) * ay * src[y1 * sw + x0] + ax * ay * src[y1 * sw + x1];
    dst[y * dw + x] = v;
}

extern "C" __global__ void csr_vector(const int *__restrict__ rowptr, const int *__restrict__ col, const float *__restrict__ val,
                                      const float *__restrict__ x, float *__restrict__ y, int rows) {
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
    if (warp >= rows) return;
    float s = 0.0f;
    for (int j = rowptr[warp] + lane; j < rowptr[warp + 1]; j += 32) s += val[j] * x[col[j]];
    for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
    if (lane == 0) y[warp] = s;
}

extern "C" __global__ void batchnorm_infer(const float *__restrict__ x, const float *__restrict__ mean, const float *__restrict__ var,
                                           const float *__restrict__ gamma, const float *__restrict__ beta, float *__restrict__ y,
                                           int C, int HW, float eps) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int n = gridDim.x * blockDim.x;
    for (; i < C * HW; i += n) {
        int c = i / HW;
        y[i] = (x[i] - mean[c]) * rsqrtf(var[c] + eps) * gamma[c] + beta[c];
    }
}

extern "C" __global__ void rowsum_shared(const float *__restrict__ a, float *__restrict__ out, int cols) {
    __shared__ float s[256];
    const float *r = a + (size_t)blockIdx.x * cols;
    float acc = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) acc += r[c];
    s[threadIdx.x] = acc;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}

extern "C" __global__ void add_bias_relu_rows(const float *__restrict__ x, const float *__restrict__ b, float *__restrict__ y, int rows, int cols) {
    int r = blockIdx.y;
    const float *xr = x + (size_t)r * cols;
    float *yr = y + (size_t)r * cols;
    for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < cols; c += gridDim.x * blockDim.x)
        yr[c] = fmaxf(xr[c] + b[c], 0.0f);
}

extern "C" __global__ void gather_scatter(const int *__restrict__ idx, const float *__restrict__ src, float *__restrict__ dst, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&dst[idx[i]], src[i] * 0.5f);
}

extern "C" __global__ void matvec_shared(const float *__restrict__ A, const float *__restrict__ x, float *__restrict__ y, int rows, int cols) {
    __shared__ float xs[256];
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 0.0f;
    for (int base = 0; base < cols; base += 256) {
        if (base + threadIdx.x < cols) xs[threadIdx.x] = x[base + threadIdx.x];
        __syncthreads();
        int lim = min(256, cols - base);
        if (r < rows)
            for (int k = 0; k < lim; ++k) acc += A[(size_t)r * cols + base + k] * xs[k];
        __syncthreads();
    }
    if (r < rows) y[r] = acc;
}
