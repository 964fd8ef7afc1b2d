// test compile sm_80
// Loops whose counter halves (`o >>= 1`, `s /= 2`) have a constant trip
// count too: `unroll` runs the counter at compile time (16, 8, 4, 2, 1),
// so the warp reduction is five shuffles in a row with immediate offsets,
// and the block reduction's tree is three steps with no loop left.
extern "C" __global__ void halving(const float *in, float *out) {
    __shared__ float s[8];
    float v = in[threadIdx.x];
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    if (threadIdx.x < 8)
        s[threadIdx.x] = v;
    __syncthreads();
    for (int k = 4; k >= 1; k /= 2) {
        if ((int)threadIdx.x < k)
            s[threadIdx.x] += s[threadIdx.x + k];
        __syncthreads();
    }
    out[threadIdx.x] = s[0];
}
// check: , 16, 31, 4294967295;
// check: , 8, 31, 4294967295;
// check: , 4, 31, 4294967295;
// check: , 2, 31, 4294967295;
// check: , 1, 31, 4294967295;
// check: bar.sync 0;
// check: bar.sync 0;
// check: bar.sync 0;
// check: bar.sync 0;
// not: bar.sync
// check: ret;
