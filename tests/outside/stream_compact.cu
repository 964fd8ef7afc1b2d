// Stream compaction: keep positive values. Warp-aggregated atomics: one
// atomicAdd per warp on a global counter, lanes get offsets from the ballot.
extern "C" __global__ void compact_positive(const float *__restrict__ in, int n,
                                            float *__restrict__ out, int *__restrict__ count) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? in[i] : 0.0f;
    bool keep = i < n && v > 0.0f;
    unsigned lane = threadIdx.x & 31;
    unsigned mask = __ballot_sync(0xffffffffu, keep);
    int base = 0;
    if (lane == 0 && mask) base = atomicAdd(count, __popc(mask));
    base = __shfl_sync(0xffffffffu, base, 0);
    if (keep) {
        unsigned below = mask & ((1u << lane) - 1u);
        out[base + __popc(below)] = v;
    }
}
