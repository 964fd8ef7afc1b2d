// test compile sm_90
// Texture and surface objects: a 2-D float fetch (`tex.2d.v4.f32.f32`), a
// 1-D integer fetch by index (`tex.1d.v4.s32.s32`), a surface read and a
// surface write in the default trap mode (`suld.b.2d`, `sust.b.2d`). The
// three IR opcodes `tex`, `suld` and `sust` as selected and assembled.
extern "C" __global__ void k(float *out, int *idx, cudaTextureObject_t image,
                             cudaTextureObject_t table, cudaSurfaceObject_t surf)
{
    int x = threadIdx.x, y = blockIdx.x;
    float v = tex2D<float>(image, x + 0.5f, y + 0.5f);
    idx[x] = tex1Dfetch<int>(table, x);
    float s = surf2Dread<float>(surf, x * 4, y);
    surf2Dwrite(v + s, surf, x * 4, y);
    out[y * blockDim.x + x] = v;
}

// check: tex.2d.v4.f32.f32 {%f5, %f6, %f7, %f8}, [%rd5, {%f2, %f4}];
// check: tex.1d.v4.s32.s32 {%r3, %r4, %r5, %r6}, [%rd6, {%r1}];
// nextln: st.global.u32 [%rd9], %r3;
// check: suld.b.2d.b32.trap {%r8}, [%rd7, {%r7, %r2}];
// nextln: mov.b32 %f9, %r8;
// check: sust.b.2d.b32.trap [%rd7, {%r7, %r2}], {%r9};
// check: st.global.f32 [%rd11], %f5;
