// sum[0] += the sum of n unsigned integers (wrapping), with a grid-stride
// loop per thread, a tree in shared memory per block of 256 threads and
// one atomicAdd per block. Integer addition makes the result exact in any
// order, so both compilers' builds must leave the same sum.
#define BLOCK 256

extern "C" __global__ void reduce(const unsigned *__restrict__ in, unsigned *sum, int n) {
  __shared__ unsigned partial[BLOCK];
  unsigned s = 0;
  for (int i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += BLOCK * gridDim.x)
    s += in[i];
  partial[threadIdx.x] = s;
  __syncthreads();
  for (unsigned half = BLOCK / 2; half > 0; half /= 2) {
    if (threadIdx.x < half)
      partial[threadIdx.x] += partial[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    atomicAdd(sum, partial[0]);
}
