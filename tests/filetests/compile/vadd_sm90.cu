// test compile sm_90
// The walking-skeleton contract: a kernel's pointer parameters are loaded
// with ld.param and converted once with cvta.to.global, then used by
// ld.global/st.global; the bounds check is a predicated branch.
extern "C" __global__ void vadd(const float* a, const float* b, float* c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

// check: .version 7.8
// nextln: .target sm_90
// nextln: .address_size 64
// check: .visible .entry vadd(
// nextln: .param .u64 vadd_param_0,
// nextln: .param .u64 vadd_param_1,
// nextln: .param .u64 vadd_param_2,
// nextln: .param .u32 vadd_param_3
// check: ld.param.u64 %rd1, [vadd_param_0];
// nextln: cvta.to.global.u64 %rd2, %rd1;
// check: setp.lt.s32 %p1
// nextln: @!%p1 bra
// nextln: mul.wide.s32
// not: ld.f32
// check: ld.global.f32
// check: ld.global.f32
// check: st.global.f32
// check: ret;
