// A 3-point stencil through shared memory, plus the same sum over global
// memory, both done by one __noinline__ helper.
//
// What it shows: a __shared__ tile with halo cells and __syncthreads(); a
// helper that takes a plain `const float*` and is called once with a pointer
// into shared memory and once with a pointer into global memory. Memory-space
// inference proves both, so the helper is cloned: `sum3__shared` reads with
// `ld.shared` and `sum3__global` with `ld.global`, and the original `sum3`
// (external, so other code might call it) keeps generic loads.
__device__ __noinline__ float sum3(const float* p)
{
    return p[0] + p[1] + p[2];
}

extern "C" __global__ void stencil(const float* in, float* out, int n)
{
    __shared__ float tile[258];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int t = threadIdx.x + 1;
    tile[t] = i < n ? in[i] : 0.0f;
    if (threadIdx.x == 0)
        tile[0] = i > 0 ? in[i - 1] : 0.0f;
    if (threadIdx.x == blockDim.x - 1)
        tile[t + 1] = i + 1 < n ? in[i + 1] : 0.0f;
    __syncthreads();
    if (i + 1 < n) {
        float* o = out + i;
        *o = sum3(&tile[t - 1]) + sum3(in + (i > 0 ? i - 1 : 0));
    }
}
