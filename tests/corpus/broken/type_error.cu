// expect: 5:20: cannot convert
extern "C" __global__ void copy(float *dst, const float *src, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float *p = src[i];
        dst[i] = *p;
    }
}
