// expect: 5:23: expected `;`
extern "C" __global__ void scale(float *x, float s, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] = s * x[i]
    x[0] = 1.0f;
}
