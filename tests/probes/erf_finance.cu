// The error function family where it is used: exact GELU (erff), the
// Black-Scholes formula of CUDA's samples (normcdff with expf, logf,
// sqrtf), a Gaussian tail probability (erfcf), a normal CDF table, and
// Gaussian samples by the inverse CDF (erfinvf).

extern "C" __global__ void gelu_exact(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = 0.5f * v * (1.0f + erff(v * 0.70710678f));
    }
}

// Call and put prices for n options; r and sigma are shared.
extern "C" __global__ void black_scholes(float* call, float* put, const float* spot,
                                         const float* strike, const float* years,
                                         float r, float sigma, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        float s = spot[i], x = strike[i], t = years[i];
        float sqrt_t = sqrtf(t);
        float d1 = (logf(s / x) + (r + 0.5f * sigma * sigma) * t) / (sigma * sqrt_t);
        float d2 = d1 - sigma * sqrt_t;
        float cnd1 = normcdff(d1);
        float cnd2 = normcdff(d2);
        float disc = expf(-r * t);
        call[i] = s * cnd1 - x * disc * cnd2;
        put[i] = x * disc * (1.0f - cnd2) - s * (1.0f - cnd1);
    }
}

// P(|Z| > k·sigma) for each threshold, and the log of it.
extern "C" __global__ void gaussian_tail(const float* k, float* p, float* logp, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float q = erfcf(k[i] * 0.70710678f);
        p[i] = q;
        logp[i] = logf(q);
    }
}

// A normal CDF table on [lo, lo + n·step), one entry per thread.
extern "C" __global__ void normcdf_table(float* out, float lo, float step, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = normcdff(lo + step * (float)i);
}

// Gaussian samples from uniform ones by the inverse CDF: z = √2·erfinv(2u - 1).
extern "C" __global__ void gauss_from_uniform(const float* u, float* z, float mean, float sd, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        z[i] = mean + sd * 1.41421356f * erfinvf(2.0f * u[i] - 1.0f);
}
