// Sparse matrix-vector product y = A * x with A in CSR format, one thread
// per row (the "scalar" kernel).
extern "C" __global__ void spmv_csr_scalar(int num_rows,
                                           const int *__restrict__ row_ptr,
                                           const int *__restrict__ col_idx,
                                           const float *__restrict__ values,
                                           const float *__restrict__ x,
                                           float *__restrict__ y) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < num_rows) {
        float dot = 0.0f;
        int start = row_ptr[row];
        int end = row_ptr[row + 1];
        for (int j = start; j < end; j++)
            dot += values[j] * x[col_idx[j]];
        y[row] = dot;
    }
}
