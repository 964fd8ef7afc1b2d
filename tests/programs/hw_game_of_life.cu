// Assignment: Conway's Game of Life on a torus (wrap-around edges).
// One generation per launch, ping-ponging between two boards; the board
// is stored as one byte per cell. A glider must come back to its start
// after 4 * SIZE generations, which is the self-check; a random soup is
// also stepped and compared with a CPU implementation.

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SIZE 64
#define BLOCK 16
#define GENERATIONS (4 * SIZE)

#define CHECK_CUDA(call)                                                         \
  {                                                                              \
    cudaError_t e = call;                                                        \
    if (e != cudaSuccess) {                                                      \
      printf("cuda error '%s' in %s line %d\n", cudaGetErrorString(e), __FILE__, __LINE__); \
      exit(1);                                                                   \
    }                                                                            \
  }

typedef unsigned char cell;

__device__ __host__ int wrap(int v, int n) { return (v + n) % n; }

__global__ void lifeStep(const cell *board, cell *next, int n) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= n || y >= n) return;
  int alive = 0;
  for (int dy = -1; dy <= 1; dy++)
    for (int dx = -1; dx <= 1; dx++)
      if (dx || dy) alive += board[wrap(y + dy, n) * n + wrap(x + dx, n)];
  cell me = board[y * n + x];
  next[y * n + x] = (alive == 3 || (alive == 2 && me)) ? 1 : 0;
}

void lifeStepCPU(const cell *board, cell *next, int n) {
  for (int y = 0; y < n; y++)
    for (int x = 0; x < n; x++) {
      int alive = 0;
      for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++)
          if (dx || dy) alive += board[wrap(y + dy, n) * n + wrap(x + dx, n)];
      next[y * n + x] = (alive == 3 || (alive == 2 && board[y * n + x])) ? 1 : 0;
    }
}

int runGenerations(cell *h_board, int gens) {
  cell *d_a, *d_b;
  size_t bytes = SIZE * SIZE;
  CHECK_CUDA(cudaMalloc(&d_a, bytes));
  CHECK_CUDA(cudaMalloc(&d_b, bytes));
  CHECK_CUDA(cudaMemcpy(d_a, h_board, bytes, cudaMemcpyHostToDevice));
  dim3 block(BLOCK, BLOCK);
  dim3 grid((SIZE + BLOCK - 1) / BLOCK, (SIZE + BLOCK - 1) / BLOCK);
  for (int g = 0; g < gens; g++) {
    lifeStep<<<grid, block>>>(d_a, d_b, SIZE);
    cell *t = d_a;
    d_a = d_b;
    d_b = t;
  }
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaMemcpy(h_board, d_a, bytes, cudaMemcpyDeviceToHost));
  cudaFree(d_a);
  cudaFree(d_b);
  return 0;
}

int main() {
  static cell board[SIZE * SIZE], start[SIZE * SIZE];
  memset(board, 0, sizeof(board));
  // glider
  board[1 * SIZE + 2] = 1;
  board[2 * SIZE + 3] = 1;
  board[3 * SIZE + 1] = board[3 * SIZE + 2] = board[3 * SIZE + 3] = 1;
  memcpy(start, board, sizeof(board));

  runGenerations(board, GENERATIONS);
  int gliderOk = memcmp(board, start, sizeof(board)) == 0;
  printf("glider after %d generations: %s\n", GENERATIONS, gliderOk ? "back home" : "lost");

  // random soup vs CPU
  static cell soup[SIZE * SIZE], cpu[SIZE * SIZE], tmp[SIZE * SIZE];
  srand(1234);
  for (int i = 0; i < SIZE * SIZE; i++) soup[i] = (rand() % 3 == 0);
  memcpy(cpu, soup, sizeof(soup));
  for (int g = 0; g < 50; g++) {
    lifeStepCPU(cpu, tmp, SIZE);
    memcpy(cpu, tmp, sizeof(tmp));
  }
  runGenerations(soup, 50);
  int soupOk = memcmp(soup, cpu, sizeof(cpu)) == 0;
  printf("soup after 50 generations: %s\n", soupOk ? "matches CPU" : "differs from CPU");
  return gliderOk && soupOk ? 0 : 1;
}
