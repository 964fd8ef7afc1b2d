// Warp-level argmax with __shfl_xor_sync (butterfly), then a per-block
// result written by lane 0 of each warp through atomicMax on an encoded key.
__device__ __forceinline__ void warp_argmax(float &v, int &idx) {
    for (int m = 16; m > 0; m >>= 1) {
        float ov = __shfl_xor_sync(0xffffffffu, v, m);
        int oi = __shfl_xor_sync(0xffffffffu, idx, m);
        if (ov > v || (ov == v && oi < idx)) {
            v = ov;
            idx = oi;
        }
    }
}

extern "C" __global__ void argmax_rows(const float *__restrict__ x, int cols,
                                       int *__restrict__ outIdx, float *__restrict__ outVal) {
    int row = blockIdx.x;
    int lane = threadIdx.x;  // one warp per row
    const float *r = x + (size_t)row * cols;
    float best = -INFINITY;
    int bi = 0x7fffffff;
    for (int c = lane; c < cols; c += 32) {
        float v = r[c];
        if (v > best) { best = v; bi = c; }
    }
    warp_argmax(best, bi);
    if (lane == 0) {
        outIdx[row] = bi;
        outVal[row] = best;
    }
}
