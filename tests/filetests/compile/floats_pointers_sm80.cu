// test compile sm_80
// float and double arithmetic and conversions, pointer arithmetic and
// differences, volatile accesses, and a device-function parameter that
// receives only a global pointer (the function is internal, as nvcc makes
// it without -rdc, so memory-space inference makes it global in place).
__device__ __noinline__ void addto(float* p, float v) { *p += v; }

extern "C" __global__ void floats(double* d, float* f, const float* __restrict__ g, int n)
{
    int i = threadIdx.x;
    if (i < n) {
        float x = g[i];
        double y = x * 2.0;
        y = y / 3.0 + (double)i;
        f[i] = (float)y - x * 0.5f;
        int t = (int)(x * 100.0f);
        unsigned u = (unsigned)y;
        d[i] = y + t + u;
        addto(f + i, 1.0f);
        float* p = f + i;
        p++;
        *(p - 1) -= 0.25f;
        long diff = p - f;
        if (diff != (long)i + 1)
            f[0] = -1.0f;
        f[i] = x != x ? 0.0f : (x < 0.0f ? -x : x);
        volatile float* vp = f;
        vp[i] = vp[i] * 2.0f;
        float* q = i % 2 ? f : (float*)g;
        if (q == f)
            f[i] += 1.0f;
    }
}

// check: .func _Z5addtoPff(
// check: ld.global.f32
// check: st.global.f32
// check: .visible .entry floats(
// check: cvt.f64.f32
// check: div.rn.f64
// check: cvt.rn.f64.s32
// check: cvt.rn.f32.f64
// check: cvt.rzi.s32.f32
// check: cvt.rzi.u32.f64
// check: st.global.f64
// check: call.uni _Z5addtoPff, (param0, param1);
// check: setp.neu.f32
// check: ld.volatile.global.f32
// check: st.volatile.global.f32
// check: selp.b64
