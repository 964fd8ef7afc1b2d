// Restrict-qualified inputs: x is only read (ld.global.nc); y is read and
// written through its restrict pointer, so it must not use the
// non-coherent path. z has no restrict at all.
extern "C" __global__ void saxpy_restrict(int n, float a, const float *__restrict__ x,
                                          float *__restrict__ y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

extern "C" __global__ void add_plain(int n, const float *x, float *z) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        z[i] = x[i] + z[i];
}
