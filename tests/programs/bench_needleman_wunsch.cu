// Global sequence alignment score (Needleman-Wunsch) with a substitution
// matrix in __constant__ memory and a linear gap penalty. The
// (n+1) x (n+1) score matrix is processed in TILE x TILE tiles along
// anti-diagonals of tiles: one launch per tile diagonal, one block per
// tile, and inside a tile the threads sweep its anti-diagonals in shared
// memory. Benchmark-suite style; the CPU fills the same matrix to check.
//
// usage: bench_needleman_wunsch [length] [penalty]

#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <vector>

#include <cuda_runtime.h>

#define TILE 16
#define ALPHABET 24

#define CUDA_CHECK(ans) cudaAssert((ans), __FILE__, __LINE__)
static void cudaAssert(cudaError_t code, const char *file, int line) {
  if (code != cudaSuccess) {
    fprintf(stderr, "CUDA error: %s %s %d\n", cudaGetErrorString(code), file, line);
    exit(code);
  }
}

__constant__ signed char c_substitution[ALPHABET * ALPHABET];

__device__ __host__ inline int max3(int a, int b, int c) {
  int m = a > b ? a : b;
  return m > c ? m : c;
}

// Processes the tiles (ty, tx) with ty + tx == diagonal. score has pitch
// n + 1; row 0 and column 0 are preset by the host.
__global__ void nwTileDiagonal(int *score, const unsigned char *seqA, const unsigned char *seqB,
                               int n, int diagonal, int penalty) {
  __shared__ int cell[TILE + 1][TILE + 1];
  __shared__ unsigned char a[TILE], b[TILE];
  const int tilesPerSide = n / TILE;
  int firstTy = max(0, diagonal - (tilesPerSide - 1));
  int ty = firstTy + blockIdx.x;
  int tx = diagonal - ty;
  const int pitch = n + 1;
  const int row0 = ty * TILE, col0 = tx * TILE; // the tile's top-left neighbour corner
  const int t = threadIdx.x;

  // Top row and left column of the tile come from finished neighbours.
  cell[0][t + 1] = score[row0 * pitch + col0 + t + 1];
  cell[t + 1][0] = score[(row0 + t + 1) * pitch + col0];
  if (t == 0) cell[0][0] = score[row0 * pitch + col0];
  a[t] = seqA[row0 + t];
  b[t] = seqB[col0 + t];
  __syncthreads();

  // 2 * TILE - 1 inner anti-diagonals.
  for (int d = 0; d < 2 * TILE - 1; ++d) {
    int i = t + 1;     // row inside the tile
    int j = d - t + 1; // column inside the tile
    if (j >= 1 && j <= TILE) {
      int match = cell[i - 1][j - 1] + c_substitution[a[i - 1] * ALPHABET + b[j - 1]];
      cell[i][j] = max3(match, cell[i - 1][j] - penalty, cell[i][j - 1] - penalty);
    }
    __syncthreads();
  }
  for (int j = 1; j <= TILE; ++j) score[(row0 + t + 1) * pitch + col0 + j] = cell[t + 1][j];
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 2048;
  int penalty = argc > 2 ? atoi(argv[2]) : 10;
  if (n % TILE != 0 || n <= 0) {
    fprintf(stderr, "length must be a positive multiple of %d\n", TILE);
    return 1;
  }
  // A made-up symmetric substitution matrix: +5 on the diagonal, small
  // negative or positive elsewhere.
  signed char sub[ALPHABET * ALPHABET];
  for (int x = 0; x < ALPHABET; ++x)
    for (int y = 0; y < ALPHABET; ++y)
      sub[x * ALPHABET + y] = x == y ? 5 : (signed char)(((x + y) % 7) - 4);
  CUDA_CHECK(cudaMemcpyToSymbol(c_substitution, sub, sizeof(sub)));

  std::vector<unsigned char> seqA(n), seqB(n);
  srand(17);
  for (int i = 0; i < n; ++i) {
    seqA[i] = rand() % ALPHABET;
    seqB[i] = (rand() % 4 == 0) ? rand() % ALPHABET : seqA[i]; // related sequences
  }
  const int pitch = n + 1;
  std::vector<int> score((size_t)pitch * pitch, 0);
  for (int i = 0; i <= n; ++i) {
    score[(size_t)i * pitch] = -i * penalty;
    score[i] = -i * penalty;
  }

  int *dScore;
  unsigned char *dA, *dB;
  CUDA_CHECK(cudaMalloc(&dScore, score.size() * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&dA, n));
  CUDA_CHECK(cudaMalloc(&dB, n));
  CUDA_CHECK(cudaMemcpy(dScore, score.data(), score.size() * sizeof(int), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dA, seqA.data(), n, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dB, seqB.data(), n, cudaMemcpyHostToDevice));

  const int tiles = n / TILE;
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  cudaEventRecord(start);
  for (int diag = 0; diag < 2 * tiles - 1; ++diag) {
    int count = std::min(diag, 2 * tiles - 2 - diag) + 1;
    nwTileDiagonal<<<count, TILE>>>(dScore, dA, dB, n, diag, penalty);
  }
  cudaEventRecord(stop);
  CUDA_CHECK(cudaGetLastError());
  cudaEventSynchronize(stop);
  float ms;
  cudaEventElapsedTime(&ms, start, stop);
  std::vector<int> gpu(score.size());
  CUDA_CHECK(cudaMemcpy(gpu.data(), dScore, gpu.size() * sizeof(int), cudaMemcpyDeviceToHost));

  for (int i = 1; i <= n; ++i)
    for (int j = 1; j <= n; ++j)
      score[(size_t)i * pitch + j] =
          max3(score[(size_t)(i - 1) * pitch + j - 1] + sub[seqA[i - 1] * ALPHABET + seqB[j - 1]],
               score[(size_t)(i - 1) * pitch + j] - penalty, score[(size_t)i * pitch + j - 1] - penalty);
  size_t mismatches = 0;
  for (size_t k = 0; k < score.size(); ++k) mismatches += gpu[k] != score[k];
  printf("n = %d: alignment score %d (CPU %d), %.3f ms, %zu mismatching cells\n", n,
         gpu[(size_t)n * pitch + n], score[(size_t)n * pitch + n], ms, mismatches);
  cudaFree(dScore); cudaFree(dA); cudaFree(dB);
  printf("%s\n", mismatches == 0 ? "PASS" : "FAIL");
  return mismatches != 0;
}
