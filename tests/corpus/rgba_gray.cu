// The classic first image kernel: RGBA pixels (uchar4) to grey levels.
// Only x, y and z of each pixel are read; the load is still one
// `ld.global.nc.v4.u8`, as in nvcc's PTX.
extern "C" __global__ void rgba_gray(const uchar4 *__restrict__ rgba, float *__restrict__ grey,
                                     int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    uchar4 p = rgba[i];
    grey[i] = (0.299f * p.x + 0.587f * p.y + 0.114f * p.z) * (1.0f / 255.0f);
}
