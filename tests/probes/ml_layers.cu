// ML kernels: layernorm backward (warp per row), masked attention softmax
// (block per row, shared reductions), RoPE, warp top-k, dropout with a
// counter hash, embedding backward with atomics, SwiGLU, row logsumexp,
// group-norm statistics, AdamW with bias correction.

__device__ __forceinline__ float warp_sum(float v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}
__device__ __forceinline__ float warp_max(float v) {
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

extern "C" __global__ void layernorm_bwd_dx(const float *__restrict__ dy, const float *__restrict__ x,
                                            const float *__restrict__ gamma, const float *__restrict__ mean,
                                            const float *__restrict__ rstd, float *__restrict__ dx,
                                            int rows, int cols) {
    int row = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    int lane = threadIdx.x & 31;
    if (row >= rows) return;
    const float *dyr = dy + (size_t)row * cols;
    const float *xr = x + (size_t)row * cols;
    float mu = mean[row], rs = rstd[row];
    float sdy = 0.0f, sdyx = 0.0f;
    for (int c = lane; c < cols; c += 32) {
        float g = dyr[c] * gamma[c];
        float xh = (xr[c] - mu) * rs;
        sdy += g;
        sdyx += g * xh;
    }
    sdy = warp_sum(sdy);
    sdyx = warp_sum(sdyx);
    float inv = 1.0f / cols;
    for (int c = lane; c < cols; c += 32) {
        float g = dyr[c] * gamma[c];
        float xh = (xr[c] - mu) * rs;
        dx[(size_t)row * cols + c] = rs * (g - inv * (sdy + xh * sdyx));
    }
}

extern "C" __global__ void layernorm_bwd_dgamma(const float *__restrict__ dy, const float *__restrict__ x,
                                                const float *__restrict__ mean, const float *__restrict__ rstd,
                                                float *__restrict__ dgamma, float *__restrict__ dbeta,
                                                int rows, int cols) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols) return;
    float dg = 0.0f, db = 0.0f;
    for (int r = 0; r < rows; ++r) {
        float g = dy[(size_t)r * cols + c];
        dg += g * (x[(size_t)r * cols + c] - mean[r]) * rstd[r];
        db += g;
    }
    dgamma[c] = dg;
    dbeta[c] = db;
}

// One block per (batch*head, query row); scores row of length L, causal + padding mask.
extern "C" __global__ void attn_softmax_masked(float *__restrict__ scores, const unsigned char *__restrict__ pad,
                                               int L, float scale) {
    __shared__ float red[32];
    int row = blockIdx.x;
    int q = row % L;
    int b = row / L;
    float *s = scores + (size_t)row * L;
    const unsigned char *pm = pad + (size_t)b * L;
    float m = -INFINITY;
    for (int k = threadIdx.x; k < L; k += blockDim.x) {
        float v = (k > q || pm[k]) ? -INFINITY : s[k] * scale;
        s[k] = v;
        m = fmaxf(m, v);
    }
    m = warp_max(m);
    if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = m;
    __syncthreads();
    if (threadIdx.x < 32) {
        float t = threadIdx.x < (blockDim.x >> 5) ? red[threadIdx.x] : -INFINITY;
        t = warp_max(t);
        if (threadIdx.x == 0) red[0] = t;
    }
    __syncthreads();
    m = red[0];
    __syncthreads();
    float sum = 0.0f;
    for (int k = threadIdx.x; k < L; k += blockDim.x) {
        float e = m == -INFINITY ? 0.0f : __expf(s[k] - m);
        s[k] = e;
        sum += e;
    }
    sum = warp_sum(sum);
    if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = sum;
    __syncthreads();
    if (threadIdx.x < 32) {
        float t = threadIdx.x < (blockDim.x >> 5) ? red[threadIdx.x] : 0.0f;
        t = warp_sum(t);
        if (threadIdx.x == 0) red[0] = t;
    }
    __syncthreads();
    float inv = red[0] > 0.0f ? 1.0f / red[0] : 0.0f;
    for (int k = threadIdx.x; k < L; k += blockDim.x) s[k] *= inv;
}

// Rotary embedding on [tokens, heads, dim], pairs (i, i + dim/2).
extern "C" __global__ void rope_apply(float *__restrict__ qk, const int *__restrict__ pos, int heads, int dim,
                                     float theta, int tokens) {
    int half = dim >> 1;
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    int total = tokens * heads * half;
    if (idx >= total) return;
    int i = idx % half;
    int th = idx / half;
    int t = th / heads;
    float invf = powf(theta, -2.0f * i / dim);
    float ang = pos[t] * invf;
    float sn, cs;
    sincosf(ang, &sn, &cs);
    float *v = qk + (size_t)th * dim;
    float a = v[i], b = v[i + half];
    v[i] = a * cs - b * sn;
    v[i + half] = a * sn + b * cs;
}

// Each warp picks the K largest of a 32*4 candidate row, writing values and indices.
#define TOPK 8
extern "C" __global__ void warp_topk(const float *__restrict__ in, float *__restrict__ outv, int *__restrict__ outi,
                                     int rows) {
    int row = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    int lane = threadIdx.x & 31;
    if (row >= rows) return;
    float v[4];
    for (int j = 0; j < 4; ++j) v[j] = in[row * 128 + j * 32 + lane];
    for (int k = 0; k < TOPK; ++k) {
        float best = v[0];
        int bj = 0;
        for (int j = 1; j < 4; ++j)
            if (v[j] > best) { best = v[j]; bj = j; }
        int bidx = bj * 32 + lane;
        for (int o = 16; o > 0; o >>= 1) {
            float ov = __shfl_xor_sync(0xffffffffu, best, o);
            int oi = __shfl_xor_sync(0xffffffffu, bidx, o);
            if (ov > best || (ov == best && oi < bidx)) { best = ov; bidx = oi; }
        }
        if (lane == 0) { outv[row * TOPK + k] = best; outi[row * TOPK + k] = bidx; }
        if ((bidx & 31) == lane) {
            int jj = bidx >> 5;
            for (int j = 0; j < 4; ++j)
                if (j == jj) v[j] = -INFINITY;
        }
    }
}

__device__ __forceinline__ unsigned pcg_hash(unsigned x) {
    unsigned state = x * 747796405u + 2891336453u;
    unsigned word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
    return (word >> 22u) ^ word;
}

extern "C" __global__ void dropout_fwd(const float *__restrict__ x, float *__restrict__ y, unsigned char *__restrict__ mask,
                                       float p, unsigned seed, int n) {
    float scale = 1.0f / (1.0f - p);
    unsigned thresh = (unsigned)(p * 4294967295.0f);
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        unsigned r = pcg_hash(seed ^ (unsigned)i * 0x9E3779B9u);
        bool keep = r >= thresh;
        mask[i] = keep;
        y[i] = keep ? x[i] * scale : 0.0f;
    }
}

extern "C" __global__ void embedding_bwd(const int *__restrict__ ids, const float *__restrict__ dout,
                                         float *dtable, int tokens, int dim, int padding_idx) {
    int t = blockIdx.x;
    if (t >= tokens) return;
    int id = ids[t];
    if (id == padding_idx) return;
    for (int d = threadIdx.x; d < dim; d += blockDim.x) atomicAdd(&dtable[(size_t)id * dim + d], dout[(size_t)t * dim + d]);
}

extern "C" __global__ void swiglu_fwd(const float *__restrict__ gate_up, float *__restrict__ out, int rows, int hidden) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows * hidden) return;
    int r = i / hidden, c = i - r * hidden;
    float g = gate_up[(size_t)r * 2 * hidden + c];
    float u = gate_up[(size_t)r * 2 * hidden + hidden + c];
    float silu = g / (1.0f + expf(-g));
    out[i] = silu * u;
}

extern "C" __global__ void row_logsumexp(const float *__restrict__ x, float *__restrict__ lse, int rows, int cols) {
    int row = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    int lane = threadIdx.x & 31;
    if (row >= rows) return;
    float m = -INFINITY, s = 0.0f;
    for (int c = lane; c < cols; c += 32) {
        float v = x[(size_t)row * cols + c];
        if (v > m) { s = s * expf(m - v) + 1.0f; m = v; }
        else s += expf(v - m);
    }
    for (int o = 16; o > 0; o >>= 1) {
        float om = __shfl_xor_sync(0xffffffffu, m, o);
        float os = __shfl_xor_sync(0xffffffffu, s, o);
        float nm = fmaxf(m, om);
        s = (m == -INFINITY ? 0.0f : s * expf(m - nm)) + (om == -INFINITY ? 0.0f : os * expf(om - nm));
        m = nm;
    }
    if (lane == 0) lse[row] = m + logf(s);
}

extern "C" __global__ void groupnorm_stats(const float *__restrict__ x, float *__restrict__ mean, float *__restrict__ rstd,
                                           int C, int HW, int G, float eps) {
    __shared__ float ssum[256];
    __shared__ float ssq[256];
    int ng = blockIdx.x;
    int n = ng / G, g = ng % G;
    int cpg = C / G;
    size_t base = ((size_t)n * C + (size_t)g * cpg) * HW;
    int cnt = cpg * HW;
    float s = 0.0f, q = 0.0f;
    for (int i = threadIdx.x; i < cnt; i += blockDim.x) {
        float v = x[base + i];
        s += v;
        q += v * v;
    }
    ssum[threadIdx.x] = s;
    ssq[threadIdx.x] = q;
    __syncthreads();
    for (int st = blockDim.x >> 1; st > 0; st >>= 1) {
        if (threadIdx.x < st) {
            ssum[threadIdx.x] += ssum[threadIdx.x + st];
            ssq[threadIdx.x] += ssq[threadIdx.x + st];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        float mu = ssum[0] / cnt;
        float var = ssq[0] / cnt - mu * mu;
        mean[ng] = mu;
        rstd[ng] = rsqrtf(fmaxf(var, 0.0f) + eps);
    }
}

extern "C" __global__ void adamw_step(float *__restrict__ p, const float *__restrict__ g, float *__restrict__ m,
                                      float *__restrict__ v, float lr, float b1, float b2, float eps, float wd,
                                      int step, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float bc1 = 1.0f - powf(b1, (float)step);
    float bc2 = 1.0f - powf(b2, (float)step);
    float gi = g[i];
    float mi = b1 * m[i] + (1.0f - b1) * gi;
    float vi = b2 * v[i] + (1.0f - b2) * gi * gi;
    m[i] = mi;
    v[i] = vi;
    float mhat = mi / bc1, vhat = vi / bc2;
    float pi = p[i];
    pi -= lr * (mhat / (sqrtf(vhat) + eps) + wd * pi);
    p[i] = pi;
}
