// test compile sm_80
// A signed `int` index with a constant addend, `o[4 * i + k]`, widens as
// `sext(4 * i) + k` (signed overflow is undefined in C, so the sum does not
// wrap): the four stores share one address and carry `+4`, `+8`, `+12` in
// the address immediate, and `in[i - 1]` is `[..+-4]`. An `unsigned` index
// may wrap, so `u[j + 1]` keeps its own address arithmetic.
extern "C" __global__ void addend(const float *in, float *o, float *u, unsigned j) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    o[4 * i] = in[i];
    o[4 * i + 1] = in[i - 1];
    o[4 * i + 2] = in[i + 1];
    o[4 * i + 3] = 0.0f;
    u[j + 1] = 1.0f;
}
// check: mul.lo.s32 %r7, %r6, 4;
// check: ld.global.f32 %f1, [%rd
// check: ld.global.f32 %f2, [%rd10+-4];
// check: st.global.f32 [%rd8+4], %f2;
// check: ld.global.f32 %f3, [%rd10+4];
// check: st.global.f32 [%rd8+8], %f3;
// check: st.global.f32 [%rd8+12], 0f00000000;
// check: add.s32 %r8, %r1, 1;
// nextln: mul.wide.u32
