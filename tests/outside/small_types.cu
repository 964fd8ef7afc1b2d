// signed/unsigned char and short arithmetic: saturating int8 add, uint8
// alpha blend, int16 audio gain with clipping.
__device__ __forceinline__ signed char sat_i8(int v) {
    return (signed char)(v > 127 ? 127 : (v < -128 ? -128 : v));
}

extern "C" __global__ void i8_saturating_add(const signed char *a, const signed char *b,
                                             signed char *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = sat_i8((int)a[i] + (int)b[i]);
}

extern "C" __global__ void u8_blend(const unsigned char *__restrict__ src,
                                    const unsigned char *__restrict__ dst,
                                    const unsigned char *__restrict__ alpha,
                                    unsigned char *__restrict__ out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned a = alpha[i];
    unsigned v = (src[i] * a + dst[i] * (255u - a) + 127u) / 255u;
    out[i] = (unsigned char)v;
}

extern "C" __global__ void s16_gain(const short *__restrict__ in, short *__restrict__ out,
                                    unsigned short gainQ8, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = ((int)in[i] * (int)gainQ8) >> 8;
    if (v > 32767) v = 32767;
    if (v < -32768) v = -32768;
    out[i] = (short)v;
}
