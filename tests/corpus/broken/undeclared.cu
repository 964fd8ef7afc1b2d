// expect: 5:11: undeclared identifier `idx`
extern "C" __global__ void vadd(const float *a, const float *b, float *c, int n) {
    int index = blockIdx.x * blockDim.x + threadIdx.x;
    if (index < n)
        c[idx] = a[index] + b[index];
}
