// test compile sm_90
// Edge forms a user writes: for(;;) with break, *p++ = x, chained and
// compound assignments to array elements, int/unsigned comparisons, double
// parameters, a kernel with no parameters and a volatile spin loop.
__device__ __noinline__ double dot3(const double* a, const double* __restrict__ b) {
    double s = 0.0;
    for (int i = 0; i < 3; ++i) s += a[i] * b[i];
    return s;
}
extern "C" __global__ void edge(float* __restrict__ const out, const int n, unsigned int m,
                                double scale, const double* __restrict__ v, int* counts)
{
    int tid = threadIdx.x + blockIdx.x * blockDim.x;
    float* p = out + tid;
    int a, b, c;
    a = b = c = tid;
    for (;;) {
        if (a++ >= n) break;
        *p++ = (float)(a * scale);
        if (p - out > 64) break;
    }
    int j = 0;
    while (1) { j += 3; if (j > m) break; }
    counts[tid]++;
    ++counts[tid + 1];
    counts[0] += counts[1] -= 2;
    unsigned u = -tid;
    if (u > -1) c = 0;
    int neg = -17;
    neg >>= 2;
    neg <<= 1;
    out[0] = (float)dot3(v, v + 3) + (float)(neg % 5) + (float)(j / -2);
    out[1] = tid > 0 ? (tid > 5 ? 1.0f : 2.0f) : 3.0f;
    out[2] = (b, c, (float)a);
    int k = 10;
    while (k--) out[k] *= 0.5f;
    if (!(n & 1) && !counts) return;
    out[3] = m >= 2u ? m : 0;
}
extern "C" __global__ void empty_kernel() {}
extern "C" __global__ void spin(volatile int* flag) { while (*flag == 0) { } }

// check: .func (.param .b64 func_retval0) _Z4dot3PKdS0_(
// check: .visible .entry edge(
// check: .param .f64 edge_param_3,
// check: cvt.rn.f64.s32
// check: mul.f64
// check: cvt.rn.f32.f64
// check: setp.hi.u32
// check: call.uni (retval0), _Z4dot3PKdS0_, (param0, param1);
// check: .visible .entry empty_kernel()
// nextln: {
// check: ret;
// check: .visible .entry spin(
// check: ld.volatile.global.u32
