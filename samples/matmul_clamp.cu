// Naive matrix multiply C = clamp(A * B) for n x n row-major matrices, with a
// little extra control flow to exercise the compiler.
//
// What it shows: a 2-D launch (threadIdx.y/blockIdx.y), an early `return`,
// a nested loop (the k loop inside a while loop that halves large results),
// `break`, a `__device__` helper called from the kernel, the ternary
// operator, and float/int conversions.
__device__ float clampf(float v, float lo, float hi)
{
    return v < lo ? lo : (v > hi ? hi : v);
}

extern "C" __global__ void matmul_clamp(const float* A, const float* B, float* C,
                                        int n, float limit)
{
    unsigned row = blockIdx.y * blockDim.y + threadIdx.y;
    unsigned col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= n || col >= n)
        return;

    float acc = 0.0f;
    for (int k = 0; k < n; ++k) {
        acc += A[row * n + k] * B[k * n + col];
    }

    // Scale down results that are too large, at most four times.
    int halvings = 0;
    while (halvings < 4) {
        if (acc <= limit && acc >= -limit)
            break;
        acc *= 0.5f;
        halvings++;
    }
    for (int i = 0; i < halvings; i++) {
        for (int j = 0; j < 2; j++) {
            if ((i + j) % 2 == 0)
                acc += 0.25f;
            else
                acc -= 0.25f;
        }
    }
    C[row * n + col] = clampf(acc, -limit, limit) + (float)halvings;
}
