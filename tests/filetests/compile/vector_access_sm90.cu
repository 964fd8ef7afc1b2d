// test compile sm_90
// Whole-vector accesses of CUDA vector types are single vector loads and
// stores (`ld.v4`, `st.v2`, ...) in every space: global, `.nc` through
// `__ldg`, shared, const, local, param (a by-value kernel parameter) and
// generic. Results are checked by `kernelc run` in tests/lang.rs.
__constant__ float4 c_tab[4];
__device__ int4 g_last;

extern "C" __global__ void vectors(const float4 *a, float4 *b, double2 *d, const int4 *ip, uint4 *u, float2 *f2, short4 *s4, uchar4 *c4, float4 bias, int n) {
  __shared__ float4 tile[64];
  int i = threadIdx.x;
  float4 v = a[i];
  tile[i] = v;
  __syncthreads();
  float4 w = tile[(i + 1) % 64];
  float4 c = c_tab[i % 4];
  w.x += c.x + bias.x;
  w.y += c.y + bias.y;
  w.z += c.z + bias.z;
  w.w += c.w + bias.w;
  b[i] = w;
  double2 e = d[i];
  d[i + n] = e;
  int4 k = __ldg(&ip[i]);
  g_last = k;
  uint4 x = u[i];
  x.y += 1u;
  u[i + n] = x;
  float2 g = f2[i];
  float2 *gp = (i & 1) ? &f2[i + n] : &g;
  *gp = make_float2(g.y, g.x);
  f2[i + 2 * n] = g;
  short4 s = s4[i];
  s4[i + n] = s;
  uchar4 q = c4[i];
  c4[i + n] = q;
}


// The copies into locals are gone (sroa); what is left is one vector
// access per whole-vector load or store. The by-value parameter `bias` is
// read in place, field by field where it is used.
// check: ld.global.v4.f32 {
// check: st.shared.v4.f32
// check: ld.shared.v4.f32
// check: ld.const.v4.f32
// check: ld.param.f32 %f13, [vectors_param_8];
// check: st.global.v4.f32
// check: ld.global.v2.f64
// check: st.global.v2.f64
// check: ld.global.nc.v4.u32
// check: st.global.v4.u32 [g_last],
// check: ld.global.v4.u32
// check: st.global.v4.u32
// check: ld.global.v2.f32
// check: st.local.v2.f32
// check: st.v2.f32
// check: ld.local.v2.f32
// check: st.global.v2.f32
// check: ld.global.v4.u16
// check: st.global.v4.u16
// check: ld.global.v4.u8
// check: st.global.v4.u8
