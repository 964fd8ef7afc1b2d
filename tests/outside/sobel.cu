// Sobel edge magnitude on an 8-bit image with a shared-memory tile (16x16
// plus a 1-pixel halo), output as unsigned char.
#define TS 16

extern "C" __global__ void sobel_u8(const unsigned char *__restrict__ in,
                                    unsigned char *__restrict__ out, int w, int h) {
    __shared__ unsigned char tile[TS + 2][TS + 2];
    int x = blockIdx.x * TS + threadIdx.x;
    int y = blockIdx.y * TS + threadIdx.y;
    for (int ty = threadIdx.y; ty < TS + 2; ty += TS) {
        for (int tx = threadIdx.x; tx < TS + 2; tx += TS) {
            int gx = min(max((int)(blockIdx.x * TS) + tx - 1, 0), w - 1);
            int gy = min(max((int)(blockIdx.y * TS) + ty - 1, 0), h - 1);
            tile[ty][tx] = in[gy * w + gx];
        }
    }
    __syncthreads();
    if (x >= w || y >= h) return;
    int lx = threadIdx.x + 1, ly = threadIdx.y + 1;
    int gx = -tile[ly - 1][lx - 1] - 2 * tile[ly][lx - 1] - tile[ly + 1][lx - 1]
             + tile[ly - 1][lx + 1] + 2 * tile[ly][lx + 1] + tile[ly + 1][lx + 1];
    int gy = -tile[ly - 1][lx - 1] - 2 * tile[ly - 1][lx] - tile[ly - 1][lx + 1]
             + tile[ly + 1][lx - 1] + 2 * tile[ly + 1][lx] + tile[ly + 1][lx + 1];
    float mag = sqrtf((float)(gx * gx + gy * gy));
    out[y * w + x] = (unsigned char)fminf(mag, 255.0f);
}
