// test compile sm_90
// Division by constants that are not powers of two (divconst): a 32-bit
// one is a `mul.hi` by a magic reciprocal and shifts; a 64-bit one sums
// the high half of the 128-bit product from four `mul.wide.u32`s. No
// `div`/`rem` is left.
extern "C" __global__ void divs(const int* in, int* out, long long* out64)
{
    int i = threadIdx.x;
    int x = in[i];
    unsigned u = (unsigned)x;
    out[i] = x / 7 + x % 10 + (int)(u / 255u);
    out64[i] = (long long)x * 3 / 1000000007LL;
}

// check: .visible .entry divs(
// not: div.
// not: rem.
// check: , -1840700269;
// check: , 1717986919;
// check: mul.hi.u32
// nextln: shr.u32
// check: mul.wide.u32
// check: mul.wide.u32
// check: mul.wide.u32
// check: mul.wide.u32
// not: div.
// check: st.global.u64
