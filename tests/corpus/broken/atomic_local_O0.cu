// expect: 7:13: Cannot do atomic on local memory
// args: -O0
extern "C" __global__ void count_positive_O0(const int *in, int *out, int n) {
    int count = 0;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && in[i] > 0)
            atomicAdd(&count, 1);
    out[i] = count;
}
