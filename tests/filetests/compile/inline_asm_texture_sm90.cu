// test compile sm_90
// Inline PTX is written between nvcc's markers with its operands'
// registers (an `n` operand as its number, `%%` as `%`, a `+` operand's
// register loaded first); texture fetches and surface accesses are one
// `tex`, `suld` or `sust` each.
__global__ void k(unsigned *o, float *f, cudaTextureObject_t t,
                  cudaSurfaceObject_t s) {
  unsigned lane, r = threadIdx.x;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
  asm("bfe.u32 %0, %0, %1, %2;" : "+r"(r) : "r"(lane), "n"(4));
  o[threadIdx.x] = lane + r;
  float v = tex2D<float>(t, 0.5f, 0.5f);
  float w = surf2Dread<float>(s, 4, 1);
  surf2Dwrite(v + w, s, 0, 0);
  f[threadIdx.x] = v;
}
// check: // begin inline asm
// nextln: mov.u32 %r2, %laneid;
// nextln: // end inline asm
// check: mov.b32 %r3, %r1;
// nextln: // begin inline asm
// nextln: bfe.u32 %r3, %r3, %r2, 4;
// nextln: // end inline asm
// check: tex.2d.v4.f32.f32
// check: suld.b.2d.b32.trap
// check: sust.b.2d.b32.trap
