// A sum through distributed shared memory (sm_90): the two blocks of a
// thread-block cluster (`__cluster_dims__(2, 1, 1)`) reach into each
// other's shared memory. Each block sums its 256 inputs with a tree in its
// own shared memory; then thread 0 of each block maps rank 0's `total`
// with `kernelc_mapa` and adds its partial sum there with an atomic. The
// cluster barrier (arrive with release, wait with acquire) separates the
// phases: `total` is zeroed before anyone adds to it, every add is done
// before anyone reads it, and no block exits while another may still read
// its shared memory. Rank 0 reads the sum in its own shared memory, rank 1
// reads it remotely through the mapped pointer. Memory-space inference
// proves the mapped pointers are `shared::cluster`, so the accesses are
// `atom.shared::cluster` and `ld.shared::cluster`.
// The interpreter runs one block at a time and does not model clusters
// of more than one block, so only `kernelc run --engine gpu` runs its
// run spec.
// kernelc-target: sm_90
#include "kernelc.cuh"

extern "C" __global__ void __cluster_dims__(2, 1, 1)
cluster_reduce(const float *in, float *out) {
  __shared__ float buf[256];
  __shared__ float total;
  int t = threadIdx.x;
  unsigned rank = kernelc_cluster_ctarank();
  if (t == 0)
    total = 0.0f;
  buf[t] = in[blockIdx.x * 256 + t];
  __syncthreads();
  for (int s = 128; s > 0; s /= 2) {
    if (t < s)
      buf[t] += buf[t + s];
    __syncthreads();
  }
  // Every block's `total` is zero before any block adds to rank 0's.
  kernelc_cluster_arrive();
  kernelc_cluster_wait();
  float *sum = (float *)kernelc_mapa(&total, 0);
  if (t == 0)
    atomicAdd(sum, buf[0]);
  // Both partial sums are in.
  kernelc_cluster_arrive();
  kernelc_cluster_wait();
  if (t == 0)
    out[kernelc_clusterid_x() * 2 + rank] = *sum;
  // Rank 0 keeps its shared memory until rank 1 has read it.
  kernelc_cluster_arrive();
  kernelc_cluster_wait();
}
