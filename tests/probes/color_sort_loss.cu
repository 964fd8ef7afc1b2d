// Probe kernels written while measuring kernelc against nvcc (issue 10,
// 2026-11-27): RGB to HSV, a shared bitonic sort, MSE loss and gradient, a 7-point 3D stencil, counting equal elements, GELU (tanh) backward, a 2D double matrix add, an int8 dot product of char4s, clamped lerp, row argmax.
// Not tuned for kernelc; compared with `scripts/compare-nvcc tests/probes/*.cu`.

extern "C" __global__ void rgb_to_hsv(const float3 *__restrict__ in, float3 *__restrict__ out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float3 c = in[i];
    float mx = fmaxf(c.x, fmaxf(c.y, c.z)), mn = fminf(c.x, fminf(c.y, c.z));
    float d = mx - mn, h = 0.0f;
    if (d > 0.0f) {
        if (mx == c.x) h = fmodf((c.y - c.z) / d, 6.0f);
        else if (mx == c.y) h = (c.z - c.x) / d + 2.0f;
        else h = (c.x - c.y) / d + 4.0f;
        h *= 60.0f;
    }
    out[i] = make_float3(h, mx > 0.0f ? d / mx : 0.0f, mx);
}

extern "C" __global__ void bitonic_shared(float *data) {
    __shared__ float s[256];
    int t = threadIdx.x;
    s[t] = data[blockIdx.x * 256 + t];
    __syncthreads();
    for (int k = 2; k <= 256; k <<= 1) {
        for (int j = k >> 1; j > 0; j >>= 1) {
            int p = t ^ j;
            if (p > t) {
                bool up = (t & k) == 0;
                float a = s[t], b = s[p];
                if ((a > b) == up) { s[t] = b; s[p] = a; }
            }
            __syncthreads();
        }
    }
    data[blockIdx.x * 256 + t] = s[t];
}

extern "C" __global__ void mse_loss_grad(const float *__restrict__ pred, const float *__restrict__ tgt,
                                         float *__restrict__ grad, float *__restrict__ loss, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float l = 0.0f;
    if (i < n) {
        float d = pred[i] - tgt[i];
        grad[i] = 2.0f * d / n;
        l = d * d;
    }
    for (int o = 16; o > 0; o >>= 1) l += __shfl_down_sync(0xffffffff, l, o);
    if ((threadIdx.x & 31) == 0) atomicAdd(loss, l / n);
}

extern "C" __global__ void stencil3d7(const float *__restrict__ in, float *__restrict__ out, int nx, int ny, int nz) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < 1 || y < 1 || x >= nx - 1 || y >= ny - 1) return;
    int plane = nx * ny;
    for (int z = 1; z < nz - 1; ++z) {
        int i = z * plane + y * nx + x;
        out[i] = 0.4f * in[i] + 0.1f * (in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx] + in[i - plane] + in[i + plane]);
    }
}

extern "C" __global__ void count_equal(const int *__restrict__ a, const int *__restrict__ b, int *__restrict__ cnt, int n) {
    __shared__ int local;
    if (threadIdx.x == 0) local = 0;
    __syncthreads();
    int c = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) c += a[i] == b[i];
    atomicAdd(&local, c);
    __syncthreads();
    if (threadIdx.x == 0) atomicAdd(cnt, local);
}

extern "C" __global__ void gelu_tanh_bwd(const float *__restrict__ x, const float *__restrict__ gy, float *__restrict__ gx, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    float u = 0.7978845608f * (v + 0.044715f * v * v * v);
    float t = tanhf(u);
    float du = 0.7978845608f * (1.0f + 3.0f * 0.044715f * v * v);
    gx[i] = gy[i] * (0.5f * (1.0f + t) + 0.5f * v * (1.0f - t * t) * du);
}

extern "C" __global__ void matrix_add_2d(const double *__restrict__ a, const double *__restrict__ b, double *__restrict__ c,
                                         int rows, int cols, int lda) {
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows && col < cols) c[r * lda + col] = a[r * lda + col] + b[r * lda + col];
}

extern "C" __global__ void int8_dot4(const char4 *__restrict__ a, const char4 *__restrict__ b, int *__restrict__ out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    char4 x = a[i], y = b[i];
    out[i] = x.x * y.x + x.y * y.y + x.z * y.z + x.w * y.w;
}

extern "C" __global__ void lerp_clamp(const float *__restrict__ a, const float *__restrict__ b, float *__restrict__ o,
                                      float t, float lo, float hi, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) o[i] = fminf(fmaxf(a[i] + t * (b[i] - a[i]), lo), hi);
}

extern "C" __global__ void row_argmax(const float *__restrict__ m, int *__restrict__ idx, int rows, int cols) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const float *row = m + (size_t)r * cols;
    int best = 0;
    float bv = row[0];
    for (int c = 1; c < cols; ++c) {
        float v = row[c];
        if (v > bv) { bv = v; best = c; }
    }
    idx[r] = best;
}
