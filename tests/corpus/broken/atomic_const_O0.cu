// expect: 6:5: Cannot do atomic operation on const memory
// args: -O0
__constant__ int limits[4];

extern "C" __global__ void bump_constant(int *out) {
    atomicAdd((int *)&limits[1], 1);
    out[0] = limits[1];
}
