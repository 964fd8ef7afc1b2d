// expect: 2:34: expected `)`
__device__ void accumulate(float &acc, float v) {
    acc += v;
}

extern "C" __global__ void total(const float *x, float *out) {
    float s = 0.0f;
    accumulate(s, x[threadIdx.x]);
    out[threadIdx.x] = s;
}
