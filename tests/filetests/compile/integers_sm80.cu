// test compile sm_80
// Every integer width and signedness: C's promotions and usual arithmetic
// conversions pick signed or unsigned division, shifts and comparisons.
// The signed `/ 2` becomes shifts (divconst): `shr.s32`, not `div.s32`;
// `/ 3u`, `% 7u` and `% 1000` become multiplications by magic reciprocals
// (`mul.hi`), not `div.u32`/`rem.u32`/`rem.s32`.
extern "C" __global__ void ints(int* out, const unsigned* in, long long n, short s,
                                char c, unsigned char uc)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned v = in[i];
    int acc = 0;
    acc += v / 3u;
    acc -= (int)(v % 7u);
    acc ^= (int)(v << 3);
    acc |= (int)(v >> 2);
    acc &= ~0x10;
    acc = acc * -3 / 2 % 1000;
    acc += s * c + uc;
    long long big = (long long)acc * 1000000007LL;
    big >>= 5;
    acc += (int)(big & 0xffff);
    unsigned short us = (unsigned short)acc;
    signed char sc = (signed char)acc;
    acc += us + sc;
    size_t idx = i;
    out[idx] = acc;
}

// check: .target sm_80
// check: .param .u64 ints_param_2
// check: setp.ge.s64
// check: mul.hi.u32 %r7, %r6, 2863311531;
// nextln: shr.u32 %r8, %r7, 1;
// check: mul.hi.u32 %r9, %r6, 613566757;
// not: div.
// check: shl.b32
// check: shr.u32
// check: shr.s32
// not: rem.
// check: mul.hi.s32
// check: mul.wide.s32
// check: shr.s64
// check: st.global.u32
