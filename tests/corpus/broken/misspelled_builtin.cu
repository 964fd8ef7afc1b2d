// expect: 5:5: undeclared identifier `__syncthread`
extern "C" __global__ void stage(const float *in, float *out) {
    __shared__ float tile[128];
    tile[threadIdx.x] = in[threadIdx.x];
    __syncthread();
    out[threadIdx.x] = tile[127 - threadIdx.x];
}
