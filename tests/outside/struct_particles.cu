// Structs by value: simulation parameters passed to a kernel and to a
// __noinline__ helper, with an array member (gravity vector) and a
// struct returned from a helper.
struct SimParams {
    float dt;
    float damping;
    float gravity[3];
    float bounds[2];
    int n;
};

struct Vec3 {
    float x, y, z;
};

__device__ __noinline__ Vec3 integrate(Vec3 v, Vec3 a, SimParams p) {
    Vec3 r;
    r.x = (v.x + a.x * p.dt) * p.damping;
    r.y = (v.y + a.y * p.dt) * p.damping;
    r.z = (v.z + a.z * p.dt) * p.damping;
    return r;
}

__device__ inline float reflect(float x, float &v, float lo, float hi) {
    if (x < lo) { v = -v; return lo + (lo - x); }
    if (x > hi) { v = -v; return hi - (x - hi); }
    return x;
}

extern "C" __global__ void step_particles(SimParams p, float3 *pos, float3 *vel) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= p.n) return;
    Vec3 v = {vel[i].x, vel[i].y, vel[i].z};
    Vec3 g = {p.gravity[0], p.gravity[1], p.gravity[2]};
    v = integrate(v, g, p);
    float3 x = pos[i];
    x.x = reflect(x.x + v.x * p.dt, v.x, p.bounds[0], p.bounds[1]);
    x.y = reflect(x.y + v.y * p.dt, v.y, p.bounds[0], p.bounds[1]);
    x.z = reflect(x.z + v.z * p.dt, v.z, p.bounds[0], p.bounds[1]);
    pos[i] = x;
    vel[i] = make_float3(v.x, v.y, v.z);
}
