// 1D convolution with weights in constant memory and a shared-memory input
// tile with halo; the filter radius is a compile-time constant.
#define RADIUS 4
#define CONV_BLOCK 256

__constant__ float c_weights[2 * RADIUS + 1];

extern "C" __global__ void conv1d(const float *__restrict__ in, float *__restrict__ out, int n) {
    __shared__ float s[CONV_BLOCK + 2 * RADIUS];
    int g = blockIdx.x * CONV_BLOCK + threadIdx.x;
    int l = threadIdx.x + RADIUS;
    s[l] = g < n ? in[g] : 0.0f;
    if (threadIdx.x < RADIUS) {
        int left = g - RADIUS;
        int right = g + CONV_BLOCK;
        s[l - RADIUS] = left >= 0 ? in[left] : 0.0f;
        s[l + CONV_BLOCK] = right < n ? in[right] : 0.0f;
    }
    __syncthreads();
    if (g >= n) return;
    float acc = 0.0f;
#pragma unroll
    for (int k = -RADIUS; k <= RADIUS; ++k)
        acc += c_weights[k + RADIUS] * s[l + k];
    out[g] = acc;
}
