// A kernel parameter struct with an array member, read by index: Horner's
// rule over the coefficients (indices that unrolling makes constant) and a
// coefficient picked by a run-time index. The body only reads the struct,
// so both kernels read it where the host put it (`ld.param`, through a
// register for the run-time index) instead of copying it to local memory.
struct Poly {
    float c[8];
    int n;
    int pick;
};

extern "C" __global__ void horner(Poly p, const float *x, float *y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= p.n)
        return;
    float v = x[i];
    float acc = 0.0f;
    for (int k = 7; k >= 0; --k)
        acc = acc * v + p.c[k];
    y[i] = acc;
}

extern "C" __global__ void pick_coeff(Poly p, const int *sel, float *y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < p.n)
        y[i] = p.c[(sel[i] + p.pick) & 7];
}
