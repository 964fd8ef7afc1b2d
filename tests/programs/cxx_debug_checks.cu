// A sparse-matrix assembly homework with its debugging aids left in, as
// students hand it in: device printf reporting progress and suspicious
// values, assert() on index invariants (compiled out with -DNDEBUG), a
// bounds-checked matrix view class, default arguments on device helpers,
// and clock64() to time the assembly loop per block.

#include <cassert>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#define gpuErrchk(ans) gpuAssert((ans), __FILE__, __LINE__)
inline void gpuAssert(cudaError_t code, const char *file, int line, bool abort = true) {
  if (code != cudaSuccess) {
    fprintf(stderr, "GPUassert: %s %s %d\n", cudaGetErrorString(code), file, line);
    if (abort) exit(code);
  }
}

// A dense row-major view that checks its indices in debug builds.
class MatrixView {
 public:
  __host__ __device__ MatrixView(float *data, int rows, int cols) : data_(data), rows_(rows), cols_(cols) {}
  __host__ __device__ float &operator()(int r, int c) {
    assert(r >= 0 && r < rows_ && c >= 0 && c < cols_);
    return data_[r * cols_ + c];
  }
  __host__ __device__ int rows() const { return rows_; }
  __host__ __device__ int cols() const { return cols_; }

 private:
  float *data_;
  int rows_, cols_;
};

// Stiffness of the spring between two nodes; `k` defaults to unit stiffness.
__device__ float springStiffness(float length, float k = 1.0f, float minLength = 1e-6f) {
  if (length < minLength) {
    printf("warning: degenerate element of length %g\n", length);
    length = minLength;
  }
  return k / length;
}

// One thread per element (a spring between nodes a and b): scatter its 2x2
// stiffness block into the global matrix with atomics.
__global__ void assembleStiffness(const int2 *elements, const float *nodeX, int numElements,
                                  MatrixView K, long long *cycles, bool verbose = false) {
  long long start = clock64();
  int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e < numElements) {
    int2 ab = elements[e];
    assert(ab.x != ab.y && "an element joins two distinct nodes");
    float k = springStiffness(fabsf(nodeX[ab.y] - nodeX[ab.x]));
    atomicAdd(&K(ab.x, ab.x), k);
    atomicAdd(&K(ab.y, ab.y), k);
    atomicAdd(&K(ab.x, ab.y), -k);
    atomicAdd(&K(ab.y, ab.x), -k);
    if (verbose && e % 64 == 0) printf("element %d: nodes (%d, %d), k = %f\n", e, ab.x, ab.y, k);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    cycles[blockIdx.x] = clock64() - start;
    if (blockIdx.x == 0) printf("block 0 of %d done in %lld cycles\n", gridDim.x, cycles[0]);
  }
}

// Each row of a stiffness matrix sums to zero: report rows that do not.
__global__ void checkRowSums(MatrixView K, int *badRows, float tolerance = 1e-3f) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= K.rows()) return;
  float sum = 0.0f;
  for (int c = 0; c < K.cols(); ++c) sum += K(r, c);
  if (fabsf(sum) > tolerance) {
    printf("row %d sums to %f\n", r, sum);
    atomicAdd(badRows, 1);
  }
}

int main(int argc, char **argv) {
  const int numNodes = 257, numElements = numNodes - 1;
  bool verbose = argc > 1;
  std::vector<float> x(numNodes);
  std::vector<int2> elements(numElements);
  for (int i = 0; i < numNodes; ++i) x[i] = i * 0.5f + 0.01f * (i % 7);
  for (int e = 0; e < numElements; ++e) elements[e] = make_int2(e, e + 1);

  float *dX, *dK;
  int2 *dElements;
  int *dBad;
  long long *dCycles;
  const int threads = 128, blocks = (numElements + threads - 1) / threads;
  gpuErrchk(cudaMalloc(&dX, numNodes * sizeof(float)));
  gpuErrchk(cudaMalloc(&dElements, numElements * sizeof(int2)));
  gpuErrchk(cudaMalloc(&dK, size_t(numNodes) * numNodes * sizeof(float)));
  gpuErrchk(cudaMalloc(&dBad, sizeof(int)));
  gpuErrchk(cudaMalloc(&dCycles, blocks * sizeof(long long)));
  gpuErrchk(cudaMemcpy(dX, x.data(), numNodes * sizeof(float), cudaMemcpyHostToDevice));
  gpuErrchk(cudaMemcpy(dElements, elements.data(), numElements * sizeof(int2), cudaMemcpyHostToDevice));
  gpuErrchk(cudaMemset(dK, 0, size_t(numNodes) * numNodes * sizeof(float)));
  gpuErrchk(cudaMemset(dBad, 0, sizeof(int)));

  MatrixView K(dK, numNodes, numNodes);
  assembleStiffness<<<blocks, threads>>>(dElements, dX, numElements, K, dCycles, verbose);
  gpuErrchk(cudaPeekAtLastError());
  checkRowSums<<<(numNodes + 127) / 128, 128>>>(K, dBad);
  gpuErrchk(cudaPeekAtLastError());
  gpuErrchk(cudaDeviceSynchronize());

  int bad = 0;
  std::vector<long long> cycles(blocks);
  gpuErrchk(cudaMemcpy(&bad, dBad, sizeof(int), cudaMemcpyDeviceToHost));
  gpuErrchk(cudaMemcpy(cycles.data(), dCycles, blocks * sizeof(long long), cudaMemcpyDeviceToHost));
  long long worst = 0;
  for (long long c : cycles) worst = c > worst ? c : worst;
  printf("%d bad rows; slowest block took %lld cycles\n", bad, worst);

  cudaFree(dX);
  cudaFree(dElements);
  cudaFree(dK);
  cudaFree(dBad);
  cudaFree(dCycles);
  return bad == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
