// test compile sm_90
// Structs (named, typedef'd, nested, arrays of them, array members),
// `.`/`->`, copies, brace initializers, struct module variables, struct
// parameters and results of device functions, and CUDA vector types with
// their alignment and make_* functions. Results are checked in
// frontend/tests/structs.rs.
struct Particle { float x, y; int id; double w; char tag[3]; };
typedef struct { int a; Particle p; } Wrap;
__device__ Particle g_parts[4];
__constant__ Particle c_part = {1.0f, 2.0f, 3, 4.0, {1, 2, 3}};
__shared__ float4 s_vec[32];
__device__ double2 g_d2;

__device__ __noinline__ Particle mk(float x, int id) {
    Particle p = {x, 0.0f, id, 1.0, {0}};
    p.y = x * 2.0f;
    return p;
}

__device__ __noinline__ float sum(Particle p) {
    p.x += 1.0f;
    return p.x + p.y + p.id;
}

extern "C" __global__ void particles(Particle *ps, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Particle q = ps[i];
    ps[i].x += 1.5f;
    Particle *r = &ps[i];
    r->y = q.x;
    Wrap w;
    w.p = mk(q.x, i);
    w.a = sizeof(Particle) + sizeof(Wrap);
    Particle arr[2] = {q, w.p};
    arr[1].tag[2] = 7;
    g_parts[i % 4] = arr[i & 1];
    out[i] = sum(arr[1]) + w.a + c_part.w + arr[1].tag[2];
}

extern "C" __global__ void vectors(float4 *a, int2 *b, double2 *d) {
    int i = threadIdx.x;
    float4 x = a[i];
    int2 q = make_int2(i, 2 * i);
    x.w = x.x + x.y + x.z;
    s_vec[i] = x;
    __syncthreads();
    a[i] = s_vec[(i + 1) % 32];
    b[i] = q;
    d[i] = make_double2(x.w, q.y);
    g_d2 = d[i];
}

// check: .global .align 8 .b8 g_parts[128];
// check: .const .align 8 .b8 c_part[32] = {0, 0, 128, 63, 0, 0, 0, 64, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 16, 64, 1, 2, 3, 0, 0, 0, 0, 0};
// check: .shared .align 16 .b8 s_vec[512];
// check: .global .align 16 .b8 g_d2[16];
// check: .func (.param .align 8 .b8 func_retval0[32]) _Z2mkfi(
// check: st.param.v2.f32 [func_retval0], {
// check: st.param.f64 [func_retval0+16],
// check: .func (.param .b32 func_retval0) _Z3sum8Particle(
// check: .param .align 8 .b8 _Z3sum8Particle_param_0[32]
// check: ld.param.v2.f32 {
// check: ld.param.u32 %r1, [_Z3sum8Particle_param_0+8];
// check: .entry particles(
// check: .local .align 8 .b8
// check: .entry vectors(
