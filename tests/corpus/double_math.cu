// Double precision: a damped oscillation evaluated per element, and a
// per-block sum of squares with a shared-memory tree.
extern "C" __global__ void damped(const double *t, double *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        double x = t[i];
        y[i] = exp(-0.5 * x) * cos(3.0 * x) + sqrt(x + 1.0) - log(1.0 + x * x);
    }
}

extern "C" __global__ void sum_squares(const double *v, double *partial, int n) {
    __shared__ double s[128];
    int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x + tid;
    double a = (i < n) ? v[i] : 0.0;
    s[tid] = a * a;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (tid < stride)
            s[tid] += s[tid + stride];
        __syncthreads();
    }
    if (tid == 0)
        partial[blockIdx.x] = s[0];
}
