// Matrix-vector product y = A x (row-major), one warp per row with a
// shuffle reduction, and a transposed version y = A^T x with one thread per
// column (coalesced).
extern "C" __global__ void gemv_warp(const float *__restrict__ A, const float *__restrict__ x,
                                     float *__restrict__ y, int rows, int cols) {
    int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x & 31;
    if (row >= rows) return;
    float s = 0.0f;
    for (int c = lane; c < cols; c += 32) s += A[(size_t)row * cols + c] * __ldg(&x[c]);
    for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
    if (lane == 0) y[row] = s;
}

extern "C" __global__ void gemv_t(const float *__restrict__ A, const float *__restrict__ x,
                                  float *__restrict__ y, int rows, int cols) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (col >= cols) return;
    float s = 0.0f;
    for (int r = 0; r < rows; ++r) s += A[(size_t)r * cols + col] * x[r];
    y[col] = s;
}
