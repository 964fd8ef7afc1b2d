// A kernel that takes a struct by value, and device helpers that take and
// return structs.
struct Affine {
    float scale;
    float bias;
    int n;
    int stride;
};

struct MinMax {
    float lo;
    float hi;
};

__device__ MinMax clampRange(Affine p) {
    MinMax r;
    r.lo = -p.scale;
    r.hi = p.scale + p.bias;
    return r;
}

extern "C" __global__ void affine_clamp(Affine p, const float *in, float *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= p.n)
        return;
    MinMax r = clampRange(p);
    float v = p.scale * in[i * p.stride] + p.bias;
    out[i] = fminf(fmaxf(v, r.lo), r.hi);
}
