// SAXPY with a grid-stride loop: y[i] = a * x[i] + y[i] for every i < n.
//
// What it shows: a loop whose induction variable becomes a block parameter
// of the loop header in SSA form; `__restrict__` parameters (recorded as
// parameter attributes); and index arithmetic mixing unsigned builtins with
// a signed `int`, which follows C's usual arithmetic conversions.
extern "C" __global__ void saxpy(int n, float a, const float* __restrict__ x,
                                 float* __restrict__ y)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += blockDim.x * gridDim.x) {
        y[i] = a * x[i] + y[i];
    }
}
