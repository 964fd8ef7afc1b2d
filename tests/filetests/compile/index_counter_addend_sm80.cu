// test compile sm_80
// A signed index whose addend is the counter of an enclosing `for`,
// `in[4 * t + k]`, widens as `sext(4 * t) + sext(k)`: once `unroll` makes
// `k` a constant in each copy, the four loads and stores share one address
// each and carry the displacement (`[%rd+4]` ... `[%rd+12]`), as nvcc's do.
// An addend that is not a loop counter (`m` below) keeps the one 32-bit add.
// In @column the counter is a row, `in[r * cols + c]`: widened as
// `sext(c) + sext(r) * sext(cols)`, a multiple of the counter, which
// `strength-reduce` turns into a pointer stepped by `cols * 4` (nvcc's loop;
// the unrolled copies add the step, no 32-bit index and `mul.wide` each).
extern "C" __global__ void counter(const int *in, int *out, float *o, int m) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    for (int k = 0; k < 4; ++k)
        out[4 * t + k] = in[4 * t + k] + 1;
    o[t + m] = 1.0f;
}

extern "C" __global__ void column(const float *in, float *out, int rows, int cols) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    float s = 0.0f;
    for (int r = 0; r < rows; ++r)
        s += in[r * cols + c];
    out[c] = s;
}
// check: mul.lo.s32 %r7, %r6, 4;
// nextln: mul.wide.s32 %rd7, %r7, 4;
// check: ld.global.u32 %r8, [%rd9];
// check: st.global.u32 [%rd8], %r9;
// check: ld.global.u32 %r10, [%rd9+4];
// check: st.global.u32 [%rd8+4], %r11;
// check: ld.global.u32 %r12, [%rd9+8];
// check: st.global.u32 [%rd8+8], %r13;
// check: ld.global.u32 %r14, [%rd9+12];
// check: st.global.u32 [%rd8+12], %r15;
// check: add.s32 %r16, %r6, %r1;
// nextln: mul.wide.s32
// check: .entry column(
// check: mul.wide.s32 %rd6, %r2, 4;
// check: ld.global.f32 %f4, [%rd9];
// check: add.s64 %rd10, %rd9, %rd6;
// nextln: ld.global.f32 %f6, [%rd10];
// check: add.s64 %rd11, %rd10, %rd6;
// nextln: ld.global.f32 %f8, [%rd11];
// not: mul.wide
// check: add.s64 %rd12, %rd11, %rd6;
