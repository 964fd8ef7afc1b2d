// Homework 4: a small matrix class shared by host and device code.
//
// The class keeps a pointer and its shape, indexes with operator() on both
// sides, and knows its own tile size as a static constant declared after
// the member functions that use it. Part A multiplies two matrices with a
// shared-memory tiled kernel; part B normalizes each row (L2) and counts
// the rows that were all zeros. The host computes both on the CPU and
// compares.
//
// nvcc-flags: -I tests/programs/common

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <numeric>
#include <random>
#include <vector>

#include "helper_cuda.h"

class Matrix {
 public:
  __host__ __device__ Matrix(float *data, int rows, int cols)
      : data_(data), rows_(rows), cols_(cols) {}

  __host__ __device__ float &operator()(int r, int c) { return data_[r * cols_ + c]; }
  __host__ __device__ const float &operator()(int r, int c) const {
    return data_[r * cols_ + c];
  }
  __host__ __device__ int rows() const { return rows_; }
  __host__ __device__ int cols() const { return cols_; }
  // How many tiles of TILE columns cover a row (read by the kernels).
  __host__ __device__ int tilesPerRow() const { return (cols_ + TILE - 1) / TILE; }
  __host__ __device__ bool contains(int r, int c) const {
    return r >= 0 && r < rows_ && c >= 0 && c < cols_;
  }

  void fill(std::mt19937 &gen) {
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (int i = 0; i < rows_ * cols_; ++i) data_[i] = dist(gen);
  }

  static constexpr int TILE = 16;

 private:
  float *data_;
  int rows_, cols_;
};

// A running sum that a kernel keeps per thread.
struct RowAccumulator {
  float sumSquares;
  int nonZero;
  __device__ RowAccumulator() : sumSquares(0.0f), nonZero(0) {}
  __device__ ~RowAccumulator() {}
  __device__ void add(float v) {
    sumSquares += v * v;
    nonZero += (v != 0.0f);
  }
};

__global__ void matmulTiled(const Matrix A, const Matrix B, Matrix C) {
  __shared__ float tileA[Matrix::TILE][Matrix::TILE];
  __shared__ float tileB[Matrix::TILE][Matrix::TILE];
  int row = blockIdx.y * Matrix::TILE + threadIdx.y;
  int col = blockIdx.x * Matrix::TILE + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < A.tilesPerRow(); ++t) {
    int k = t * Matrix::TILE;
    tileA[threadIdx.y][threadIdx.x] =
        A.contains(row, k + threadIdx.x) ? A(row, k + threadIdx.x) : 0.0f;
    tileB[threadIdx.y][threadIdx.x] =
        B.contains(k + threadIdx.y, col) ? B(k + threadIdx.y, col) : 0.0f;
    __syncthreads();
    for (int i = 0; i < Matrix::TILE; ++i) acc += tileA[threadIdx.y][i] * tileB[i][threadIdx.x];
    __syncthreads();
  }
  if (C.contains(row, col)) C(row, col) = acc;
}

// One thread per row: scale the row to unit length; rows of zeros stay
// zero and are counted.
__global__ void normalizeRows(float *data, int rows, int cols, int *zeroRows) {
  Matrix M(data, rows, cols);
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= M.rows()) return;
  RowAccumulator acc;
  for (int c = 0; c < M.cols(); ++c) acc.add(M(r, c));
  float norm = ::sqrtf(acc.sumSquares);
  float inv = 1.0f / norm;
  if (acc.nonZero == 0 || std::isinf(inv) || std::isnan(inv)) {
    atomicAdd(zeroRows, 1);
    return;
  }
  for (int c = 0; c < M.cols(); ++c) M(r, c) *= inv;
}

static void matmulCpu(const Matrix &A, const Matrix &B, Matrix &C) {
  for (int r = 0; r < C.rows(); ++r)
    for (int c = 0; c < C.cols(); ++c) {
      float acc = 0.0f;
      for (int k = 0; k < A.cols(); ++k) acc += A(r, k) * B(k, c);
      C(r, c) = acc;
    }
}

int main(int argc, char **argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 100;
  std::mt19937 gen(42);
  std::vector<float> hA(n * n), hB(n * n), hC(n * n), ref(n * n);
  Matrix A(hA.data(), n, n), B(hB.data(), n, n), C(hC.data(), n, n), R(ref.data(), n, n);
  A.fill(gen);
  B.fill(gen);
  std::fill(hB.begin(), hB.begin() + n, 0.0f);  // B's first row is zero

  float *dA, *dB, *dC;
  int *dZero;
  size_t bytes = sizeof(float) * n * n;
  checkCudaErrors(cudaMalloc(&dA, bytes));
  checkCudaErrors(cudaMalloc(&dB, bytes));
  checkCudaErrors(cudaMalloc(&dC, bytes));
  checkCudaErrors(cudaMalloc(&dZero, sizeof(int)));
  checkCudaErrors(cudaMemcpy(dA, hA.data(), bytes, cudaMemcpyHostToDevice));
  checkCudaErrors(cudaMemcpy(dB, hB.data(), bytes, cudaMemcpyHostToDevice));
  checkCudaErrors(cudaMemset(dZero, 0, sizeof(int)));

  dim3 block(Matrix::TILE, Matrix::TILE);
  dim3 grid((n + Matrix::TILE - 1) / Matrix::TILE, (n + Matrix::TILE - 1) / Matrix::TILE);
  matmulTiled<<<grid, block>>>(Matrix(dA, n, n), Matrix(dB, n, n), Matrix(dC, n, n));
  checkCudaErrors(cudaGetLastError());
  normalizeRows<<<(n + 127) / 128, 128>>>(dB, n, n, dZero);
  checkCudaErrors(cudaGetLastError());
  int zeroRows = 0;
  checkCudaErrors(cudaMemcpy(hC.data(), dC, bytes, cudaMemcpyDeviceToHost));
  checkCudaErrors(cudaMemcpy(&zeroRows, dZero, sizeof(int), cudaMemcpyDeviceToHost));

  matmulCpu(A, B, R);
  double maxErr = 0.0;
  for (int i = 0; i < n * n; ++i) maxErr = std::max(maxErr, (double)std::fabs(hC[i] - ref[i]));
  std::cout << "max |gpu - cpu| = " << maxErr << ", zero rows = " << zeroRows << std::endl;
  bool ok = maxErr < 1e-3 && zeroRows == 1;
  cudaFree(dA);
  cudaFree(dB);
  cudaFree(dC);
  cudaFree(dZero);
  std::cout << (ok ? "PASSED" : "FAILED") << std::endl;
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
