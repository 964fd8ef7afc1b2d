// expect: 7:13: Cannot do atomic on local memory
extern "C" __global__ void count_positive(const int *in, int *out, int n) {
    int count = 0;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    for (int k = i; k < n; k += blockDim.x * gridDim.x) {
        if (in[k] > 0)
            atomicAdd(&count, 1);
    }
    out[i] = count;
}
