// A double-buffered copy through shared memory with cp.async (sm_80):
// while the block works on one 256-float chunk in shared memory, the next
// chunk is already on its way from global memory into the other buffer.
// Each thread copies 16 bytes (4 floats) per chunk with `cg` (L2 only), then
// commits the copy as a group; `wait(1)` lets the newest group stay in
// flight while the older one must have landed. The "work" is out = 2 * in.
#include "kernelc.cuh"

extern "C" __global__ void cp_async_copy(const float *in, float *out, int chunks) {
  __shared__ float buf[2 * 256];
  int t = threadIdx.x; // 64 threads x 4 floats = one 256-float chunk
  int base = blockIdx.x * chunks * 256;
  kernelc_cp_async_cg_16(&buf[t * 4], &in[base + t * 4]);
  kernelc_cp_async_commit();
  for (int c = 0; c < chunks; c++) {
    int cur = (c % 2) * 256;
    if (c + 1 < chunks) {
      int next = ((c + 1) % 2) * 256;
      kernelc_cp_async_cg_16(&buf[next + t * 4], &in[base + (c + 1) * 256 + t * 4]);
    }
    // Always commit, even an empty group, so "all but the newest" is chunk c.
    kernelc_cp_async_commit();
    kernelc_cp_async_wait(1);
    __syncthreads();
    for (int i = 0; i < 4; i++)
      out[base + c * 256 + t * 4 + i] = 2.0f * buf[cur + t * 4 + i];
    // Nobody may refill this buffer until every thread has read it.
    __syncthreads();
  }
  kernelc_cp_async_wait_all();
}
