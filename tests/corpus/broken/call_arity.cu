// expect: 8:14: too few arguments
__device__ float lerp(float a, float b, float t) {
    return a + t * (b - a);
}

extern "C" __global__ void blend(const float *a, const float *b, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = lerp(a[i], b[i]);
}
