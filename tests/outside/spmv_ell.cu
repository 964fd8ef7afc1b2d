// Sparse matrix-vector product in ELLPACK format (column-major padded
// storage, -1 marks padding), and a hybrid variant in double.
extern "C" __global__ void spmv_ell(int rows, int maxNnz, const int *__restrict__ colIdx,
                                    const float *__restrict__ vals, const float *__restrict__ x,
                                    float *__restrict__ y) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    float sum = 0.0f;
    for (int k = 0; k < maxNnz; ++k) {
        int col = colIdx[k * rows + row];
        if (col < 0) break;
        sum += vals[k * rows + row] * x[col];
    }
    y[row] = sum;
}

extern "C" __global__ void spmv_ell_d(int rows, int maxNnz, const int *__restrict__ colIdx,
                                      const double *__restrict__ vals, const double *__restrict__ x,
                                      double alpha, double *__restrict__ y) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    double sum = 0.0;
    for (int k = 0; k < maxNnz; ++k) {
        int col = colIdx[k * rows + row];
        double v = vals[k * rows + row];
        if (col >= 0 && v != 0.0) sum += v * x[col];
    }
    y[row] = alpha * sum + y[row];
}
