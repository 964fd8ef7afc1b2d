// Mandelbrot escape-time iteration count with a runtime iteration limit and
// a smooth coloring value.
extern "C" __global__ void mandelbrot(unsigned *__restrict__ iters, float *__restrict__ smooth,
                                      int width, int height, float x0, float y0, float dx,
                                      float dy, int maxIter) {
    int px = blockIdx.x * blockDim.x + threadIdx.x;
    int py = blockIdx.y * blockDim.y + threadIdx.y;
    if (px >= width || py >= height) return;
    float cr = x0 + px * dx;
    float ci = y0 + py * dy;
    float zr = 0.0f, zi = 0.0f;
    int it = 0;
    while (it < maxIter && zr * zr + zi * zi <= 4.0f) {
        float t = zr * zr - zi * zi + cr;
        zi = 2.0f * zr * zi + ci;
        zr = t;
        ++it;
    }
    int idx = py * width + px;
    iters[idx] = it;
    float mag = zr * zr + zi * zi;
    smooth[idx] = it < maxIter ? it + 1.0f - log2f(log2f(fmaxf(mag, 1.0001f)) * 0.5f) : 0.0f;
}
