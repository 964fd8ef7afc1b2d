// test compile sm_80
// A `const float* __restrict__` read in a loop: the table and the bound
// are never written, so both loads use the read-only path (`ld.global.nc`),
// and the bound `len[0]`, read in the loop header, is hoisted out of the
// loop. `out` is written, so it is never read `.nc`.
extern "C" __global__ void dot(const float* __restrict__ w, const int* __restrict__ len,
                               float* __restrict__ out)
{
    float acc = 0.0f;
    for (int k = 0; k < len[0]; ++k)
        acc += w[k] * out[k];
    out[threadIdx.x] = acc;
}
// check: .visible .entry dot(
// check: ld.global.nc.u32
// check: $L__BB0_1:
// check: ld.global.nc.f32
// check: ld.global.f32
// not: ld.global.nc
// check: st.global.f32
