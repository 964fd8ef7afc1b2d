// expect: 2:1: not supported
template <typename T>
__global__ void fill(T *p, T v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] = v;
}
