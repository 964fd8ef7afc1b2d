// Struct-valued conditional expressions: an element loaded from global
// memory or a constructed default, and a struct from shared memory or from
// a local variable. Each arm's struct is copied into one temporary, so
// every load keeps its own space (no generic access where the arms come
// from different spaces).
struct Pt {
    float x, y;
    int id;
};

extern "C" __global__ void struct_select(const float4 *pos, const Pt *pts, float4 *out, Pt *outp,
                                         int n) {
    __shared__ Pt cache[64];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int t = threadIdx.x;
    cache[t] = pts[i];
    __syncthreads();
    float4 v = i < n ? pos[i] : make_float4(-1.0f, -2.0f, -3.0f, -4.0f);
    out[i] = v;
    Pt local;
    local.x = (float)i;
    local.y = 0.5f;
    local.id = -i;
    Pt p = (t & 1) ? cache[63 - t] : local;
    outp[i] = p;
}
