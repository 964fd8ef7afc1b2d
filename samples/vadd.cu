// Vector addition: c[i] = a[i] + b[i].
//
// What it shows: the simplest kernel. Each thread computes its global index
// from blockIdx/blockDim/threadIdx, a bounds check guards the tail, and the
// three pointer parameters are global memory, so kernelc converts each with
// `cvta.to.global` and uses `ld.global`/`st.global`.
extern "C" __global__ void vadd(const float* a, const float* b, float* c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] = a[i] + b[i];
    }
}
