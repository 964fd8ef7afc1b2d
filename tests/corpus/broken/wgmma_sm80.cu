// expect: 5:5: requires .target sm_90a
// args: -arch=sm_80
extern "C" __global__ void fence_only(float *out) {
    out[threadIdx.x] = 0.0f;
    kernelc_wgmma_fence();
}
