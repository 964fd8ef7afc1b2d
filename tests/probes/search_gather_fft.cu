// Probe kernels written while measuring kernelc against nvcc (issue 10,
// 2026-11-27): k-means assignment, 2D Jacobi, embedding gather, leaky-ReLU backward, row cumulative sums, nearest-neighbour resize, online softmax statistics, a binary search over segments, an FFT butterfly, particles, naive SGEMM, a shared block maximum.
// Not tuned for kernelc; compared with `scripts/compare-nvcc tests/probes/*.cu`.

extern "C" __global__ void kmeans_assign(const float *__restrict__ pts, const float *__restrict__ cent,
                                         int *__restrict__ label, int n, int k) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = pts[2 * i], y = pts[2 * i + 1];
    float best = 3.4e38f;
    int bi = 0;
    for (int c = 0; c < k; ++c) {
        float dx = x - cent[2 * c], dy = y - cent[2 * c + 1];
        float d = dx * dx + dy * dy;
        if (d < best) { best = d; bi = c; }
    }
    label[i] = bi;
}

extern "C" __global__ void jacobi2d(const float *__restrict__ in, float *__restrict__ out, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1) return;
    int i = y * w + x;
    out[i] = 0.25f * (in[i - 1] + in[i + 1] + in[i - w] + in[i + w]);
}

extern "C" __global__ void embed_gather(const int *__restrict__ ids, const float *__restrict__ table,
                                        float *__restrict__ out, int dim, int n) {
    int row = blockIdx.x;
    if (row >= n) return;
    const float *src = table + (size_t)ids[row] * dim;
    float *dst = out + (size_t)row * dim;
    for (int d = threadIdx.x; d < dim; d += blockDim.x) dst[d] = src[d];
}

extern "C" __global__ void leaky_relu_bwd(const float *__restrict__ x, const float *__restrict__ gy,
                                          float *__restrict__ gx, float slope, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        gx[i] = x[i] > 0.0f ? gy[i] : slope * gy[i];
}

extern "C" __global__ void row_cumsum(const float *__restrict__ in, float *__restrict__ out, int rows, int cols) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float s = 0.0f;
    for (int c = 0; c < cols; ++c) {
        s += in[r * cols + c];
        out[r * cols + c] = s;
    }
}

extern "C" __global__ void resize_nearest(const unsigned char *__restrict__ src, unsigned char *__restrict__ dst,
                                          int sw, int sh, int dw, int dh) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= dw || y >= dh) return;
    int sx = x * sw / dw;
    int sy = y * sh / dh;
    dst[y * dw + x] = src[sy * sw + sx];
}

extern "C" __global__ void online_softmax_stats(const float *__restrict__ x, float *__restrict__ mx,
                                                float *__restrict__ sm, int cols) {
    const float *row = x + (size_t)blockIdx.x * cols;
    float m = -3.4e38f, s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        float v = row[c];
        float nm = fmaxf(m, v);
        s = s * __expf(m - nm) + __expf(v - nm);
        m = nm;
    }
    mx[blockIdx.x * blockDim.x + threadIdx.x] = m;
    sm[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

extern "C" __global__ void segment_search(const int *__restrict__ offsets, const float *__restrict__ vals,
                                          int *__restrict__ seg, int nseg, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int lo = 0, hi = nseg;
    while (lo < hi) {
        int mid = (lo + hi) >> 1;
        if (offsets[mid] <= i) lo = mid + 1; else hi = mid;
    }
    seg[i] = lo - 1;
}

extern "C" __global__ void fft_butterfly(float2 *__restrict__ data, const float2 *__restrict__ tw, int half) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int grp = i / half, k = i % half;
    int a = grp * 2 * half + k, b = a + half;
    float2 u = data[a], v = data[b], w = tw[k];
    float2 t = make_float2(v.x * w.x - v.y * w.y, v.x * w.y + v.y * w.x);
    data[a] = make_float2(u.x + t.x, u.y + t.y);
    data[b] = make_float2(u.x - t.x, u.y - t.y);
}

extern "C" __global__ void particles_step(float4 *__restrict__ pos, float4 *__restrict__ vel, float dt, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 p = pos[i], v = vel[i];
    v.y -= 9.8f * dt;
    p.x += v.x * dt; p.y += v.y * dt; p.z += v.z * dt;
    if (p.y < 0.0f) { p.y = -p.y; v.y = -0.9f * v.y; }
    pos[i] = p; vel[i] = v;
}

extern "C" __global__ void sgemm_naive(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C,
                                       int M, int N, int K, float alpha, float beta) {
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= M || col >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = alpha * acc + beta * C[row * N + col];
}

extern "C" __global__ void block_max_shared(const float *__restrict__ in, float *__restrict__ out, int n) {
    __shared__ float s[128];
    int t = threadIdx.x;
    int i = blockIdx.x * 256 + t;
    float a = i < n ? in[i] : -3.4e38f;
    float b = i + 128 < n ? in[i + 128] : -3.4e38f;
    s[t] = fmaxf(a, b);
    __syncthreads();
    for (int st = 64; st > 0; st >>= 1) {
        if (t < st) s[t] = fmaxf(s[t], s[t + st]);
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}
