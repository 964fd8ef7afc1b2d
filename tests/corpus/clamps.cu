// Minimums, maximums and clamps written as conditional expressions, the
// way C code spells them: signed and unsigned, nested, with the arms either
// way round, and one "clamp" whose bounds are crossed (so it is not one).
extern "C" __global__ void clamps(const int *a, const int *b, int *o, unsigned *u) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int x = a[i] >> (i & 31), y = b[i] >> ((i * 7) & 31);
    unsigned ux = (unsigned)a[i], uy = (unsigned)b[i] >> (i & 15);
    o[8 * i + 0] = x < y ? x : y;
    o[8 * i + 1] = x <= y ? y : x;
    o[8 * i + 2] = x > 127 ? 127 : (x < -127 ? -127 : x);
    o[8 * i + 3] = x < -5 ? -5 : (x > 1000 ? 1000 : x);
    o[8 * i + 4] = x >= 3 ? 3 : (x <= 3 ? x : 7);
    o[8 * i + 5] = x > 10 ? 10 : (x < 20 ? 20 : x);
    o[8 * i + 6] = y >= x ? x : y;
    o[8 * i + 7] = x > y ? x : y;
    u[4 * i + 0] = ux < uy ? ux : uy;
    u[4 * i + 1] = ux > 255u ? 255u : (ux < 16u ? 16u : ux);
    u[4 * i + 2] = ux >= uy ? ux : uy;
    u[4 * i + 3] = uy > 0x80000000u ? 0x80000000u : (uy < 3u ? 3u : uy);
}
