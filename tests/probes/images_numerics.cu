// Images, numerics and geometry: histogram equalization (shared CDF scan +
// LUT apply), 3x3 convolution with a shared halo tile and constant weights,
// tiled transpose of doubles, matrix-vector with float4 loads and a warp
// reduction, segmented sum with head flags and warp shuffles, block
// cumulative max, Horner in double, quaternion rotation, AoS particle
// update with a struct, Julia set in double, n-body with a shared tile,
// complex multiply-accumulate (double2).

extern "C" __global__ void histeq_build_lut(const unsigned *__restrict__ hist, unsigned char *__restrict__ lut, int npix) {
    __shared__ unsigned cdf[256];
    int t = threadIdx.x;          // blockDim.x == 256
    cdf[t] = hist[t];
    __syncthreads();
    for (int off = 1; off < 256; off <<= 1) {
        unsigned v = t >= off ? cdf[t - off] : 0u;
        __syncthreads();
        cdf[t] += v;
        __syncthreads();
    }
    __shared__ unsigned cdfmin;
    if (t == 0) {
        unsigned m = 0;
        for (int i = 0; i < 256; ++i)
            if (cdf[i]) { m = cdf[i]; break; }
        cdfmin = m;
    }
    __syncthreads();
    float denom = (float)(npix - (int)cdfmin);
    float v = denom > 0.0f ? ((float)(cdf[t] - cdfmin) / denom) * 255.0f : (float)t;
    lut[t] = (unsigned char)fminf(fmaxf(rintf(v), 0.0f), 255.0f);
}

extern "C" __global__ void histeq_apply(const uchar4 *__restrict__ in, uchar4 *__restrict__ out,
                                        const unsigned char *__restrict__ lut, int n4) {
    __shared__ unsigned char sl[256];
    for (int i = threadIdx.x; i < 256; i += blockDim.x) sl[i] = lut[i];
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += gridDim.x * blockDim.x) {
        uchar4 p = in[i];
        out[i] = make_uchar4(sl[p.x], sl[p.y], sl[p.z], sl[p.w]);
    }
}

#define BX 16
#define BY 16
__constant__ float c_k3[9];
extern "C" __global__ void conv3x3_halo(const float *__restrict__ in, float *__restrict__ out, int w, int h) {
    __shared__ float tile[BY + 2][BX + 2];
    int tx = threadIdx.x, ty = threadIdx.y;
    int x0 = blockIdx.x * BX - 1, y0 = blockIdx.y * BY - 1;
    for (int yy = ty; yy < BY + 2; yy += BY)
        for (int xx = tx; xx < BX + 2; xx += BX) {
            int gx = min(max(x0 + xx, 0), w - 1);
            int gy = min(max(y0 + yy, 0), h - 1);
            tile[yy][xx] = in[gy * w + gx];
        }
    __syncthreads();
    int x = blockIdx.x * BX + tx, y = blockIdx.y * BY + ty;
    if (x >= w || y >= h) return;
    float s = 0.0f;
#pragma unroll
    for (int j = 0; j < 3; ++j)
#pragma unroll
        for (int i = 0; i < 3; ++i) s += c_k3[j * 3 + i] * tile[ty + j][tx + i];
    out[y * w + x] = s;
}

#define TD 32
#define TROWS 8
extern "C" __global__ void transpose_f64(const double *__restrict__ in, double *__restrict__ out, int rows, int cols) {
    __shared__ double tile[TD][TD + 1];
    int x = blockIdx.x * TD + threadIdx.x;
    int y = blockIdx.y * TD + threadIdx.y;
    for (int j = 0; j < TD; j += TROWS)
        if (x < cols && y + j < rows) tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * cols + x];
    __syncthreads();
    x = blockIdx.y * TD + threadIdx.x;
    y = blockIdx.x * TD + threadIdx.y;
    for (int j = 0; j < TD; j += TROWS)
        if (x < rows && y + j < cols) out[(size_t)(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}

extern "C" __global__ void gemv_float4_warp(const float *__restrict__ A, const float *__restrict__ x, float *__restrict__ y,
                                            int rows, int cols, float alpha) {
    int row = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    int lane = threadIdx.x & 31;
    if (row >= rows) return;
    const float4 *a4 = reinterpret_cast<const float4 *>(A + (size_t)row * cols);
    const float4 *x4 = reinterpret_cast<const float4 *>(x);
    int c4 = cols >> 2;
    float s = 0.0f;
    for (int c = lane; c < c4; c += 32) {
        float4 a = a4[c], b = x4[c];
        s += a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
    }
    for (int c = (c4 << 2) + lane; c < cols; c += 32) s += A[(size_t)row * cols + c] * x[c];
    for (int o = 16; o; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
    if (lane == 0) y[row] = alpha * s;
}

// Segmented inclusive sum inside each warp; flags mark segment heads.
extern "C" __global__ void warp_segmented_sum(const float *__restrict__ v, const int *__restrict__ head,
                                              float *__restrict__ out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    float x = i < n ? v[i] : 0.0f;
    int f = i < n ? head[i] : 1;
    unsigned heads = __ballot_sync(0xffffffffu, f != 0) | 1u;
    unsigned below = heads & (0xffffffffu >> (31 - lane));
    int segStart = 31 - __clz(below);
    for (int o = 1; o < 32; o <<= 1) {
        float y = __shfl_up_sync(0xffffffffu, x, o);
        if (lane - o >= segStart) x += y;
    }
    if (i < n) out[i] = x;
}

extern "C" __global__ void block_cummax(const float *__restrict__ in, float *__restrict__ out, int n) {
    __shared__ float wmax[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
    float x = i < n ? in[i] : -INFINITY;
    for (int o = 1; o < 32; o <<= 1) {
        float y = __shfl_up_sync(0xffffffffu, x, o);
        if (lane >= o) x = fmaxf(x, y);
    }
    if (lane == 31) wmax[wid] = x;
    __syncthreads();
    if (wid == 0) {
        int nw = blockDim.x >> 5;
        float t = lane < nw ? wmax[lane] : -INFINITY;
        for (int o = 1; o < 32; o <<= 1) {
            float y = __shfl_up_sync(0xffffffffu, t, o);
            if (lane >= o) t = fmaxf(t, y);
        }
        wmax[lane] = t;
    }
    __syncthreads();
    if (wid > 0) x = fmaxf(x, wmax[wid - 1]);
    if (i < n) out[i] = x;
}

__constant__ double c_poly[12];
extern "C" __global__ void horner_f64(const double *__restrict__ x, double *__restrict__ y, int deg, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        double t = x[i];
        double r = c_poly[deg];
        for (int k = deg - 1; k >= 0; --k) r = fma(r, t, c_poly[k]);
        y[i] = r;
    }
}

__device__ __forceinline__ float4 qmul(float4 a, float4 b) {
    return make_float4(a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                       a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                       a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
                       a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z);
}

extern "C" __global__ void quat_rotate(const float4 *__restrict__ q, const float3 *__restrict__ v, float3 *__restrict__ o, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 r = q[i];
    float inv = rsqrtf(r.x * r.x + r.y * r.y + r.z * r.z + r.w * r.w);
    r.x *= inv; r.y *= inv; r.z *= inv; r.w *= inv;
    float3 p = v[i];
    float4 pv = make_float4(p.x, p.y, p.z, 0.0f);
    float4 rc = make_float4(-r.x, -r.y, -r.z, r.w);
    float4 res = qmul(qmul(r, pv), rc);
    o[i] = make_float3(res.x, res.y, res.z);
}

struct Particle {
    float3 pos;
    float3 vel;
    float mass;
    int alive;
};

extern "C" __global__ void particles_aos(Particle *__restrict__ ps, int n, float dt, float3 gravity, float floorY, float restitution) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Particle p = ps[i];
    if (!p.alive) return;
    float drag = 0.02f / p.mass;
    p.vel.x += (gravity.x - drag * p.vel.x) * dt;
    p.vel.y += (gravity.y - drag * p.vel.y) * dt;
    p.vel.z += (gravity.z - drag * p.vel.z) * dt;
    p.pos.x += p.vel.x * dt;
    p.pos.y += p.vel.y * dt;
    p.pos.z += p.vel.z * dt;
    if (p.pos.y < floorY) {
        p.pos.y = floorY;
        p.vel.y = -p.vel.y * restitution;
        if (fabsf(p.vel.y) < 1e-3f) p.alive = 0;
    }
    ps[i] = p;
}

extern "C" __global__ void julia_f64(unsigned char *__restrict__ img, int w, int h, double cre, double cim,
                                     double scale, int maxIter) {
    int px = blockIdx.x * blockDim.x + threadIdx.x, py = blockIdx.y * blockDim.y + threadIdx.y;
    if (px >= w || py >= h) return;
    double zr = (px - w * 0.5) * scale, zi = (py - h * 0.5) * scale;
    int it = 0;
    while (it < maxIter) {
        double zr2 = zr * zr, zi2 = zi * zi;
        if (zr2 + zi2 > 4.0) break;
        zi = 2.0 * zr * zi + cim;
        zr = zr2 - zi2 + cre;
        ++it;
    }
    img[py * w + px] = (unsigned char)(it == maxIter ? 0 : 1 + (it * 254) / maxIter);
}

#define NB_TILE 128
extern "C" __global__ void nbody_shared_tile(const float4 *__restrict__ posm, float3 *__restrict__ acc, int n, float soft2) {
    __shared__ float4 sp[NB_TILE];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float4 me = i < n ? posm[i] : make_float4(0.f, 0.f, 0.f, 0.f);
    float ax = 0.f, ay = 0.f, az = 0.f;
    for (int base = 0; base < n; base += NB_TILE) {
        int j = base + threadIdx.x;
        sp[threadIdx.x] = j < n ? posm[j] : make_float4(0.f, 0.f, 0.f, 0.f);
        __syncthreads();
#pragma unroll 4
        for (int k = 0; k < NB_TILE; ++k) {
            float4 o = sp[k];
            float dx = o.x - me.x, dy = o.y - me.y, dz = o.z - me.z;
            float r2 = dx * dx + dy * dy + dz * dz + soft2;
            float ir = rsqrtf(r2);
            float s = o.w * ir * ir * ir;
            ax += dx * s; ay += dy * s; az += dz * s;
        }
        __syncthreads();
    }
    if (i < n) acc[i] = make_float3(ax, ay, az);
}

// y[i] += sum_k A[i][k] * x[k], complex double, one thread per row.
extern "C" __global__ void zgemv_cmac(const double2 *__restrict__ A, const double2 *__restrict__ x, double2 *__restrict__ y,
                                      int rows, int cols) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    double re = 0.0, im = 0.0;
    for (int k = 0; k < cols; ++k) {
        double2 a = A[(size_t)k * rows + r];
        double2 b = x[k];
        re = fma(a.x, b.x, re);
        re = fma(-a.y, b.y, re);
        im = fma(a.x, b.y, im);
        im = fma(a.y, b.x, im);
    }
    double2 o = y[r];
    o.x += re; o.y += im;
    y[r] = o;
}
