// A kernel taking a struct of restricted pointers by value. kernelc needs
// --allow-restrict-in-struct for it (without the flag: a located error);
// nvcc accepts it as is.
struct Args {
    const float *__restrict__ x;
    float *__restrict__ y;
    int n;
};

extern "C" __global__ void axpy_args(Args args, float a) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < args.n)
        args.y[i] = a * args.x[i] + args.y[i];
}
