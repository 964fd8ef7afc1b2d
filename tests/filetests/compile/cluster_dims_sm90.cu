// test compile sm_90
// `__cluster_dims__` on a kernel becomes PTX's cluster directives (sm_90+).
extern "C" __global__ void __cluster_dims__(2, 1, 1) k(int* out)
{
    out[blockIdx.x * blockDim.x + threadIdx.x] = blockIdx.x;
}

// check: .visible .entry k(
// check: .explicitcluster
// nextln: .reqnctapercluster 2, 1, 1
