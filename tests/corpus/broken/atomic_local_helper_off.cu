// expect: 4:5: Cannot do atomic on local memory
// args: -O3 --memspace=off
__device__ void bump(int *counter) {
    atomicAdd(counter, 1);
}

extern "C" __global__ void count_in_helper(const int *in, int *out, int n) {
    int count = 0;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && in[i] > 0)
        bump(&count);
    out[i] = count;
}
