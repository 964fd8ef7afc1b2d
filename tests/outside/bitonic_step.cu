// One global step of a bitonic sort (the host loops over k and j), and a
// shared-memory bitonic sort of 1024 keys within a block.
extern "C" __global__ void bitonic_step(float *data, int j, int k) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned ixj = i ^ j;
    if (ixj > i) {
        float a = data[i], b = data[ixj];
        bool up = (i & k) == 0;
        if ((up && a > b) || (!up && a < b)) {
            data[i] = b;
            data[ixj] = a;
        }
    }
}

extern "C" __global__ void bitonic_block1024(unsigned *keys) {
    __shared__ unsigned s[1024];
    unsigned tid = threadIdx.x;
    unsigned base = blockIdx.x * 1024;
    s[tid] = keys[base + tid];
    s[tid + 512] = keys[base + tid + 512];
    __syncthreads();
    for (unsigned k = 2; k <= 1024; k <<= 1) {
        for (unsigned j = k >> 1; j > 0; j >>= 1) {
            unsigned i = 2 * tid - (tid & (j - 1));
            unsigned l = i + j;
            bool up = (i & k) == 0;
            unsigned a = s[i], b = s[l];
            if ((a > b) == up) { s[i] = b; s[l] = a; }
            __syncthreads();
        }
    }
    keys[base + tid] = s[tid];
    keys[base + tid + 512] = s[tid + 512];
}
