// Probe kernels written while measuring kernelc against nvcc (issue 10,
// 2026-11-27): Welford row statistics, a float4 matrix-vector product, a 1D convolution with a shared halo, bounding boxes with atomics, popcounts, a structure-of-arrays update, an atomic grid sum, a double-buffered shared scan, per-row threshold counts, an integer axpby.
// Not tuned for kernelc; compared with `scripts/compare-nvcc tests/probes/*.cu`.

extern "C" __global__ void welford_rows(const float *__restrict__ x, float *__restrict__ mean, float *__restrict__ var, int cols) {
    const float *row = x + (size_t)blockIdx.x * cols;
    float m = 0.0f, m2 = 0.0f;
    int n = 0;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        float v = row[c];
        ++n;
        float d = v - m;
        m += d / n;
        m2 += d * (v - m);
    }
    mean[blockIdx.x * blockDim.x + threadIdx.x] = m;
    var[blockIdx.x * blockDim.x + threadIdx.x] = n > 1 ? m2 / (n - 1) : 0.0f;
}

extern "C" __global__ void matvec_f4(const float4 *__restrict__ A, const float4 *__restrict__ x, float *__restrict__ y, int rows, int cols4) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float acc = 0.0f;
    for (int c = 0; c < cols4; ++c) {
        float4 a = A[(size_t)r * cols4 + c], b = x[c];
        acc += a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
    }
    y[r] = acc;
}

extern "C" __global__ void conv1d_shared(const float *__restrict__ in, const float *__restrict__ w, float *__restrict__ out, int n) {
    __shared__ float tile[256 + 8];
    int i = blockIdx.x * 256 + threadIdx.x;
    tile[threadIdx.x + 4] = i < n ? in[i] : 0.0f;
    if (threadIdx.x < 4) {
        int l = i - 4, r = i + 256;
        tile[threadIdx.x] = l >= 0 ? in[l] : 0.0f;
        tile[threadIdx.x + 260] = r < n ? in[r] : 0.0f;
    }
    __syncthreads();
    float s = 0.0f;
    for (int k = 0; k < 9; ++k) s += w[k] * tile[threadIdx.x + k];
    if (i < n) out[i] = s;
}

extern "C" __global__ void bbox_reduce(const float2 *__restrict__ p, int *__restrict__ box, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float2 q = p[i];
    atomicMin(&box[0], __float2int_rd(q.x));
    atomicMin(&box[1], __float2int_rd(q.y));
    atomicMax(&box[2], __float2int_ru(q.x));
    atomicMax(&box[3], __float2int_ru(q.y));
}

extern "C" __global__ void popcount_words(const unsigned *__restrict__ w, int *__restrict__ out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int total = 0;
    for (int k = i; k < n; k += blockDim.x * gridDim.x) total += __popc(w[k]);
    atomicAdd(out, total);
}

extern "C" __global__ void soa_update(float *__restrict__ x, float *__restrict__ y, float *__restrict__ z,
                                      const float *__restrict__ vx, const float *__restrict__ vy, const float *__restrict__ vz,
                                      float dt, float damping, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float d = 1.0f - damping * dt;
    x[i] += vx[i] * dt * d;
    y[i] += vy[i] * dt * d;
    z[i] += vz[i] * dt * d;
}

extern "C" __global__ void grid_sum_atomic(const float *__restrict__ in, float *__restrict__ out, int n) {
    float s = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) s += in[i];
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffff, s, o);
    if ((threadIdx.x & 31) == 0) atomicAdd(out, s);
}

extern "C" __global__ void scan_double_buffer(const int *__restrict__ in, int *__restrict__ out, int n) {
    __shared__ int buf[2][256];
    int t = threadIdx.x, pin = 0;
    buf[0][t] = t < n ? in[t] : 0;
    __syncthreads();
    for (int off = 1; off < 256; off <<= 1) {
        int pout = 1 - pin;
        buf[pout][t] = buf[pin][t] + (t >= off ? buf[pin][t - off] : 0);
        pin = pout;
        __syncthreads();
    }
    if (t < n) out[t] = buf[pin][t];
}

extern "C" __global__ void threshold_count_rows(const float *__restrict__ m, int *__restrict__ cnt, float thr, int rows, int cols) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    int c0 = 0;
    for (int c = 0; c < cols; ++c) c0 += m[r * cols + c] > thr;
    cnt[r] = c0;
}

extern "C" __global__ void axpby_int(const int *__restrict__ x, const int *__restrict__ y, int *__restrict__ z, int a, int b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) z[i] = a * x[i] + b * y[i];
}
