// A tile copy through shared memory with TMA, Hopper's Tensor Memory
// Accelerator. The host describes the row-major float matrices `in` and
// `out` with two tensor maps (cuTensorMapEncodeTiled, a 32x32 box, no
// swizzle) and passes them as `const __grid_constant__ CUtensorMap`
// parameters: the kernel reads them where the launch put them and only
// ever takes their addresses. Each block moves one 32x32 tile. Thread 0
// sets up an mbarrier, says how many bytes the phase waits for
// (arrive_expect_tx) and starts the TMA load; every thread waits for the
// barrier's phase 0, doubles its elements in place, and after a proxy
// fence thread 0 writes the tile back with a TMA store, committed as a
// bulk group and waited for until shared memory has been read out.
// The interpreter and the emulator cannot run it (a tensor map is encoded
// by the CUDA driver); `kernelc run --engine gpu` does, with the tensor
// maps its run spec describes; see docs/tensor-cores.md.
// kernelc-target: sm_90
#include "kernelc.cuh"

#define TILE 32

extern "C" __global__ void tma_tile_copy(const __grid_constant__ CUtensorMap in_map,
                                         const __grid_constant__ CUtensorMap out_map) {
  // TMA needs its shared box 128-byte aligned.
  __shared__ __align__(128) float tile[TILE * TILE];
  __shared__ unsigned long long bar;
  int x = blockIdx.x * TILE; // the tile's column and row in the matrix
  int y = blockIdx.y * TILE;
  if (threadIdx.x == 0) {
    kernelc_mbarrier_init(&bar, 1);
    // The async proxy (TMA) must see the initialized barrier.
    kernelc_fence_proxy_async();
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    kernelc_mbarrier_arrive_expect_tx(&bar, TILE * TILE * 4);
    kernelc_tma_load_2d(tile, &in_map, &bar, x, y);
  }
  // Phase 0 completes when thread 0 has arrived and all bytes have landed.
  while (!kernelc_mbarrier_try_wait_parity(&bar, 0)) {
  }
  for (int i = threadIdx.x; i < TILE * TILE; i += blockDim.x)
    tile[i] = 2.0f * tile[i];
  // Order this thread's shared-memory writes before the TMA store reads them.
  kernelc_fence_proxy_async();
  __syncthreads();
  if (threadIdx.x == 0) {
    kernelc_tma_store_2d(&out_map, tile, x, y);
    kernelc_cp_async_bulk_commit();
    // The block may only exit once the store has read its shared memory.
    kernelc_cp_async_bulk_wait_read(0);
  }
}
