/* Speckle-reducing anisotropic diffusion, benchmark-suite style: a C
   driver with getopt options, an optional input image read with stdio
   (random data otherwise), an output file, gettimeofday timing and goto
   cleanup; the kernels come from an included .cu file.

   usage: srad [-r rows] [-c cols] [-i iterations] [-l lambda]
               [-f input.txt] [-o output.txt] */
// nvcc-flags: -I tests/programs/srad
// nvcc-flags: -I tests/programs/srad -DRD_FLOAT_DOUBLE

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <unistd.h>
#include <sys/time.h>
#include <cuda.h>

#include "srad_kernel.cu"

static double wall_seconds(void)
{
  struct timeval tv;
  gettimeofday(&tv, NULL);
  return tv.tv_sec + tv.tv_usec * 1e-6;
}

static void usage(const char *argv0)
{
  fprintf(stderr, "usage: %s [-r rows] [-c cols] [-i iter] [-l lambda] "
                  "[-f input] [-o output]\n", argv0);
}

int main(int argc, char *argv[])
{
  int rows = 256, cols = 256, niter = 10, opt, i, status = EXIT_FAILURE;
  real_t lambda = 0.5;
  const char *in_path = NULL, *out_path = NULL;
  real_t *J = NULL, *dJ = NULL, *dC = NULL, *dN = NULL, *dS = NULL, *dW = NULL, *dE = NULL;
  size_t bytes;
  FILE *fp = NULL;
  double t0, t1;

  while ((opt = getopt(argc, argv, "r:c:i:l:f:o:h")) != -1) {
    switch (opt) {
    case 'r': rows = atoi(optarg); break;
    case 'c': cols = atoi(optarg); break;
    case 'i': niter = atoi(optarg); break;
    case 'l': lambda = (real_t)atof(optarg); break;
    case 'f': in_path = optarg; break;
    case 'o': out_path = optarg; break;
    default: usage(argv[0]); return EXIT_FAILURE;
    }
  }
  if (rows % BLOCK_SIZE || cols % BLOCK_SIZE) {
    fprintf(stderr, "rows and cols must be multiples of %d\n", BLOCK_SIZE);
    return EXIT_FAILURE;
  }

  bytes = sizeof(real_t) * rows * cols;
  J = (real_t *)malloc(bytes);
  if (!J) goto cleanup;
  if (in_path) {
    fp = fopen(in_path, "r");
    if (!fp) { perror(in_path); goto cleanup; }
    for (i = 0; i < rows * cols; i++) {
      double v;
      if (fscanf(fp, "%lf", &v) != 1) { fprintf(stderr, "short input\n"); goto cleanup; }
      J[i] = (real_t)exp(v / 255.0);
    }
    fclose(fp);
    fp = NULL;
  } else {
    srand(7);
    for (i = 0; i < rows * cols; i++) J[i] = (real_t)exp(rand() / (double)RAND_MAX);
  }

  if (cudaMalloc((void **)&dJ, bytes) != cudaSuccess) goto cleanup;
  cudaMalloc((void **)&dC, bytes);
  cudaMalloc((void **)&dN, bytes);
  cudaMalloc((void **)&dS, bytes);
  cudaMalloc((void **)&dW, bytes);
  cudaMalloc((void **)&dE, bytes);
  cudaMemcpy(dJ, J, bytes, cudaMemcpyHostToDevice);

  t0 = wall_seconds();
  {
    dim3 threads(BLOCK_SIZE, BLOCK_SIZE);
    dim3 grid(cols / BLOCK_SIZE, rows / BLOCK_SIZE);
    for (i = 0; i < niter; i++) {
      real_t sum = 0, sum2 = 0, mean, var, q0sqr;
      int k;
      cudaMemcpy(J, dJ, bytes, cudaMemcpyDeviceToHost);
      for (k = 0; k < rows * cols; k++) { sum += J[k]; sum2 += J[k] * J[k]; }
      mean = sum / (rows * cols);
      var = sum2 / (rows * cols) - mean * mean;
      q0sqr = var / (mean * mean);
      srad_cuda_1<<<grid, threads>>>(dE, dW, dN, dS, dJ, dC, cols, rows, q0sqr);
      srad_cuda_2<<<grid, threads>>>(dE, dW, dN, dS, dJ, dC, cols, rows, lambda);
    }
    cudaDeviceSynchronize();
  }
  t1 = wall_seconds();
  cudaMemcpy(J, dJ, bytes, cudaMemcpyDeviceToHost);
  printf("srad %dx%d, %d iterations: %.3f s\n", rows, cols, niter, t1 - t0);

  if (out_path) {
    fp = fopen(out_path, "w");
    if (!fp) { perror(out_path); goto cleanup; }
    for (i = 0; i < rows * cols; i++)
      fprintf(fp, "%g%c", (double)J[i], (i + 1) % cols ? ' ' : '\n');
  }
  status = EXIT_SUCCESS;

cleanup:
  if (fp) fclose(fp);
  cudaFree(dJ); cudaFree(dC); cudaFree(dN); cudaFree(dS); cudaFree(dW); cudaFree(dE);
  free(J);
  return status;
}
