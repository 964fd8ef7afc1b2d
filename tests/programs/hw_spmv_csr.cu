// HW 7: sparse matrix-vector product y = A x with A in CSR format.
//   spmvScalar: one thread per row
//   spmvVector: one warp per row, lanes stride over the row's nonzeros and
//               combine with __shfl_down_sync
// The matrix is a 2-D 5-point Laplacian on a GRID x GRID mesh plus a few
// long random rows, so the row lengths vary.

#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>

#define GRID 300
#define WARP_SIZE 32
#define THREADS 128

#define CUDA_CALL(x)                                                     \
  do {                                                                   \
    if ((x) != cudaSuccess) {                                            \
      printf("Error at %s:%d\n", __FILE__, __LINE__);                    \
      exit(EXIT_FAILURE);                                                \
    }                                                                    \
  } while (0)

__global__ void spmvScalar(int rows, const int *rowPtr, const int *cols, const float *vals,
                           const float *x, float *y) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float dot = 0;
    for (int j = rowPtr[row]; j < rowPtr[row + 1]; j++) dot += vals[j] * x[cols[j]];
    y[row] = dot;
  }
}

__global__ void spmvVector(int rows, const int *rowPtr, const int *cols, const float *vals,
                           const float *x, float *y) {
  int thread = blockIdx.x * blockDim.x + threadIdx.x;
  int warp = thread / WARP_SIZE;
  int lane = thread & (WARP_SIZE - 1);
  // whole warps stay together: rows >= warp is uniform across the warp
  if (warp < rows) {
    float sum = 0;
    for (int j = rowPtr[warp] + lane; j < rowPtr[warp + 1]; j += WARP_SIZE)
      sum += vals[j] * x[cols[j]];
    for (int offset = WARP_SIZE / 2; offset > 0; offset /= 2)
      sum += __shfl_down_sync(0xffffffff, sum, offset);
    if (lane == 0) y[warp] = sum;
  }
}

int main() {
  const int rows = GRID * GRID;
  std::vector<int> rowPtr(1, 0), cols;
  std::vector<float> vals;
  srand(5);
  for (int r = 0; r < rows; r++) {
    int i = r / GRID, j = r % GRID;
    if (i > 0) { cols.push_back(r - GRID); vals.push_back(-1); }
    if (j > 0) { cols.push_back(r - 1); vals.push_back(-1); }
    cols.push_back(r); vals.push_back(4);
    if (j < GRID - 1) { cols.push_back(r + 1); vals.push_back(-1); }
    if (i < GRID - 1) { cols.push_back(r + GRID); vals.push_back(-1); }
    if (r % 997 == 0) // a dense-ish row every so often
      for (int k = 0; k < 200; k++) {
        int c = (r + 1 + k * 211) % rows;
        cols.push_back(c);
        vals.push_back(0.01f * (rand() % 10));
      }
    rowPtr.push_back((int)cols.size());
  }
  int nnz = (int)cols.size();
  std::vector<float> x(rows), y(rows), ref(rows);
  for (int r = 0; r < rows; r++) x[r] = (float)((r * 13) % 7) - 3.0f;
  for (int r = 0; r < rows; r++) {
    double s = 0;
    for (int j = rowPtr[r]; j < rowPtr[r + 1]; j++) s += (double)vals[j] * x[cols[j]];
    ref[r] = (float)s;
  }
  printf("%d rows, %d nonzeros\n", rows, nnz);

  int *d_rowPtr, *d_cols;
  float *d_vals, *d_x, *d_y;
  CUDA_CALL(cudaMalloc(&d_rowPtr, (rows + 1) * sizeof(int)));
  CUDA_CALL(cudaMalloc(&d_cols, nnz * sizeof(int)));
  CUDA_CALL(cudaMalloc(&d_vals, nnz * sizeof(float)));
  CUDA_CALL(cudaMalloc(&d_x, rows * sizeof(float)));
  CUDA_CALL(cudaMalloc(&d_y, rows * sizeof(float)));
  CUDA_CALL(cudaMemcpy(d_rowPtr, rowPtr.data(), (rows + 1) * sizeof(int), cudaMemcpyHostToDevice));
  CUDA_CALL(cudaMemcpy(d_cols, cols.data(), nnz * sizeof(int), cudaMemcpyHostToDevice));
  CUDA_CALL(cudaMemcpy(d_vals, vals.data(), nnz * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CALL(cudaMemcpy(d_x, x.data(), rows * sizeof(float), cudaMemcpyHostToDevice));

  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  bool ok = true;
  for (int version = 0; version < 2; version++) {
    CUDA_CALL(cudaMemset(d_y, 0, rows * sizeof(float)));
    cudaEventRecord(start);
    if (version == 0)
      spmvScalar<<<(rows + THREADS - 1) / THREADS, THREADS>>>(rows, d_rowPtr, d_cols, d_vals, d_x, d_y);
    else
      spmvVector<<<(rows * WARP_SIZE + THREADS - 1) / THREADS, THREADS>>>(rows, d_rowPtr, d_cols, d_vals, d_x, d_y);
    cudaEventRecord(stop);
    CUDA_CALL(cudaGetLastError());
    cudaEventSynchronize(stop);
    float ms;
    cudaEventElapsedTime(&ms, start, stop);
    CUDA_CALL(cudaMemcpy(y.data(), d_y, rows * sizeof(float), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int r = 0; r < rows; r++)
      if (fabsf(y[r] - ref[r]) > 1e-3f) bad++;
    printf("%s: %.3f ms, %d bad rows\n", version ? "vector" : "scalar", ms, bad);
    ok = ok && bad == 0;
  }
  cudaFree(d_rowPtr);
  cudaFree(d_cols);
  cudaFree(d_vals);
  cudaFree(d_x);
  cudaFree(d_y);
  return ok ? 0 : 1;
}
