// test compile sm_80
// `#pragma unroll 1` keeps a loop rolled in PTX and in SASS: the loop's
// header starts with `.pragma "nounroll";`, which tells ptxas not to unroll
// it either (without it, ptxas unrolls a bottom-tested loop by itself).
// The run-time-trip loop below it has no pragma and reads its counter only
// to step it: `unroll-runtime` unrolls it by four, and its leftovers run in the original loop, which gets the
// same `.pragma`.
extern "C" __global__ void rolled(const float *a, float *out, int n) {
    float s = 0.0f;
#pragma unroll 1
    for (int i = 0; i < n; ++i)
        s += a[i] * a[i];
    unsigned h = 7u;
    for (int i = 0; i < n; ++i)
        h = (h ^ (h >> 7)) * 33u;
    out[0] = s + (float)h;
}

// check: $L__BB0_2:
// nextln: .pragma "nounroll";
// nextln: ld.global.f32
// check: and.b32 %r6, %r1, 3;
// check: $L__BB0_11:
// check: mul.lo.s32 %r16, %r15, 33;
// check: mul.lo.s32 %r20, %r19, 33;
// check: mul.lo.s32 %r24, %r23, 33;
// check: mul.lo.s32 %r28, %r27, 33;
// check: sub.s32 %r30, %r13, 4;
// check: @%p4 bra $L__BB0_11;
// check: $L__BB0_6:
// nextln: .pragma "nounroll";
// check: mul.lo.s32 %r33, %r32, 33;
// check: @%p6 bra $L__BB0_6;
