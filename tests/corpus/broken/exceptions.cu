// expect: 4:5: not supported
extern "C" __global__ void checked(const int *in, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    try {
        if (i >= n)
            throw 1;
        out[i] = in[i];
    } catch (...) {
    }
}
