// 2D kernels with a row pitch in bytes (cudaMallocPitch layout): scale and
// offset an image, and convert an RGBA8 image to grayscale floats.
extern "C" __global__ void scale2d(float *img, size_t pitch, int width, int height,
                                   float scale, float offset) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height) {
        float *row = (float *)((char *)img + y * pitch);
        row[x] = row[x] * scale + offset;
    }
}

extern "C" __global__ void rgba_to_gray(const uchar4 *__restrict__ rgba, size_t inPitch,
                                        float *__restrict__ gray, size_t outPitch,
                                        int width, int height) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    const uchar4 *src = (const uchar4 *)((const char *)rgba + y * inPitch);
    float *dst = (float *)((char *)gray + y * outPitch);
    uchar4 p = src[x];
    dst[x] = (0.299f * p.x + 0.587f * p.y + 0.114f * p.z) * (1.0f / 255.0f);
}
