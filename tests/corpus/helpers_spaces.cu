// Device helpers called with pointers into different memory spaces.
#define BLOCK 64
#define WIN 4

// Sums WIN elements starting at p. Called with a shared pointer, a global
// pointer and a local array: each call gets its own specialized copy.
__device__ __noinline__ float window_sum(const float *p) {
    float s = 0.0f;
    for (int k = 0; k < WIN; ++k)
        s += p[k];
    return s;
}

// A chain: scale -> twice -> window_sum.
__device__ __noinline__ float twice(const float *p) {
    return 2.0f * window_sum(p);
}

__device__ __noinline__ void scale_store(float *dst, const float *src, float f) {
    *dst = f * twice(src);
}

// Counts into either space; the guard picks the atomic scope.
__device__ __noinline__ void bump(unsigned int *counter) {
    if (__isShared(counter))
        atomicAdd_block(counter, 1u);
    else
        atomicAdd(counter, 1u);
}

extern "C" __global__ void helpers(const float *in, float *out, unsigned int *hits, int n) {
    __shared__ float tile[BLOCK + WIN];
    __shared__ float alt[BLOCK + WIN];
    __shared__ unsigned int blockHits;
    int t = threadIdx.x;
    int g = blockIdx.x * BLOCK + t;

    if (t == 0)
        blockHits = 0;
    tile[t] = (g < n) ? in[g] : 0.0f;
    alt[t] = -tile[t];
    if (t < WIN) {
        int h = g + BLOCK;
        tile[BLOCK + t] = (h < n) ? in[h] : 0.0f;
        alt[BLOCK + t] = -tile[BLOCK + t];
    }
    __syncthreads();

    // Threads whose window runs past the end take no part, but they stay
    // for the barrier below.
    if (g + WIN <= n) {
        float local[WIN];
        for (int k = 0; k < WIN; ++k)
            local[k] = in[g + k] * 0.5f;

        // A select between two shared arrays is still shared.
        const float *pick = (t & 1) ? alt : tile;

        float a = window_sum(&tile[t]);
        float b = window_sum(in + g);
        float c = window_sum(local);
        float d = window_sum(pick + t);
        scale_store(&out[4 * g], &tile[t], 1.0f);
        out[4 * g + 1] = a - b;
        out[4 * g + 2] = c + d;
        out[4 * g + 3] = a;

        bump(&blockHits);
    }
    __syncthreads();
    if (t == 0)
        bump(&hits[0]);
    if (t == 0)
        atomicAdd(&hits[1], blockHits);
}
