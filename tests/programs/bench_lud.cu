// LU decomposition (Doolittle, no pivoting) of a dense square matrix, in
// blocks, in the style of a classic GPU benchmark suite: a tile size chosen
// by -DRD_WG_SIZE_0_0 (default 16), three kernels per step along the
// diagonal (factor the diagonal tile, solve the perimeter tiles, update the
// interior), command-line options with getopt, gettimeofday timing and an
// optional verification that multiplies L and U back together.
//
//   ./lud -s 1024 -v
//
// nvcc-flags:
// nvcc-flags: -DRD_WG_SIZE_0_0=32

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include <cuda.h>
#include <cuda_runtime.h>

#ifdef RD_WG_SIZE_0_0
#define BLOCK_SIZE RD_WG_SIZE_0_0
#elif defined(RD_WG_SIZE_0)
#define BLOCK_SIZE RD_WG_SIZE_0
#elif defined(RD_WG_SIZE)
#define BLOCK_SIZE RD_WG_SIZE
#else
#define BLOCK_SIZE 16
#endif

#define AA(i, j) m[(i) * matrix_dim + (j)]

typedef enum _FUNC_RETURN_CODE { RET_SUCCESS, RET_FAILURE } func_ret_t;

static int do_verify = 0;

static struct option long_options[] = {
    {"input", 1, NULL, 'i'}, {"size", 1, NULL, 's'}, {"verify", 0, NULL, 'v'}, {0, 0, 0, 0}};

// ---------------------------------------------------------------- kernels

// Factors the tile at (offset, offset) in place: unit lower L below the
// diagonal, U on and above it. One thread per row of the tile.
__global__ void lud_diagonal(float *m, int matrix_dim, int offset) {
  __shared__ float shadow[BLOCK_SIZE][BLOCK_SIZE];
  int tx = threadIdx.x;

  int array_offset = offset * matrix_dim + offset;
  for (int i = 0; i < BLOCK_SIZE; i++) {
    shadow[i][tx] = m[array_offset + tx];
    array_offset += matrix_dim;
  }
  __syncthreads();

  for (int k = 0; k < BLOCK_SIZE - 1; k++) {
    if (tx > k) {
      shadow[tx][k] /= shadow[k][k];
    }
    __syncthreads();
    if (tx > k) {
      float lik = shadow[tx][k];
      for (int j = k + 1; j < BLOCK_SIZE; j++) {
        shadow[tx][j] -= lik * shadow[k][j];
      }
    }
    __syncthreads();
  }

  array_offset = offset * matrix_dim + offset;
  for (int i = 0; i < BLOCK_SIZE; i++) {
    m[array_offset + tx] = shadow[i][tx];
    array_offset += matrix_dim;
  }
}

// Block bx handles the tile right of the diagonal tile in the block row
// (U part: solve L_dd * U = A) and the tile below it in the block column
// (L part: solve L * U_dd = A). Threads [0, BLOCK_SIZE) take the row tile's
// columns, threads [BLOCK_SIZE, 2 * BLOCK_SIZE) the column tile's rows.
__global__ void lud_perimeter(float *m, int matrix_dim, int offset) {
  __shared__ float dia[BLOCK_SIZE][BLOCK_SIZE];
  __shared__ float peri_row[BLOCK_SIZE][BLOCK_SIZE];
  __shared__ float peri_col[BLOCK_SIZE][BLOCK_SIZE];

  int bx = blockIdx.x;
  int tx = threadIdx.x;
  int idx;
  int array_offset;

  if (tx < BLOCK_SIZE) {
    idx = tx;
    array_offset = offset * matrix_dim + offset;
    for (int i = 0; i < BLOCK_SIZE / 2; i++) {
      dia[i][idx] = m[array_offset + idx];
      array_offset += matrix_dim;
    }
    array_offset = offset * matrix_dim + offset;
    for (int i = 0; i < BLOCK_SIZE; i++) {
      peri_row[i][idx] = m[array_offset + (bx + 1) * BLOCK_SIZE + idx];
      array_offset += matrix_dim;
    }
  } else {
    idx = tx - BLOCK_SIZE;
    array_offset = (offset + BLOCK_SIZE / 2) * matrix_dim + offset;
    for (int i = BLOCK_SIZE / 2; i < BLOCK_SIZE; i++) {
      dia[i][idx] = m[array_offset + idx];
      array_offset += matrix_dim;
    }
    array_offset = (offset + (bx + 1) * BLOCK_SIZE) * matrix_dim + offset;
    for (int i = 0; i < BLOCK_SIZE; i++) {
      peri_col[i][idx] = m[array_offset + idx];
      array_offset += matrix_dim;
    }
  }
  __syncthreads();

  if (tx < BLOCK_SIZE) { // row tile: column idx by forward substitution
    idx = tx;
    for (int i = 1; i < BLOCK_SIZE; i++) {
      for (int j = 0; j < i; j++) {
        peri_row[i][idx] -= dia[i][j] * peri_row[j][idx];
      }
    }
  } else { // column tile: row idx against U_dd
    idx = tx - BLOCK_SIZE;
    for (int i = 0; i < BLOCK_SIZE; i++) {
      for (int j = 0; j < i; j++) {
        peri_col[idx][i] -= peri_col[idx][j] * dia[j][i];
      }
      peri_col[idx][i] /= dia[i][i];
    }
  }
  __syncthreads();

  if (tx < BLOCK_SIZE) {
    idx = tx;
    array_offset = offset * matrix_dim + offset;
    for (int i = 0; i < BLOCK_SIZE; i++) {
      m[array_offset + (bx + 1) * BLOCK_SIZE + idx] = peri_row[i][idx];
      array_offset += matrix_dim;
    }
  } else {
    idx = tx - BLOCK_SIZE;
    array_offset = (offset + (bx + 1) * BLOCK_SIZE) * matrix_dim + offset;
    for (int i = 0; i < BLOCK_SIZE; i++) {
      m[array_offset + idx] = peri_col[i][idx];
      array_offset += matrix_dim;
    }
  }
}

// Interior tiles: A -= L_col * U_row.
__global__ void lud_internal(float *m, int matrix_dim, int offset) {
  __shared__ float peri_row[BLOCK_SIZE][BLOCK_SIZE];
  __shared__ float peri_col[BLOCK_SIZE][BLOCK_SIZE];

  int bx = blockIdx.x;
  int by = blockIdx.y;
  int tx = threadIdx.x;
  int ty = threadIdx.y;

  int global_row_id = offset + (by + 1) * BLOCK_SIZE;
  int global_col_id = offset + (bx + 1) * BLOCK_SIZE;

  peri_row[ty][tx] = m[(offset + ty) * matrix_dim + global_col_id + tx];
  peri_col[ty][tx] = m[(global_row_id + ty) * matrix_dim + offset + tx];
  __syncthreads();

  float sum = 0;
  for (int i = 0; i < BLOCK_SIZE; i++) {
    sum += peri_col[ty][i] * peri_row[i][tx];
  }
  m[(global_row_id + ty) * matrix_dim + global_col_id + tx] -= sum;
}

// ----------------------------------------------------------------- host

void lud_cuda(float *m, int matrix_dim) {
  int i = 0;
  dim3 dimBlock(BLOCK_SIZE, BLOCK_SIZE);
  for (i = 0; i < matrix_dim - BLOCK_SIZE; i += BLOCK_SIZE) {
    lud_diagonal<<<1, BLOCK_SIZE>>>(m, matrix_dim, i);
    lud_perimeter<<<(matrix_dim - i) / BLOCK_SIZE - 1, BLOCK_SIZE * 2>>>(m, matrix_dim, i);
    dim3 dimGrid((matrix_dim - i) / BLOCK_SIZE - 1, (matrix_dim - i) / BLOCK_SIZE - 1);
    lud_internal<<<dimGrid, dimBlock>>>(m, matrix_dim, i);
  }
  lud_diagonal<<<1, BLOCK_SIZE>>>(m, matrix_dim, i);
}

static double get_time_ms() {
  struct timeval tv;
  gettimeofday(&tv, NULL);
  return tv.tv_sec * 1000.0 + tv.tv_usec / 1000.0;
}

func_ret_t create_matrix(float **mp, int size) {
  float *m = (float *)malloc(sizeof(float) * size * size);
  if (m == NULL) return RET_FAILURE;
  // diagonally dominant, so no pivoting is needed
  for (int i = 0; i < size; i++) {
    for (int j = 0; j < size; j++) {
      float r = (float)((i * 131 + j * 71) % 97) / 97.0f;
      m[i * size + j] = (i == j) ? (float)size + r : r - 0.5f;
    }
  }
  *mp = m;
  return RET_SUCCESS;
}

int lud_verify(const float *m, const float *lu, int matrix_dim) {
  int errors = 0;
  for (int i = 0; i < matrix_dim; i++) {
    for (int j = 0; j < matrix_dim; j++) {
      double sum = 0;
      int kmax = i < j ? i : j;
      for (int k = 0; k <= kmax; k++) {
        double l = (k == i) ? 1.0 : lu[i * matrix_dim + k];
        sum += l * lu[k * matrix_dim + j];
      }
      double ref = m[i * matrix_dim + j];
      if (fabs(ref - sum) > 1e-3 * fabs(ref) + 1e-3) {
        if (errors < 10) printf("dismatch at (%d, %d): (o)%f (n)%f\n", i, j, ref, sum);
        errors++;
      }
    }
  }
  return errors;
}

int main(int argc, char *argv[]) {
  int matrix_dim = 512;
  int opt, option_index = 0;
  float *m, *d_m, *lu;

  printf("WG size of kernel = %d X %d\n", BLOCK_SIZE, BLOCK_SIZE);
  while ((opt = getopt_long(argc, argv, "::vs:i:", long_options, &option_index)) != -1) {
    switch (opt) {
    case 'i':
      fprintf(stderr, "reading matrices from files is not supported by this port\n");
      exit(EXIT_FAILURE);
    case 'v':
      do_verify = 1;
      break;
    case 's':
      matrix_dim = atoi(optarg);
      break;
    case '?':
      fprintf(stderr, "invalid option\n");
      break;
    default:
      fprintf(stderr, "Usage: %s [-v] [-s matrix_size]\n", argv[0]);
      exit(EXIT_FAILURE);
    }
  }
  if (matrix_dim % BLOCK_SIZE != 0) {
    fprintf(stderr, "matrix size must be a multiple of %d\n", BLOCK_SIZE);
    exit(EXIT_FAILURE);
  }
  printf("Creating matrix internally size=%d\n", matrix_dim);
  if (create_matrix(&m, matrix_dim) != RET_SUCCESS) {
    fprintf(stderr, "error creating matrix\n");
    exit(EXIT_FAILURE);
  }

  cudaMalloc((void **)&d_m, matrix_dim * matrix_dim * sizeof(float));
  double start = get_time_ms();
  cudaMemcpy(d_m, m, matrix_dim * matrix_dim * sizeof(float), cudaMemcpyHostToDevice);
  lud_cuda(d_m, matrix_dim);
  lu = (float *)malloc(matrix_dim * matrix_dim * sizeof(float));
  cudaMemcpy(lu, d_m, matrix_dim * matrix_dim * sizeof(float), cudaMemcpyDeviceToHost);
  double end = get_time_ms();
  printf("Time consumed(ms): %lf\n", end - start);

  int errors = 0;
  if (do_verify) {
    printf("After LUD\n");
    errors = lud_verify(m, lu, matrix_dim);
    printf(">>>Verify %s\n", errors == 0 ? "PASSED" : "FAILED");
  }

  cudaFree(d_m);
  free(m);
  free(lu);
  return errors == 0 ? 0 : 1;
}
