// test compile sm_80
// Block arguments become moves on the edges. When both edges of a branch
// carry moves and each set may run before the branch (nothing on the other
// path reads what it writes), all of them run first and no stub block is
// needed: the rotated loop's latch is the exit's `mov`, the back edge's
// `mov`s and one `@p bra` to the loop; `c ? p[i] : 0.0f` is `mov 0`, a
// branch around the load, and the load's `mov`.
extern "C" __global__ void edges(const float *x, float *out, int n) {
    float m = 0.0f;
    for (int c = threadIdx.x; c < n; c += blockDim.x)
        m = fmaxf(m, fabsf(x[c]));
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? x[i] : 0.0f;
    out[i] = m + v;
}
// not: $L__edge
// check: mov.f32 %f2, %f5;
// nextln: mov.b32 %r4, %r5;
// nextln: mov.f32 %f1, %f5;
// nextln: @%p2 bra $L__BB0_2;
// check: mov.f32 %f6, 0f00000000;
// nextln: @!%p3 bra $L__BB0_7;
// nextln: add.s64
// nextln: ld.global.f32 %f7,
// nextln: mov.f32 %f6, %f7;
// not: $L__edge
// check: ret;
