// Probe kernels written while measuring kernelc against nvcc (issue 10,
// 2026-11-27): n-body forces, byte row sums, float to u8 with clamping, a naive transpose, Horner over run-time coefficients, a warp prefix sum, normalizing float3s, a masked fill, a 2D row gather, cross products, box IoU.
// Not tuned for kernelc; compared with `scripts/compare-nvcc tests/probes/*.cu`.

struct Body { float x, y, z, m; };

extern "C" __global__ void nbody_forces(const float4 *__restrict__ pos, float3 *__restrict__ acc, int n, float eps2) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 pi = pos[i];
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (int j = 0; j < n; ++j) {
        float4 pj = pos[j];
        float dx = pj.x - pi.x, dy = pj.y - pi.y, dz = pj.z - pi.z;
        float r2 = dx * dx + dy * dy + dz * dz + eps2;
        float inv = rsqrtf(r2);
        float s = pj.w * inv * inv * inv;
        ax += dx * s; ay += dy * s; az += dz * s;
    }
    acc[i] = make_float3(ax, ay, az);
}

extern "C" __global__ void sum_rows_u8(const unsigned char *__restrict__ img, unsigned *__restrict__ sums, int w, int h) {
    int y = blockIdx.x * blockDim.x + threadIdx.x;
    if (y >= h) return;
    unsigned s = 0;
    for (int x = 0; x < w; ++x) s += img[y * w + x];
    sums[y] = s;
}

extern "C" __global__ void clamp_cast_u8(const float *__restrict__ in, unsigned char *__restrict__ out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = in[i] * 255.0f + 0.5f;
        out[i] = (unsigned char)(v < 0.0f ? 0.0f : (v > 255.0f ? 255.0f : v));
    }
}

extern "C" __global__ void transpose_naive(const float *__restrict__ in, float *__restrict__ out, int rows, int cols) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols) out[c * rows + r] = in[r * cols + c];
}

extern "C" __global__ void poly_eval_horner(const float *__restrict__ x, float *__restrict__ y, const float *__restrict__ coef, int deg, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i], acc = coef[deg];
    for (int k = deg - 1; k >= 0; --k) acc = acc * v + coef[k];
    y[i] = acc;
}

extern "C" __global__ void warp_prefix(const int *__restrict__ in, int *__restrict__ out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    int v = i < n ? in[i] : 0;
    for (int d = 1; d < 32; d <<= 1) {
        int t = __shfl_up_sync(0xffffffff, v, d);
        if (lane >= d) v += t;
    }
    if (i < n) out[i] = v;
}

extern "C" __global__ void vec_norm3(const float3 *__restrict__ v, float3 *__restrict__ o, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float3 a = v[i];
    float inv = rsqrtf(a.x * a.x + a.y * a.y + a.z * a.z + 1e-12f);
    o[i] = make_float3(a.x * inv, a.y * inv, a.z * inv);
}

extern "C" __global__ void masked_fill(float *__restrict__ x, const unsigned char *__restrict__ mask, float value, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && mask[i]) x[i] = value;
}

extern "C" __global__ void gather2d(const float *__restrict__ src, const int *__restrict__ rows, float *__restrict__ dst,
                                    int ncols, int nrows_out) {
    int r = blockIdx.y;
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < nrows_out && c < ncols) dst[r * ncols + c] = src[rows[r] * ncols + c];
}

extern "C" __global__ void cross_product(const float3 *__restrict__ a, const float3 *__restrict__ b, float3 *__restrict__ c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float3 u = a[i], v = b[i];
    c[i] = make_float3(u.y * v.z - u.z * v.y, u.z * v.x - u.x * v.z, u.x * v.y - u.y * v.x);
}

extern "C" __global__ void iou_boxes(const float4 *__restrict__ a, const float4 *__restrict__ b, float *__restrict__ iou, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 p = a[i], q = b[i];
    float x1 = fmaxf(p.x, q.x), y1 = fmaxf(p.y, q.y), x2 = fminf(p.z, q.z), y2 = fminf(p.w, q.w);
    float inter = fmaxf(0.0f, x2 - x1) * fmaxf(0.0f, y2 - y1);
    float ua = (p.z - p.x) * (p.w - p.y) + (q.z - q.x) * (q.w - q.y) - inter;
    iou[i] = ua > 0.0f ? inter / ua : 0.0f;
}
