// Half-precision GEMM on tensor cores through the warp matrix functions
// (nvcuda::wmma), in the style of the toolkit's tensor-core samples: a
// naive kernel with one warp per 16x16 output tile, a tiled kernel that
// stages A and B in shared memory for a 2x2 block of warps, a bf16 tile
// with transposed layouts, and an epilogue that applies ReLU to the
// accumulator element by element. The host checks every result against a
// CPU GEMM.
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <mma.h>

using namespace nvcuda;

#define CHECK_CUDA(call)                                                        \
  do {                                                                          \
    cudaError_t err_ = (call);                                                  \
    if (err_ != cudaSuccess) {                                                  \
      fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(err_),     \
              __FILE__, __LINE__);                                              \
      exit(EXIT_FAILURE);                                                       \
    }                                                                           \
  } while (0)

constexpr int WM = 16;
constexpr int WN = 16;
constexpr int WK = 16;

// One warp computes one 16x16 tile of C = alpha * A * B + beta * C.
// A is M x K row-major, B is K x N column-major, C is M x N row-major.
__global__ void gemmNaive(const half *A, const half *B, float *C, int M, int N, int K,
                          float alpha, float beta) {
  int tileRow = (blockIdx.x * blockDim.x + threadIdx.x) / warpSize;
  int tileCol = blockIdx.y * blockDim.y + threadIdx.y;
  int row = tileRow * WM, col = tileCol * WN;
  if (row >= M || col >= N) return;

  wmma::fragment<wmma::matrix_a, WM, WN, WK, half, wmma::row_major> aFrag;
  wmma::fragment<wmma::matrix_b, WM, WN, WK, half, wmma::col_major> bFrag;
  wmma::fragment<wmma::accumulator, WM, WN, WK, float> acc;
  wmma::fragment<wmma::accumulator, WM, WN, WK, float> cFrag;
  wmma::fill_fragment(acc, 0.0f);

  for (int k = 0; k < K; k += WK) {
    wmma::load_matrix_sync(aFrag, A + row * K + k, K);
    wmma::load_matrix_sync(bFrag, B + col * K + k, K);
    wmma::mma_sync(acc, aFrag, bFrag, acc);
  }

  wmma::load_matrix_sync(cFrag, C + row * N + col, N, wmma::mem_row_major);
  for (int i = 0; i < cFrag.num_elements; i++)
    cFrag.x[i] = alpha * acc.x[i] + beta * cFrag.x[i];
  wmma::store_matrix_sync(C + row * N + col, cFrag, N, wmma::mem_row_major);
}

// A block of 2x2 warps computes a 32x32 tile of C = A * B, staging the
// 32x16 slice of A and the 16x32 slice of B in shared memory at each step.
// A and B are both row-major here.
constexpr int BLOCK_TILE = 32;

__global__ void gemmShared(const half *A, const half *B, float *C, int M, int N, int K) {
  __shared__ half sA[BLOCK_TILE][WK];
  __shared__ half sB[WK][BLOCK_TILE];

  int warp = threadIdx.x / 32;
  int warpRow = warp / 2, warpCol = warp % 2;
  int blockRow = blockIdx.y * BLOCK_TILE, blockCol = blockIdx.x * BLOCK_TILE;

  wmma::fragment<wmma::matrix_a, WM, WN, WK, half, wmma::row_major> aFrag;
  wmma::fragment<wmma::matrix_b, WM, WN, WK, half, wmma::row_major> bFrag;
  wmma::fragment<wmma::accumulator, WM, WN, WK, float> acc;
  wmma::fill_fragment(acc, 0.0f);

  for (int k = 0; k < K; k += WK) {
    for (int i = threadIdx.x; i < BLOCK_TILE * WK; i += blockDim.x) {
      int r = i / WK, c = i % WK;
      sA[r][c] = A[(blockRow + r) * K + k + c];
      int br = i / BLOCK_TILE, bc = i % BLOCK_TILE;
      sB[br][bc] = B[(k + br) * N + blockCol + bc];
    }
    __syncthreads();
    wmma::load_matrix_sync(aFrag, &sA[warpRow * WM][0], WK);
    wmma::load_matrix_sync(bFrag, &sB[0][warpCol * WN], BLOCK_TILE);
    wmma::mma_sync(acc, aFrag, bFrag, acc);
    __syncthreads();
  }
  float *out = C + (blockRow + warpRow * WM) * N + blockCol + warpCol * WN;
  wmma::store_matrix_sync(out, acc, N, wmma::mem_row_major);
}

// Element-wise work on any fragment: CUDA leaves the mapping of elements
// to matrix positions unspecified, so only position-free operations are
// portable.
template <typename Frag>
__device__ void reluInPlace(Frag &f) {
  for (int i = 0; i < f.num_elements; i++) f.x[i] = fmaxf(f.x[i], 0.0f);
}

// One 16x16 tile in bf16, converted from float inputs in shared memory:
// A column-major, B row-major, D = relu(A*B + 1) written column-major.
__global__ void bf16TileRelu(const float *A, const float *B, float *D) {
  __shared__ __nv_bfloat16 sA[256], sB[256];
  for (int i = threadIdx.x; i < 256; i += 32) {
    sA[i] = __float2bfloat16(A[i]);
    sB[i] = __float2bfloat16(B[i]);
  }
  __syncwarp();
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::col_major> aFrag;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> bFrag;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::fill_fragment(acc, 1.0f);
  wmma::load_matrix_sync(aFrag, sA, 16);
  wmma::load_matrix_sync(bFrag, sB, 16);
  wmma::mma_sync(acc, aFrag, bFrag, acc);
  reluInPlace(acc);
  wmma::store_matrix_sync(D, acc, 16, wmma::mem_col_major);
}

static float randomSmall() { return (float)(rand() % 9 - 4) / 4.0f; }

static bool close(const std::vector<float> &got, const std::vector<float> &want) {
  for (size_t i = 0; i < got.size(); i++)
    if (fabsf(got[i] - want[i]) > 1e-3f * (1.0f + fabsf(want[i]))) {
      printf("mismatch at %zu: %f vs %f\n", i, got[i], want[i]);
      return false;
    }
  return true;
}

int main() {
  const int M = 64, N = 64, K = 64;
  std::vector<float> a(M * K), bCol(K * N), bRow(K * N), c(M * N);
  for (auto &v : a) v = randomSmall();
  for (int k = 0; k < K; k++)
    for (int n = 0; n < N; n++) bRow[k * N + n] = bCol[n * K + k] = randomSmall();
  for (auto &v : c) v = randomSmall();

  std::vector<half> hA(M * K), hBCol(K * N), hBRow(K * N);
  for (int i = 0; i < M * K; i++) hA[i] = __float2half(a[i]);
  for (int i = 0; i < K * N; i++) {
    hBCol[i] = __float2half(bCol[i]);
    hBRow[i] = __float2half(bRow[i]);
  }

  half *dA, *dBCol, *dBRow;
  float *dC, *dC2;
  CHECK_CUDA(cudaMalloc(&dA, M * K * sizeof(half)));
  CHECK_CUDA(cudaMalloc(&dBCol, K * N * sizeof(half)));
  CHECK_CUDA(cudaMalloc(&dBRow, K * N * sizeof(half)));
  CHECK_CUDA(cudaMalloc(&dC, M * N * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dC2, M * N * sizeof(float)));
  CHECK_CUDA(cudaMemcpy(dA, hA.data(), M * K * sizeof(half), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(dBCol, hBCol.data(), K * N * sizeof(half), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(dBRow, hBRow.data(), K * N * sizeof(half), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(dC, c.data(), M * N * sizeof(float), cudaMemcpyHostToDevice));

  const float alpha = 2.0f, beta = -1.0f;
  dim3 block(128, 4);
  dim3 grid((M / WM * 32 + block.x - 1) / block.x, (N / WN + block.y - 1) / block.y);
  gemmNaive<<<grid, block>>>(dA, dBCol, dC, M, N, K, alpha, beta);
  gemmShared<<<dim3(N / BLOCK_TILE, M / BLOCK_TILE), 128>>>(dA, dBRow, dC2, M, N, K);
  CHECK_CUDA(cudaGetLastError());

  std::vector<float> want(M * N), want2(M * N), got(M * N), got2(M * N);
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      float s = 0.0f;
      for (int k = 0; k < K; k++) s += a[i * K + k] * bRow[k * N + j];
      want[i * N + j] = alpha * s + beta * c[i * N + j];
      want2[i * N + j] = s;
    }
  CHECK_CUDA(cudaMemcpy(got.data(), dC, M * N * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(got2.data(), dC2, M * N * sizeof(float), cudaMemcpyDeviceToHost));
  bool ok = close(got, want) && close(got2, want2);

  std::vector<float> fa(256), fb(256);
  for (int i = 0; i < 256; i++) {
    fa[i] = randomSmall();  // exact in bf16
    fb[i] = randomSmall();
  }
  float *dTA, *dTB, *dD;
  CHECK_CUDA(cudaMalloc(&dTA, 256 * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dTB, 256 * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dD, 256 * sizeof(float)));
  CHECK_CUDA(cudaMemcpy(dTA, fa.data(), 256 * sizeof(float), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(dTB, fb.data(), 256 * sizeof(float), cudaMemcpyHostToDevice));
  bf16TileRelu<<<1, 32>>>(dTA, dTB, dD);
  std::vector<float> d(256), wantD(256);
  CHECK_CUDA(cudaMemcpy(d.data(), dD, 256 * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < 16; i++)
    for (int j = 0; j < 16; j++) {
      float s = 1.0f;
      for (int k = 0; k < 16; k++) s += fa[k * 16 + i] * fb[k * 16 + j];
      wantD[j * 16 + i] = s > 0.0f ? s : 0.0f;
    }
  ok = ok && close(d, wantD);

  printf("%s\n", ok ? "PASSED" : "FAILED");
  cudaFree(dA); cudaFree(dBCol); cudaFree(dBRow); cudaFree(dC); cudaFree(dC2);
  cudaFree(dTA); cudaFree(dTB); cudaFree(dD);
  return ok ? 0 : 1;
}
