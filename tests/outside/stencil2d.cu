// 2D 5-point Jacobi stencil with a shared-memory tile and halo, fixed
// boundary values.
#define BX 32
#define BY 8

extern "C" __global__ void jacobi5(const float *__restrict__ in, float *__restrict__ out,
                                   int nx, int ny) {
    __shared__ float t[BY + 2][BX + 2];
    int gx = blockIdx.x * BX + threadIdx.x;
    int gy = blockIdx.y * BY + threadIdx.y;
    int lx = threadIdx.x + 1, ly = threadIdx.y + 1;
    bool inside = gx < nx && gy < ny;
    t[ly][lx] = inside ? in[gy * nx + gx] : 0.0f;
    if (threadIdx.x == 0)
        t[ly][0] = (gx > 0 && gy < ny) ? in[gy * nx + gx - 1] : 0.0f;
    if (threadIdx.x == BX - 1)
        t[ly][BX + 1] = (gx + 1 < nx && gy < ny) ? in[gy * nx + gx + 1] : 0.0f;
    if (threadIdx.y == 0)
        t[0][lx] = (gy > 0 && gx < nx) ? in[(gy - 1) * nx + gx] : 0.0f;
    if (threadIdx.y == BY - 1)
        t[BY + 1][lx] = (gy + 1 < ny && gx < nx) ? in[(gy + 1) * nx + gx] : 0.0f;
    __syncthreads();
    if (!inside) return;
    if (gx == 0 || gy == 0 || gx == nx - 1 || gy == ny - 1) {
        out[gy * nx + gx] = t[ly][lx];
        return;
    }
    out[gy * nx + gx] = 0.25f * (t[ly][lx - 1] + t[ly][lx + 1] + t[ly - 1][lx] + t[ly + 1][lx]);
}
