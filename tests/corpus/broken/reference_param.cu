// expect: 7:40: reference parameters of kernels are not supported by kernelc
// A `__device__` function may take `float &` (kernelc passes the address),
// but a kernel's arguments come from the host, which cannot pass a device
// reference.
__device__ void accumulate(float &acc, float v) { acc += v; }

extern "C" __global__ void total(float &out, const float *x) {
    accumulate(out, x[threadIdx.x]);
}
