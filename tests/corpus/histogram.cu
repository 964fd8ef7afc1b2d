// 256-bin histogram of bytes. Each block builds a private histogram in
// shared memory with shared atomics, then merges it into the global one.
#define NUM_BINS 256

extern "C" __global__ void histogram256(const unsigned char *data, int n, unsigned int *bins) {
    __shared__ unsigned int local_bins[NUM_BINS];

    for (int b = threadIdx.x; b < NUM_BINS; b += blockDim.x)
        local_bins[b] = 0;
    __syncthreads();

    int stride = blockDim.x * gridDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        atomicAdd(&local_bins[data[i]], 1u);
    __syncthreads();

    for (int b = threadIdx.x; b < NUM_BINS; b += blockDim.x) {
        unsigned int count = local_bins[b];
        if (count > 0)
            atomicAdd(&bins[b], count);
    }
}
