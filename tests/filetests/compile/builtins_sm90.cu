// test compile sm_90
// CUDA built-ins: the atomic family with its overloads and scopes
// (atomicExch stays `atom.exch` even unused: PTX has no `red.exch`), warp shuffles
// (32- and 64-bit values, the `c` operand from `width`), votes, block
// reductions, fences, bit functions, __ldg, address-space tests, cvta,
// clocks and __nanosleep. Results are checked by `kernelc run` in
// frontend/tests/builtins.rs.
__global__ void atoms(int *i, unsigned *u, unsigned long long *ull, long long *ll, float *f, double *d) {
  int t = threadIdx.x;
  atomicAdd(i, 1);
  atomicSub(i + 1, 2);
  atomicExch(i + 2, t);
  atomicMin(i + 3, -t);
  atomicMax(i + 4, t);
  atomicAnd(i + 5, ~(1 << t));
  atomicOr(i + 6, 1 << t);
  atomicXor(i + 7, t);
  atomicCAS(i + 8, 0, t + 1);
  atomicAdd_block(u, 1u);
  atomicSub_system(u + 1, 1u);
  atomicInc(u + 2, 9u);
  atomicDec(u + 3, 9u);
  atomicMin(u + 4, (unsigned)t);
  atomicMax(u + 5, (unsigned)t);
  atomicCAS_block(u + 6, 0u, 5u);
  atomicAdd(ull, 2ull);
  atomicExch(ull + 1, 3ull);
  atomicCAS(ull + 2, 0ull, 7ull);
  atomicAnd(ull + 3, 1ull);
  atomicMin(ll, (long long)-t);
  atomicMax(ll + 1, (long long)t);
  atomicMin(ull + 4, 3ull);
  atomicAdd(f, 0.5f);
  atomicExch(f + 1, 2.0f);
  atomicAdd(d, 0.25);
  i[9] = atomicAdd(i + 10, 0);
}

__global__ void warp(int *out, float *fo, double *dout, long long *lo) {
  int t = threadIdx.x;
  unsigned m = __activemask();
  out[t] = __shfl_sync(0xffffffffu, t * 10, 3);
  out[64 + t] = __shfl_up_sync(0xffffffffu, t, 1);
  out[128 + t] = __shfl_down_sync(0xffffffffu, t, 2, 16);
  out[192 + t] = __shfl_xor_sync(m, t, 1, 8);
  fo[t] = __shfl_sync(0xffffffffu, (float)t * 0.5f, 0);
  dout[t] = __shfl_down_sync(0xffffffffu, (double)t * 0.25, 1);
  lo[t] = __shfl_xor_sync(0xffffffffu, (long long)t << 40, 1);
  out[256 + t] = __ballot_sync(0xffffffffu, t & 1);
  out[320 + t] = __any_sync(0xffffffffu, t == 5) + 2 * __all_sync(0xffffffffu, t < 100);
  __syncwarp();
  __syncwarp(m);
  out[384 + t] = __syncthreads_count(t & 1);
  out[448 + t] = __syncthreads_and(t < 100) + 2 * __syncthreads_or(t == 3);
  __threadfence_block();
  __threadfence();
  __threadfence_system();
}

__device__ __noinline__ unsigned where(const void *p) {
  return __isShared(p) + 2 * __isGlobal(p) + 4 * __isLocal(p) + 8 * __isConstant(p);
}

__global__ void bits(int *out, unsigned *uo, unsigned long long *x, const int *ro, long *clk) {
  int t = threadIdx.x;
  unsigned v = (unsigned)t * 2654435761u;
  out[t] = __popc(v) + 100 * __clz((int)v);
  out[64 + t] = __ffs((int)v) + 100 * __ffsll((long long)x[t]);
  out[128 + t] = __popcll(x[t]) + 100 * __clzll((long long)x[t]);
  uo[t] = __brev(v);
  x[64 + t] = __brevll(x[t]);
  out[192 + t] = __ldg(ro + t) + __ldg(&ro[0]);
  __shared__ int sh[4];
  int loc[2];
  loc[0] = t;
  sh[0] = loc[0];
  uo[128 + t] = where(sh) + 16 * where(out) + 256 * where((const void *)x[t]);
  uo[64 + t] = __isGlobal(out) + 2 * __isShared(sh) + 4 * __isLocal(loc) + 8 * __isConstant(ro);
  size_t a = __cvta_generic_to_shared(&sh[1]);
  int *back = (int *)__cvta_shared_to_generic(a);
  *back = 7;
  __syncthreads();
  out[256 + t] = sh[1] + (int)(a & 0);
  clk[0] = clock();
  clk[1] = clock64();
  __nanosleep(100);
}
// check: isspacep.shared
// check: isspacep.global
// check: isspacep.local
// check: isspacep.const
// check: red.global.add.u32 [%rd2], 1;
// nextln: red.global.add.u32 [%rd2+4], -2;
// nextln: atom.global.exch.b32
// check: red.global.min.s32
// check: atom.global.cas.b32
// check: red.cta.global.add.u32
// check: red.sys.global.add.u32
// check: red.global.inc.u32
// check: red.global.dec.u32
// check: red.global.min.u32
// check: atom.cta.global.cas.b32
// check: red.global.add.u64
// nextln: atom.global.exch.b64
// check: red.global.min.s64
// check: red.global.min.u64
// check: red.global.add.f32
// nextln: atom.global.exch.b32 %f
// nextln: red.global.add.f64
// check: atom.global.add.u32
// check: , 3, 31, 4294967295;
// check: shfl.sync.up.b32
// check: , 2, 4127, 4294967295;
// check: , 1, 6175, %r
// check: shfl.sync.idx.b32 %f
// check: shfl.sync.down.b32
// nextln: shfl.sync.down.b32
// check: vote.sync.ballot.b32
// check: vote.sync.any.pred
// check: vote.sync.all.pred
// check: bar.warp.sync
// check: bar.red.popc.u32
// check: bar.red.and.pred
// check: bar.red.or.pred
// check: membar.cta
// nextln: membar.gl
// nextln: membar.sys
// check: popc.b32
// check: clz.b32
// check: popc.b64
// check: brev.b32
// check: brev.b64
// check: ld.global.nc.u32
// The shared -> integer -> generic round trip of __cvta_*: memory-space
// inference proves the pointer still points into shared memory, so the
// store is a plain st.shared with no cvta left.
// check: st.shared.u32 [%r
// check: %clock64
// check: nanosleep.u32
