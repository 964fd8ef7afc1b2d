// Vector loads: four floats at a time through float4.
extern "C" __global__ void scale_add4(const float4 *__restrict__ a, const float4 *__restrict__ b,
                                      float4 *__restrict__ c, float s, int n4) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) {
        float4 va = a[i];
        float4 vb = b[i];
        float4 r;
        r.x = s * va.x + vb.x;
        r.y = s * va.y + vb.y;
        r.z = s * va.z + vb.z;
        r.w = s * va.w + vb.w;
        c[i] = r;
    }
}

// The dot product of each float4 with itself, into a float2 (sum, max).
extern "C" __global__ void norms4(const float4 *v, float2 *out, int n4) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) {
        float4 q = v[i];
        float m = fmaxf(fmaxf(fabsf(q.x), fabsf(q.y)), fmaxf(fabsf(q.z), fabsf(q.w)));
        out[i] = make_float2(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w, m);
    }
}
