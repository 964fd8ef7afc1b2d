// test compile sm_90
// saxpy: `x` is restricted and never written, so it is read through the
// non-coherent cache; `y` is written, so its load stays `ld.global`.
extern "C" __global__ void saxpy(int n, float a, const float* __restrict__ x,
                                 float* __restrict__ y)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += blockDim.x * gridDim.x) {
        y[i] = a * x[i] + y[i];
    }
}
// check: .visible .entry saxpy(
// check: ld.global.nc.f32
// nextln: ld.global.f32
// not: ld.global.nc
// check: st.global.f32
// check: ret;
