// A batched radix-2 FFT in shared memory, as signal-processing course
// projects and small FFT libraries write it before reaching for cuFFT:
//   - a `cplx` namespace of `float2` operator overloads (+, -, *, conj,
//     scaling) and a `twiddle` helper over `sincospif`;
//   - twiddle factors for the largest size precomputed on the host and
//     copied into a `__constant__` table with `cudaMemcpyToSymbol`, read
//     with a stride for smaller sizes;
//   - a kernel template over the transform size and direction
//     (`template <int N, bool Inverse>`): bit-reversal load with `__brev`,
//     log2(N) butterfly stages between `__syncthreads()`, each thread doing
//     N/2/blockDim butterflies, one transform per block;
//   - the 2-D transform of an image as row FFTs, a shared-memory tiled
//     transpose, row FFTs again;
//   - host: a direct O(N^2) DFT in `std::complex<double>` as the reference
//     and a forward-inverse round trip.

#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#define CUDA_OK(x)                                                                \
  do {                                                                            \
    cudaError_t rc = (x);                                                         \
    if (rc != cudaSuccess) {                                                      \
      fprintf(stderr, "%s failed: %s\n", #x, cudaGetErrorString(rc));             \
      exit(2);                                                                    \
    }                                                                             \
  } while (0)

namespace cplx {

__host__ __device__ inline float2 operator+(float2 a, float2 b) { return make_float2(a.x + b.x, a.y + b.y); }
__host__ __device__ inline float2 operator-(float2 a, float2 b) { return make_float2(a.x - b.x, a.y - b.y); }
__host__ __device__ inline float2 operator*(float2 a, float2 b) {
  return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}
__host__ __device__ inline float2 operator*(float2 a, float s) { return make_float2(a.x * s, a.y * s); }
__host__ __device__ inline float2 &operator*=(float2 &a, float s) { return a = a * s; }
__host__ __device__ inline float2 conj(float2 a) { return make_float2(a.x, -a.y); }

// exp(-2 pi i k / n)
__device__ inline float2 twiddle(int k, int n) {
  float s, c;
  sincospif(-2.0f * k / n, &s, &c);
  return make_float2(c, s);
}

}  // namespace cplx

using namespace cplx;

constexpr int kMaxN = 1024;
constexpr int kLog2MaxN = 10;
__constant__ float2 c_twiddles[kMaxN / 2];

template <int N>
struct Log2 {
  static constexpr int value = 1 + Log2<N / 2>::value;
};
template <>
struct Log2<1> {
  static constexpr int value = 0;
};

// One N-point transform per block over data[blockIdx.x * N ...], in place.
template <int N, bool Inverse>
__global__ void fftRows(float2 *data) {
  static_assert((N & (N - 1)) == 0 && N <= kMaxN, "N must be a power of two <= kMaxN");
  constexpr int kLog = Log2<N>::value;
  __shared__ float2 s[N];
  float2 *row = data + static_cast<size_t>(blockIdx.x) * N;

  for (int i = threadIdx.x; i < N; i += blockDim.x) {
    const unsigned rev = __brev(static_cast<unsigned>(i)) >> (32 - kLog);
    s[rev] = row[i];
  }
  __syncthreads();

  for (int half = 1; half < N; half *= 2) {
    const int stride = kMaxN / (2 * half);  // into the kMaxN-point table
    for (int b = threadIdx.x; b < N / 2; b += blockDim.x) {
      const int group = b / half, k = b % half;
      const int i = group * 2 * half + k;
      float2 w = c_twiddles[k * stride];
      if (Inverse) w = conj(w);
      const float2 t = w * s[i + half];
      const float2 u = s[i];
      s[i] = u + t;
      s[i + half] = u - t;
    }
    __syncthreads();
  }

  const float scale = Inverse ? 1.0f / N : 1.0f;
  for (int i = threadIdx.x; i < N; i += blockDim.x) row[i] = s[i] * scale;
}

// A size the table does not hold: twiddles computed on the fly.
__global__ void dftSmall(const float2 *in, float2 *out, int n) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  float2 acc = make_float2(0.f, 0.f);
  for (int j = 0; j < n; ++j) acc = acc + in[j] * twiddle((j * k) % n, n);
  out[k] = acc;
}

constexpr int kTileDim = 32;
constexpr int kBlockRows = 8;

__global__ void transposeComplex(float2 *out, const float2 *in, int width, int height) {
  __shared__ float2 tile[kTileDim][kTileDim + 1];
  int x = blockIdx.x * kTileDim + threadIdx.x;
  int y = blockIdx.y * kTileDim + threadIdx.y;
  for (int j = 0; j < kTileDim; j += kBlockRows)
    if (x < width && y + j < height) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
  __syncthreads();
  x = blockIdx.y * kTileDim + threadIdx.x;
  y = blockIdx.x * kTileDim + threadIdx.y;
  for (int j = 0; j < kTileDim; j += kBlockRows)
    if (x < height && y + j < width) out[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}

template <int N, bool Inverse>
static void fft2d(float2 *d_data, float2 *d_tmp) {
  const dim3 tgrid(N / kTileDim, N / kTileDim), tblock(kTileDim, kBlockRows);
  fftRows<N, Inverse><<<N, 128>>>(d_data);
  transposeComplex<<<tgrid, tblock>>>(d_tmp, d_data, N, N);
  fftRows<N, Inverse><<<N, 128>>>(d_tmp);
  transposeComplex<<<tgrid, tblock>>>(d_data, d_tmp, N, N);
  CUDA_OK(cudaGetLastError());
}

static std::vector<std::complex<double>> hostDft(const std::vector<float2> &x, size_t offset, int n) {
  std::vector<std::complex<double>> y(n);
  for (int k = 0; k < n; ++k) {
    std::complex<double> acc = 0;
    for (int j = 0; j < n; ++j)
      acc += std::complex<double>(x[offset + j].x, x[offset + j].y) *
             std::polar(1.0, -2.0 * M_PI * ((static_cast<long>(j) * k) % n) / n);
    y[k] = acc;
  }
  return y;
}

int main() {
  std::vector<float2> table(kMaxN / 2);
  for (int k = 0; k < kMaxN / 2; ++k)
    table[k] = make_float2(static_cast<float>(std::cos(-2 * M_PI * k / kMaxN)),
                           static_cast<float>(std::sin(-2 * M_PI * k / kMaxN)));
  CUDA_OK(cudaMemcpyToSymbol(c_twiddles, table.data(), table.size() * sizeof(float2)));
  static_assert(Log2<kMaxN>::value == kLog2MaxN, "table size");

  int failures = 0;
  // Batched 1-D, 256 points x 16.
  {
    const int n = 256, batch = 16;
    std::vector<float2> x(n * batch);
    for (size_t i = 0; i < x.size(); ++i)
      x[i] = make_float2(std::sin(0.1f * i) + (i % 7 == 0), std::cos(0.03f * i));
    float2 *d;
    CUDA_OK(cudaMalloc(&d, x.size() * sizeof(float2)));
    CUDA_OK(cudaMemcpy(d, x.data(), x.size() * sizeof(float2), cudaMemcpyHostToDevice));
    fftRows<256, false><<<batch, 64>>>(d);
    std::vector<float2> y(x.size());
    CUDA_OK(cudaMemcpy(y.data(), d, y.size() * sizeof(float2), cudaMemcpyDeviceToHost));
    for (int b = 0; b < batch; b += 5) {
      auto ref = hostDft(x, b * n, n);
      for (int k = 0; k < n; ++k)
        if (std::abs(ref[k] - std::complex<double>(y[b * n + k].x, y[b * n + k].y)) > 1e-3 * n) ++failures;
    }
    fftRows<256, true><<<batch, 64>>>(d);
    CUDA_OK(cudaMemcpy(y.data(), d, y.size() * sizeof(float2), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < x.size(); ++i)
      if (std::fabs(y[i].x - x[i].x) > 1e-4f || std::fabs(y[i].y - x[i].y) > 1e-4f) ++failures;
    CUDA_OK(cudaFree(d));
  }
  // 2-D, 64 x 64, round trip.
  {
    const int n = 64;
    std::vector<float2> img(n * n);
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x) img[y * n + x] = make_float2(((x / 8 + y / 8) & 1) ? 1.f : 0.f, 0.f);
    float2 *d, *t;
    CUDA_OK(cudaMalloc(&d, img.size() * sizeof(float2)));
    CUDA_OK(cudaMalloc(&t, img.size() * sizeof(float2)));
    CUDA_OK(cudaMemcpy(d, img.data(), img.size() * sizeof(float2), cudaMemcpyHostToDevice));
    fft2d<64, false>(d, t);
    float2 dc;
    CUDA_OK(cudaMemcpy(&dc, d, sizeof(float2), cudaMemcpyDeviceToHost));
    if (std::fabs(dc.x - n * n / 2) > 1e-2f) ++failures;  // half the cells are 1
    fft2d<64, true>(d, t);
    std::vector<float2> back(img.size());
    CUDA_OK(cudaMemcpy(back.data(), d, back.size() * sizeof(float2), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < img.size(); ++i)
      if (std::fabs(back[i].x - img[i].x) > 1e-4f || std::fabs(back[i].y) > 1e-4f) ++failures;
    CUDA_OK(cudaFree(d));
    CUDA_OK(cudaFree(t));
  }
  // A prime size by the direct kernel.
  {
    const int n = 97;
    std::vector<float2> x(n);
    for (int i = 0; i < n; ++i) x[i] = make_float2(1.0f / (1 + i), 0.5f);
    float2 *din, *dout;
    CUDA_OK(cudaMalloc(&din, n * sizeof(float2)));
    CUDA_OK(cudaMalloc(&dout, n * sizeof(float2)));
    CUDA_OK(cudaMemcpy(din, x.data(), n * sizeof(float2), cudaMemcpyHostToDevice));
    dftSmall<<<1, 128>>>(din, dout, n);
    std::vector<float2> y(n);
    CUDA_OK(cudaMemcpy(y.data(), dout, n * sizeof(float2), cudaMemcpyDeviceToHost));
    auto ref = hostDft(x, 0, n);
    for (int k = 0; k < n; ++k)
      if (std::abs(ref[k] - std::complex<double>(y[k].x, y[k].y)) > 1e-3) ++failures;
    CUDA_OK(cudaFree(din));
    CUDA_OK(cudaFree(dout));
  }
  printf("fft: %s (%d failures)\n", failures ? "FAILED" : "PASSED", failures);
  return failures ? EXIT_FAILURE : EXIT_SUCCESS;
}
