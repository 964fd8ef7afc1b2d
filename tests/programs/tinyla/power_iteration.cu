// Power iteration for the largest eigenvalue of a symmetric matrix, built
// on a header-only library (tinyla) found with -I: y = A x, then
// x = y / |y|, on the GPU through the library's launch helpers; the CPU
// reference runs the same iteration over host threads (std::thread) and
// an OpenMP loop where the compiler has OpenMP.
//
// nvcc-flags: -I tests/programs/tinyla/include
// nvcc-flags: -I tests/programs/tinyla/include -Xcompiler -fopenmp

#include <cmath>
#include <cstdio>
#include <thread>
#include <vector>

#include <cuda_runtime.h>

#include <tinyla/kernels.cuh>

#define TLA_CHECK(call)                                                          \
  do {                                                                           \
    cudaError_t status_ = (call);                                                \
    if (status_ != cudaSuccess) {                                                \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(status_)); \
      return 1;                                                                  \
    }                                                                            \
  } while (0)

template <typename T>
static void hostGemv(int n, const std::vector<T> &A, const std::vector<T> &x, std::vector<T> &y) {
  const unsigned workers = std::max(1u, std::min(4u, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (unsigned w = 0; w < workers; ++w)
    pool.emplace_back([&, w] {
      for (int r = int(w); r < n; r += int(workers)) {
        T acc = 0;
        for (int c = 0; c < n; ++c) acc = tla::fma_(A[size_t(r) * n + c], x[c], acc);
        y[r] = acc;
      }
    });
  for (auto &t : pool) t.join();
}

template <typename T>
static int run(int n, int iterations, double tolerance) {
  std::vector<T> A(size_t(n) * n), x(n, T(1) / tla::sqrt_(T(n)));
  // Symmetric, diagonally heavy: a clear largest eigenvalue.
#pragma omp parallel for
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < n; ++c) A[size_t(r) * n + c] = r == c ? T(n - r) : T(1) / T(1 + r + c);

  T *dA, *dx, *dy, *dnorm;
  TLA_CHECK(cudaMalloc(&dA, sizeof(T) * n * n));
  TLA_CHECK(cudaMalloc(&dx, sizeof(T) * n));
  TLA_CHECK(cudaMalloc(&dy, sizeof(T) * n));
  TLA_CHECK(cudaMalloc(&dnorm, sizeof(T)));
  TLA_CHECK(cudaMemcpy(dA, A.data(), sizeof(T) * n * n, cudaMemcpyHostToDevice));
  TLA_CHECK(cudaMemcpy(dx, x.data(), sizeof(T) * n, cudaMemcpyHostToDevice));

  using Blas = tla::Blas<T>;
  T lambda = 0;
  std::vector<T> hx = x, hy(n);
  T hostLambda = 0;
  for (int it = 0; it < iterations; ++it) {
    Blas::gemv(tla::Trans::No, n, n, T(1), dA, dx, T(0), dy);
    TLA_CHECK(cudaMemset(dnorm, 0, sizeof(T)));
    Blas::sumSquares(n, dy, dnorm);
    T norm2;
    TLA_CHECK(cudaMemcpy(&norm2, dnorm, sizeof(T), cudaMemcpyDeviceToHost));
    lambda = tla::sqrt_(norm2);
    Blas::axpby(n, T(1) / lambda, dy, T(0), dx);

    hostGemv(n, A, hx, hy);
    T h2 = 0;
    for (T v : hy) h2 += v * v;
    hostLambda = tla::sqrt_(h2);
    for (int i = 0; i < n; ++i) hx[i] = hy[i] / hostLambda;
  }
  // A symmetric: A^T x must equal A x.
  Blas::gemv(tla::Trans::Yes, n, n, T(1), dA, dx, T(0), dy);
  std::vector<T> aty(n);
  TLA_CHECK(cudaMemcpy(aty.data(), dy, sizeof(T) * n, cudaMemcpyDeviceToHost));
  TLA_CHECK(cudaMemcpy(x.data(), dx, sizeof(T) * n, cudaMemcpyDeviceToHost));
  TLA_CHECK(cudaFree(dA));
  TLA_CHECK(cudaFree(dx));
  TLA_CHECK(cudaFree(dy));
  TLA_CHECK(cudaFree(dnorm));

  hostGemv(n, A, x, hy);
  int bad = std::fabs(double(lambda - hostLambda)) > tolerance * double(hostLambda);
  for (int i = 0; i < n; ++i) bad += std::fabs(double(aty[i] - hy[i])) > tolerance * double(hostLambda);
  std::printf("%s: lambda %.6f (host %.6f), %d bad\n", sizeof(T) == 4 ? "float" : "double", double(lambda),
              double(hostLambda), bad);
  return bad;
}

int main() {
  int bad = run<float>(300, 20, 1e-4) + run<double>(257, 25, 1e-10);
  std::puts(bad ? "FAIL" : "PASS");
  return bad ? 1 : 0;
}
