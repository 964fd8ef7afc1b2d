// Sums two float vectors on the GPU and checks the sum on the host.
// Sample-style program: device selection, checked allocations, a launch
// rounded up to whole blocks, a host-side comparison and a PASSED/FAILED
// verdict.
//
// Build: nvcc -I tests/programs/common vector_add.cu
//
// nvcc-flags: -I tests/programs/common

#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>
#include <helper_cuda.h>

// out[k] = lhs[k] + rhs[k] for k < count; threads past the end do nothing.
__global__ void vectorAdd(const float *lhs, const float *rhs, float *out,
                          int count) {
  int k = blockDim.x * blockIdx.x + threadIdx.x;
  if (k < count) {
    out[k] = lhs[k] + rhs[k];
  }
}

int main(int argc, char **argv) {
  int count = 98765;
  if (argc > 1 && atoi(argv[1]) > 0) count = atoi(argv[1]);
  const size_t bytes = static_cast<size_t>(count) * sizeof(float);
  printf("vectorAdd: %d floats (%zu bytes per vector)\n", count, bytes);

  findCudaDevice();

  float *hostLhs = static_cast<float *>(malloc(bytes));
  float *hostRhs = static_cast<float *>(malloc(bytes));
  float *hostOut = static_cast<float *>(malloc(bytes));
  if (!hostLhs || !hostRhs || !hostOut) {
    fprintf(stderr, "vectorAdd: out of host memory\n");
    return EXIT_FAILURE;
  }
  fillRandom(hostLhs, count, 17u);
  fillRandom(hostRhs, count, 29u, -1.0f, 1.0f);

  float *devLhs = nullptr, *devRhs = nullptr, *devOut = nullptr;
  checkCudaErrors(cudaMalloc(&devLhs, bytes));
  checkCudaErrors(cudaMalloc(&devRhs, bytes));
  checkCudaErrors(cudaMalloc(&devOut, bytes));
  checkCudaErrors(cudaMemcpy(devLhs, hostLhs, bytes, cudaMemcpyHostToDevice));
  checkCudaErrors(cudaMemcpy(devRhs, hostRhs, bytes, cudaMemcpyHostToDevice));
  checkCudaErrors(cudaMemset(devOut, 0xff, bytes));

  const int threads = 256;
  const int blocks = iDivUp(count, threads);
  printf("launching %d blocks x %d threads\n", blocks, threads);
  vectorAdd<<<blocks, threads>>>(devLhs, devRhs, devOut, count);
  getLastCudaError("vectorAdd launch");
  checkCudaErrors(cudaMemcpy(hostOut, devOut, bytes, cudaMemcpyDeviceToHost));

  int mismatches = 0;
  for (int k = 0; k < count; ++k) {
    float expected = hostLhs[k] + hostRhs[k];
    if (fabsf(hostOut[k] - expected) > 1e-6f) {
      if (mismatches < 5)
        fprintf(stderr, "  element %d: got %f, want %f\n", k, hostOut[k], expected);
      ++mismatches;
    }
  }
  printf("%d mismatching elements\n", mismatches);

  checkCudaErrors(cudaFree(devLhs));
  checkCudaErrors(cudaFree(devRhs));
  checkCudaErrors(cudaFree(devOut));
  free(hostLhs);
  free(hostRhs);
  free(hostOut);
  return reportResult("vectorAdd", mismatches == 0);
}
