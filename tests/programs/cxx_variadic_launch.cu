// Kernel templates launched through variadic host helpers, the way
// utility headers of CUDA projects wrap `<<<...>>>`: each helper forwards
// its argument pack into the launch (by value, through std::forward, after
// leading ordinary parameters, into two launches, and through a timing
// helper that forwards the pack to another helper). The instances nvcc
// makes are exactly those the packs' types deduce. main allocates, runs
// every helper, copies the results back and checks them on the host.

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

#define CUDA_CHECK(call)                                                      \
  do {                                                                        \
    cudaError_t err_ = (call);                                                \
    if (err_ != cudaSuccess) {                                                \
      fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(err_),   \
              __FILE__, __LINE__);                                            \
      exit(EXIT_FAILURE);                                                     \
    }                                                                         \
  } while (0)

constexpr int kBlock = 256;

template <typename T>
__global__ void axpy(T *y, const T *x, T a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

template <typename T>
__global__ void fillRamp(T *p, T start, T step, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = start + step * (T)i;
}

template <typename T, typename U>
__global__ void convert(T *out, const U *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = (T)in[i];
}

template <typename T>
__global__ void clampTo(T *p, T lo, T hi, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = p[i] < lo ? lo : (p[i] > hi ? hi : p[i]);
}

static unsigned blocksFor(int n) { return (n + kBlock - 1) / kBlock; }

// Forwards everything but the count, which also sizes the grid.
template <typename... Args>
void launchAxpy(int n, Args &&...args) {
  axpy<<<blocksFor(n), kBlock>>>(std::forward<Args>(args)..., n);
  CUDA_CHECK(cudaGetLastError());
}

// A leading ordinary parameter before the pack.
template <typename T, typename... Rest>
void launchFill(T *p, int n, Rest... rest) {
  fillRamp<<<blocksFor(n), kBlock>>>(p, rest..., n);
  CUDA_CHECK(cudaGetLastError());
}

// Two launches from one pack.
template <typename T, typename U, typename... Bounds>
void convertClamped(T *out, const U *in, int n, Bounds... bounds) {
  convert<<<blocksFor(n), kBlock>>>(out, in, n);
  clampTo<<<blocksFor(n), kBlock>>>(out, bounds..., n);
  CUDA_CHECK(cudaGetLastError());
}

// Times any helper call: the pack is forwarded again.
template <typename... Args>
float timedFill(const char *what, Args... args) {
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  CUDA_CHECK(cudaEventRecord(start));
  launchFill(args...);
  CUDA_CHECK(cudaEventRecord(stop));
  CUDA_CHECK(cudaEventSynchronize(stop));
  float ms = 0.0f;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  printf("%-12s %8.3f ms\n", what, ms);
  CUDA_CHECK(cudaEventDestroy(start));
  CUDA_CHECK(cudaEventDestroy(stop));
  return ms;
}

template <typename T>
static int countMismatches(const std::vector<T> &got, const std::vector<T> &want, double tol) {
  int bad = 0;
  for (size_t i = 0; i < got.size(); ++i)
    if (std::fabs((double)got[i] - (double)want[i]) > tol) ++bad;
  return bad;
}

int main() {
  const int n = 5000;
  float *d_x = nullptr, *d_y = nullptr;
  double *d_xd = nullptr, *d_yd = nullptr;
  int *d_i = nullptr;
  short *d_s = nullptr;
  CUDA_CHECK(cudaMalloc(&d_x, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_y, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_xd, n * sizeof(double)));
  CUDA_CHECK(cudaMalloc(&d_yd, n * sizeof(double)));
  CUDA_CHECK(cudaMalloc(&d_i, n * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&d_s, n * sizeof(short)));

  timedFill("fill float", d_x, n, 1.0f, 0.5f);
  timedFill("fill float", d_y, n, -2.0f, 0.25f);
  launchFill(d_xd, n, 0.0, 0.125);
  launchFill(d_yd, n, 1.0, -0.5);
  launchFill(d_i, n, 7, 3);
  launchAxpy(n, d_y, d_x, 2.0f);
  launchAxpy(n, d_yd, d_xd, 0.5);
  convertClamped(d_s, d_y, n, (short)-1000, (short)1000);
  CUDA_CHECK(cudaDeviceSynchronize());

  std::vector<float> y(n);
  std::vector<double> yd(n);
  std::vector<int> ints(n);
  std::vector<short> s(n);
  CUDA_CHECK(cudaMemcpy(y.data(), d_y, n * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(yd.data(), d_yd, n * sizeof(double), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(ints.data(), d_i, n * sizeof(int), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(s.data(), d_s, n * sizeof(short), cudaMemcpyDeviceToHost));

  std::vector<float> wantY(n);
  std::vector<double> wantYd(n);
  std::vector<int> wantI(n);
  std::vector<short> wantS(n);
  for (int i = 0; i < n; ++i) {
    wantY[i] = 2.0f * (1.0f + 0.5f * i) + (-2.0f + 0.25f * i);
    wantYd[i] = 0.5 * (0.125 * i) + (1.0 - 0.5 * i);
    wantI[i] = 7 + 3 * i;
    float c = wantY[i] < -1000.0f ? -1000.0f : (wantY[i] > 1000.0f ? 1000.0f : wantY[i]);
    wantS[i] = (short)c;
  }
  int bad = countMismatches(y, wantY, 1e-3) + countMismatches(yd, wantYd, 1e-9) +
            countMismatches(ints, wantI, 0.0) + countMismatches(s, wantS, 1.0);
  printf("%s (%d mismatches)\n", bad == 0 ? "PASSED" : "FAILED", bad);

  CUDA_CHECK(cudaFree(d_x));
  CUDA_CHECK(cudaFree(d_y));
  CUDA_CHECK(cudaFree(d_xd));
  CUDA_CHECK(cudaFree(d_yd));
  CUDA_CHECK(cudaFree(d_i));
  CUDA_CHECK(cudaFree(d_s));
  return bad == 0 ? 0 : 1;
}
