// 1D and 2D stencils.
#define RADIUS 3
#define BLOCK 128

// Weights of the 7-point 1D stencil, in constant memory.
__constant__ float c_weights[2 * RADIUS + 1] = {0.05f, 0.1f, 0.2f, 0.3f, 0.2f, 0.1f, 0.05f};

// 1D: each block stages its segment plus a halo of RADIUS on each side in
// shared memory. Outside the array the input counts as zero.
extern "C" __global__ void stencil1d(const float *in, float *out, int n) {
    __shared__ float tile[BLOCK + 2 * RADIUS];
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int l = threadIdx.x + RADIUS;

    tile[l] = (g < n) ? in[g] : 0.0f;
    if (threadIdx.x < RADIUS) {
        int left = g - RADIUS;
        int right = g + BLOCK;
        tile[l - RADIUS] = (left >= 0 && left < n) ? in[left] : 0.0f;
        tile[l + BLOCK] = (right < n) ? in[right] : 0.0f;
    }
    __syncthreads();

    if (g < n) {
        float result = 0.0f;
        for (int j = -RADIUS; j <= RADIUS; j++)
            result += c_weights[j + RADIUS] * tile[l + j];
        out[g] = result;
    }
}

// 2D: one Jacobi step of the 5-point Laplace stencil on a width x height
// grid; the border cells are copied unchanged.
extern "C" __global__ void jacobi2d(const float *__restrict__ u, float *__restrict__ unew,
                                    int width, int height) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height)
        return;
    int idx = y * width + x;
    if (x == 0 || y == 0 || x == width - 1 || y == height - 1) {
        unew[idx] = u[idx];
    } else {
        unew[idx] = 0.25f * (u[idx - 1] + u[idx + 1] + u[idx - width] + u[idx + width]);
    }
}
