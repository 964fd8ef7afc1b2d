// Row-wise softmax of a rows x cols matrix: one block per row. The block
// first reduces the row's maximum, then the sum of exp(x - max), both with
// a shared-memory tree, and finally normalizes.
#define THREADS 64

extern "C" __global__ void softmax_rows(const float *input, float *output, int rows, int cols) {
    __shared__ float red[THREADS];
    int row = blockIdx.x;
    int tid = threadIdx.x;
    if (row >= rows)
        return;
    const float *x = input + row * cols;
    float *y = output + row * cols;

    // (-INFINITY would be the textbook start; see docs/testing.md, known gaps.)
    float m = -3.0e38f;
    for (int c = tid; c < cols; c += blockDim.x)
        m = fmaxf(m, x[c]);
    red[tid] = m;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            red[tid] = fmaxf(red[tid], red[tid + s]);
        __syncthreads();
    }
    float rowMax = red[0];
    __syncthreads();

    float sum = 0.0f;
    for (int c = tid; c < cols; c += blockDim.x)
        sum += expf(x[c] - rowMax);
    red[tid] = sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            red[tid] += red[tid + s];
        __syncthreads();
    }
    float inv = 1.0f / red[0];

    for (int c = tid; c < cols; c += blockDim.x)
        y[c] = expf(x[c] - rowMax) * inv;
}
