// A second copy reference: a grid-stride loop moving one float4 (16 bytes)
// per iteration, the form that comes closest to the memory's peak.
// scripts/gpu-bench takes the best of copy.cu and this kernel, in either
// compiler's build, as the card's copy bandwidth.
extern "C" __global__ void copy4(const float4 *__restrict__ in, float4 *__restrict__ out, int n4) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += blockDim.x * gridDim.x)
    out[i] = in[i];
}
