// Naive O(N^2) n-body acceleration step with a shared-memory tile of
// float4 (xyz = position, w = mass) and rsqrtf softening.
#define NB_TILE 128

__device__ __forceinline__ float3 body_body(float4 bi, float4 bj, float3 ai, float eps2) {
    float3 r;
    r.x = bj.x - bi.x;
    r.y = bj.y - bi.y;
    r.z = bj.z - bi.z;
    float d2 = r.x * r.x + r.y * r.y + r.z * r.z + eps2;
    float inv = rsqrtf(d2);
    float s = bj.w * inv * inv * inv;
    ai.x += r.x * s;
    ai.y += r.y * s;
    ai.z += r.z * s;
    return ai;
}

extern "C" __global__ void nbody_accel(const float4 *__restrict__ pos, float4 *__restrict__ vel,
                                       int n, float dt, float eps2) {
    __shared__ float4 tile[NB_TILE];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float4 me = i < n ? pos[i] : make_float4(0.f, 0.f, 0.f, 0.f);
    float3 acc = make_float3(0.f, 0.f, 0.f);
    for (int base = 0; base < n; base += NB_TILE) {
        int j = base + threadIdx.x;
        tile[threadIdx.x] = j < n ? pos[j] : make_float4(0.f, 0.f, 0.f, 0.f);
        __syncthreads();
        int cnt = min(NB_TILE, n - base);
        for (int k = 0; k < cnt; ++k)
            acc = body_body(me, tile[k], acc, eps2);
        __syncthreads();
    }
    if (i < n) {
        float4 v = vel[i];
        v.x += acc.x * dt;
        v.y += acc.y * dt;
        v.z += acc.z * dt;
        vel[i] = v;
    }
}
