// Integer bit tricks: population count, leading zeros, next power of two,
// bit reversal, and division/modulo by constants and by a runtime value.
__device__ __forceinline__ unsigned next_pow2(unsigned v) {
    return v <= 1 ? 1u : 1u << (32 - __clz(v - 1));
}

extern "C" __global__ void bit_tricks(const unsigned *__restrict__ in, unsigned *__restrict__ out,
                                      int n, unsigned divisor) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned v = in[i];
    unsigned pc = __popc(v);
    unsigned lz = __clz(v);
    unsigned np = next_pow2(v & 0xffffu);
    unsigned rev = __brev(v) >> 16;
    unsigned q7 = v / 7u, r7 = v % 7u;
    unsigned q10 = v / 10u;
    unsigned qd = v / divisor, rd = v % divisor;
    unsigned rot = (v << 5) | (v >> 27);
    out[4 * i + 0] = pc + (lz << 8) + (np << 16);
    out[4 * i + 1] = rev ^ rot;
    out[4 * i + 2] = q7 + r7 * 3u + q10;
    out[4 * i + 3] = qd * 31u + rd;
}

extern "C" __global__ void signed_divmod(const int *__restrict__ in, int *__restrict__ out,
                                         int n, int d) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = in[i];
    int a = v / 16 + v % 16;
    int b = v / -3 + v % 5;
    int c = (v >> 3) ^ (v >> 31);
    int e = d != 0 ? v / d + v % d : 0;
    out[i] = a + b + c + e;
}
