// 3x3 box blur and Gaussian blur on a single-channel float image with clamp
// to edge; nested constant-trip loops over the window.
__device__ __forceinline__ int clampi(int v, int lo, int hi) {
    return v < lo ? lo : (v > hi ? hi : v);
}

extern "C" __global__ void blur3x3(const float *__restrict__ in, float *__restrict__ out,
                                   int w, int h, int gaussian) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    const float g[3][3] = {{1.f, 2.f, 1.f}, {2.f, 4.f, 2.f}, {1.f, 2.f, 1.f}};
    float acc = 0.0f, wsum = 0.0f;
    for (int dy = -1; dy <= 1; ++dy) {
        for (int dx = -1; dx <= 1; ++dx) {
            int sx = clampi(x + dx, 0, w - 1);
            int sy = clampi(y + dy, 0, h - 1);
            float k = gaussian ? g[dy + 1][dx + 1] : 1.0f;
            acc += k * in[sy * w + sx];
            wsum += k;
        }
    }
    out[y * w + x] = acc / wsum;
}
