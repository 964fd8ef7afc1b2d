// A struct that bundles restricted pointers (a "view" of the operands),
// passed by value to a helper. kernelc accepts restrict inside a struct only
// with --allow-restrict-in-struct; nvcc accepts it as is.
struct Operands {
    const float *__restrict__ x;
    float *__restrict__ y;
};

__device__ void axpy_one(Operands ops, float a, int i) {
    ops.y[i] = a * ops.x[i] + ops.y[i];
}

extern "C" __global__ void axpy_view(const float *x, float *y, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    Operands ops;
    ops.x = x;
    ops.y = y;
    if (i < n)
        axpy_one(ops, a, i);
}
