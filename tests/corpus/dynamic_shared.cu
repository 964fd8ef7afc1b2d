// Dynamic shared memory: the block size is chosen at launch and the shared
// buffer sized with it (the third launch parameter). Each block reverses its
// segment, and also writes each element's difference with its neighbour.
extern "C" __global__ void reverse_segments(const int *in, int *rev, int *diff, int n) {
    extern __shared__ int s[];
    int t = threadIdx.x;
    int g = blockIdx.x * blockDim.x + t;
    s[t] = (g < n) ? in[g] : 0;
    __syncthreads();
    int r = blockDim.x - 1 - t;
    if (g < n) {
        rev[g] = s[r];
        diff[g] = (t + 1 < blockDim.x) ? s[t + 1] - s[t] : 0;
    }
}
