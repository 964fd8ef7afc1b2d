// Structs handed by value to __noinline__ helpers, built in every way a
// caller builds them: all fields in one go, one field changed between two
// calls, one field set only on some paths, fields set before a loop that
// runs the call, a struct whose address is also taken, and fields of every
// width (char, bool, short, int, float, double, a pointer).
struct Mixed {
    char tag;
    bool neg;
    short step;
    int base;
    float scale;
    double offset;
    const float *src;
};

__device__ __noinline__ float eval(Mixed m, int i) {
    float v = m.src[i] * m.scale + (float)m.offset + (float)(m.base + m.step * m.tag);
    return m.neg ? -v : v;
}

__device__ __noinline__ void bump(Mixed *m) {
    m->base += 100;
}

extern "C" __global__ void byval_helpers(const float *in, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;

    // Every field stored right before the call.
    Mixed a;
    a.tag = (char)(i & 7);
    a.neg = (i & 1) != 0;
    a.step = (short)(i - 3);
    a.base = i;
    a.scale = 0.5f;
    a.offset = 0.25;
    a.src = in;
    float r0 = eval(a, i);

    // One field changed between two calls with the same struct.
    a.scale = 2.0f;
    float r1 = eval(a, i);

    // A field set only on one path: its value at the call depends on the path.
    Mixed b = a;
    if (i % 3 == 0)
        b.base = -i;
    float r2 = eval(b, i);

    // Fields set before a loop; the call runs on each iteration, and a
    // field changes after it.
    Mixed c = a;
    float r3 = 0.0f;
    for (int k = 0; k < (i & 3); ++k) {
        r3 += eval(c, i);
        c.tag = (char)(c.tag + 1);
    }

    // The address is taken: the helper changes the caller's struct.
    Mixed d = a;
    bump(&d);
    float r4 = eval(d, i) + (float)d.base;

    out[5 * i + 0] = r0;
    out[5 * i + 1] = r1;
    out[5 * i + 2] = r2;
    out[5 * i + 3] = r3;
    out[5 * i + 4] = r4;
}
