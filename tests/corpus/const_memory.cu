// Constant memory with initializers: a polynomial evaluated with Horner's
// rule, and a byte lookup table (bits reversed per nibble).
__constant__ float c_poly[5] = {1.0f, -0.5f, 0.25f, -0.125f, 0.0625f};
__constant__ unsigned char c_nibble_rev[16] = {0x0, 0x8, 0x4, 0xC, 0x2, 0xA, 0x6, 0xE,
                                                0x1, 0x9, 0x5, 0xD, 0x3, 0xB, 0x7, 0xF};
__constant__ int c_offset = 7;

extern "C" __global__ void poly_and_table(const float *x, float *px, const unsigned int *bytes,
                                          unsigned int *rev, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float v = x[i];
    float p = c_poly[4];
    for (int k = 3; k >= 0; --k)
        p = p * v + c_poly[k];
    px[i] = p;

    unsigned int b = bytes[i] & 0xffu;
    unsigned int r = (c_nibble_rev[b & 0xf] << 4) | c_nibble_rev[b >> 4];
    rev[i] = r + c_offset;
}
