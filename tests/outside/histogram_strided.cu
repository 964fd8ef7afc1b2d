// Histogram of float values into a runtime number of bins (<= 1024), using
// a shared sub-histogram per warp to reduce contention.
#define MAX_BINS 1024
#define WARPS 4

extern "C" __global__ void histogram_float(const float *__restrict__ x, int n, float lo,
                                           float hi, int nbins, unsigned *__restrict__ hist) {
    __shared__ unsigned sh[WARPS][MAX_BINS];
    int warp = threadIdx.x / 32;
    for (int b = threadIdx.x; b < WARPS * MAX_BINS; b += blockDim.x)
        sh[b / MAX_BINS][b % MAX_BINS] = 0;
    __syncthreads();
    float scale = nbins / (hi - lo);
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        float v = x[i];
        if (v < lo || v >= hi) continue;
        int b = (int)((v - lo) * scale);
        b = min(b, nbins - 1);
        atomicAdd(&sh[warp][b], 1u);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < nbins; b += blockDim.x) {
        unsigned s = 0;
        for (int w = 0; w < WARPS; ++w) s += sh[w][b];
        if (s) atomicAdd(&hist[b], s);
    }
}
