// test compile sm_80
// A rounding to an integral float followed by a conversion to an integer
// is one `cvt` with the rounding in it: `__float2int_rn` and `lrintf` are
// `cvt.rni`, `(int)floorf` is `cvt.rmi`, `(int)ceilf` is `cvt.rpi`. The
// separate `cvt.rni.f32.f32` goes when nothing else uses the rounded float.
extern "C" __global__ void to_int(const float *a, int *o, long long *l) {
    int i = threadIdx.x;
    float x = a[i];
    o[3 * i] = __float2int_rn(x);
    o[3 * i + 1] = (int)floorf(x);
    o[3 * i + 2] = (int)ceilf(x);
    l[i] = lrintf(x);
}
// check: ld.global.f32 %f1,
// not: cvt.rni.f32.f32
// check: cvt.rni.s32.f32 %r
// check: cvt.rmi.s32.f32 %r
// check: cvt.rpi.s32.f32 %r
// check: cvt.rni.s64.f32 %rd
