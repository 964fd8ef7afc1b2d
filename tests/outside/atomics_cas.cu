// Atomics: a float atomicMax built on atomicCAS, a double atomicAdd emulated
// with a 64-bit CAS loop, and a global int max with atomicMax.
__device__ float atomicMaxFloat(float *addr, float val) {
    int *ai = (int *)addr;
    int old = *ai, assumed;
    do {
        assumed = old;
        if (__int_as_float(assumed) >= val) break;
        old = atomicCAS(ai, assumed, __float_as_int(val));
    } while (assumed != old);
    return __int_as_float(old);
}

__device__ double atomicAddDoubleCAS(double *address, double val) {
    unsigned long long *p = (unsigned long long *)address;
    unsigned long long old = *p, assumed;
    do {
        assumed = old;
        old = atomicCAS(p, assumed,
                        __double_as_longlong(val + __longlong_as_double((long long)assumed)));
    } while (assumed != old);
    return __longlong_as_double((long long)old);
}

extern "C" __global__ void atomic_stats(const float *__restrict__ x, int n, float *maxOut,
                                        double *sumOut, int *imaxOut) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    atomicMaxFloat(maxOut, v);
    atomicAddDoubleCAS(sumOut, (double)v);
    atomicMax(imaxOut, (int)(v * 1000.0f));
}
