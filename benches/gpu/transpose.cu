// out = in^T for a rows x cols float matrix, through a 32 x 33 shared tile
// (the padding column keeps the column reads free of bank conflicts).
// Blocks of 32 x 8 threads; each thread moves four elements each way.
#define TILE 32
#define ROWS_PER_PASS 8

extern "C" __global__ void transpose(const float *__restrict__ in, float *__restrict__ out,
                                     int rows, int cols) {
  __shared__ float tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x; // column of `in`
  int y = blockIdx.y * TILE + threadIdx.y; // row of `in`
  for (int j = 0; j < TILE; j += ROWS_PER_PASS)
    if (x < cols && y + j < rows)
      tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x; // column of `out`
  y = blockIdx.x * TILE + threadIdx.y; // row of `out`
  for (int j = 0; j < TILE; j += ROWS_PER_PASS)
    if (x < rows && y + j < cols)
      out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}
