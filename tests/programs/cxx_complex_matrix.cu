// Small value types with operators in device code, the way numerical CUDA
// programs grow them:
//   - Complex: a __host__ __device__ class with a defaulted default
//     constructor (so __shared__ arrays of it need no initialization) and
//     one with a default argument, arithmetic operators (members, a friend
//     for scalar * complex, compound assignment), conj/norm, and a static
//     factory of unit complex numbers; used by a direct DFT and by an
//     in-shared-memory radix-2 FFT with __brev bit reversal and sincospif
//     twiddles,
//   - the same DFT on <cuComplex.h>'s cuFloatComplex (cuCmulf, cuCaddf),
//   - Mat<T, R, C>: a fixed-size matrix class template with operator()(r, c),
//     identity(), a free operator* template deducing the shapes, and a
//     transpose; used to apply per-point 3x3 transforms,
//   - namespaces, using-declarations, constexpr constants and
//     __forceinline__ helpers.
//
// nvcc-flags: -I tests/programs/common

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuComplex.h>
#include <cuda_runtime.h>

#include "helper_cuda.h"

namespace num {

constexpr float kPi = 3.14159265358979f;

class Complex {
public:
  Complex() = default; // trivial, so __shared__ arrays of Complex need no initialization
  __host__ __device__ Complex(float re, float im = 0.0f) : re_(re), im_(im) {}

  __host__ __device__ float real() const { return re_; }
  __host__ __device__ float imag() const { return im_; }
  __host__ __device__ float norm() const { return re_ * re_ + im_ * im_; }
  __host__ __device__ Complex conj() const { return Complex(re_, -im_); }

  __host__ __device__ Complex operator+(const Complex &o) const { return Complex(re_ + o.re_, im_ + o.im_); }
  __host__ __device__ Complex operator-(const Complex &o) const { return Complex(re_ - o.re_, im_ - o.im_); }
  __host__ __device__ Complex operator*(const Complex &o) const {
    return Complex(re_ * o.re_ - im_ * o.im_, re_ * o.im_ + im_ * o.re_);
  }
  __host__ __device__ Complex operator-() const { return Complex(-re_, -im_); }
  __host__ __device__ Complex &operator+=(const Complex &o) {
    re_ += o.re_;
    im_ += o.im_;
    return *this;
  }
  __host__ __device__ Complex &operator*=(float s) {
    re_ *= s;
    im_ *= s;
    return *this;
  }
  __host__ __device__ bool operator==(const Complex &o) const { return re_ == o.re_ && im_ == o.im_; }

  friend __host__ __device__ Complex operator*(float s, const Complex &z) {
    return Complex(s * z.re_, s * z.im_);
  }

  // e^(i * pi * turns): the angle given in half turns, as sincospif takes it
  __device__ static Complex unitHalfTurns(float turns) {
    float s, c;
    sincospif(turns, &s, &c);
    return Complex(c, s);
  }

private:
  float re_;
  float im_;
};

template <typename T, int R, int C>
struct Mat {
  static constexpr int rows = R;
  static constexpr int cols = C;
  T m[R * C];

  __host__ __device__ T &operator()(int r, int c) { return m[r * C + c]; }
  __host__ __device__ const T &operator()(int r, int c) const { return m[r * C + c]; }

  __host__ __device__ static Mat identity() {
    Mat out;
    for (int r = 0; r < R; ++r)
      for (int c = 0; c < C; ++c) out(r, c) = (r == c) ? T(1) : T(0);
    return out;
  }

  __host__ __device__ Mat<T, C, R> transposed() const {
    Mat<T, C, R> out;
    for (int r = 0; r < R; ++r)
      for (int c = 0; c < C; ++c) out(c, r) = (*this)(r, c);
    return out;
  }
};

template <typename T, int R, int K, int C>
__host__ __device__ Mat<T, R, C> operator*(const Mat<T, R, K> &a, const Mat<T, K, C> &b) {
  Mat<T, R, C> out;
#pragma unroll
  for (int r = 0; r < R; ++r) {
#pragma unroll
    for (int c = 0; c < C; ++c) {
      T acc = T(0);
#pragma unroll
      for (int k = 0; k < K; ++k) acc += a(r, k) * b(k, c);
      out(r, c) = acc;
    }
  }
  return out;
}

using Mat3 = Mat<float, 3, 3>;
using Col3 = Mat<float, 3, 1>;

} // namespace num

using num::Complex;

// ------------------------------------------------------------------ DFT

// X[k] = sum_n x[n] e^(-2 pi i k n / N), one thread per output.
__global__ void dftDirect(const Complex *x, Complex *X, int n) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  Complex acc(0.0f);
  for (int t = 0; t < n; ++t) {
    // reduce k * t modulo n first so the angle stays small
    int phase = (k * t) % n;
    acc += x[t] * Complex::unitHalfTurns(-2.0f * phase / n);
  }
  X[k] = acc;
}

__global__ void dftCuComplex(const cuFloatComplex *x, cuFloatComplex *X, int n) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  cuFloatComplex acc = make_cuFloatComplex(0.0f, 0.0f);
  for (int t = 0; t < n; ++t) {
    float s, c;
    sincospif(-2.0f * ((k * t) % n) / n, &s, &c);
    acc = cuCaddf(acc, cuCmulf(x[t], make_cuFloatComplex(c, s)));
  }
  X[k] = acc;
}

__device__ __forceinline__ unsigned reverseBits(unsigned i, int logN) {
  return __brev(i) >> (32 - logN);
}

// One block transforms one signal of length N = 2^logN (N <= 2 * blockDim.x)
// in shared memory: bit-reversed load, then logN butterfly stages.
template <int LOG_N>
__global__ void fftRadix2(const Complex *in, Complex *out) {
  constexpr int N = 1 << LOG_N;
  __shared__ Complex buf[N];
  const Complex *src = in + blockIdx.x * N;
  for (int i = threadIdx.x; i < N; i += blockDim.x) {
    buf[reverseBits(i, LOG_N)] = src[i];
  }
  __syncthreads();

  for (int half = 1; half < N; half *= 2) {
    for (int j = threadIdx.x; j < N / 2; j += blockDim.x) {
      int group = j / half;
      int pos = j % half;
      int a = group * 2 * half + pos;
      int b = a + half;
      Complex w = Complex::unitHalfTurns(-(float)pos / half);
      Complex t = w * buf[b];
      Complex u = buf[a];
      buf[a] = u + t;
      buf[b] = u - t;
    }
    __syncthreads();
  }

  for (int i = threadIdx.x; i < N; i += blockDim.x) {
    out[blockIdx.x * N + i] = buf[i];
  }
}

// Power spectrum, scaled: |X|^2 / N.
__global__ void powerSpectrum(const Complex *X, float *power, int n) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n) {
    Complex z = (1.0f / n) * X[k];
    power[k] = z.norm() * n;
  }
}

// ------------------------------------------------------------ transforms

// Applies R * p + t to each point; R is rebuilt per block from three Euler
// angles as Rz * Ry * Rx.
__global__ void transformPoints(const float3 *points, float3 *out, int n, float ax, float ay,
                                float az, float3 t) {
  using num::Mat3;
  __shared__ Mat3 rotation;
  if (threadIdx.x == 0) {
    Mat3 rx = Mat3::identity(), ry = Mat3::identity(), rz = Mat3::identity();
    float s, c;
    sincosf(ax, &s, &c);
    rx(1, 1) = c; rx(1, 2) = -s; rx(2, 1) = s; rx(2, 2) = c;
    sincosf(ay, &s, &c);
    ry(0, 0) = c; ry(0, 2) = s; ry(2, 0) = -s; ry(2, 2) = c;
    sincosf(az, &s, &c);
    rz(0, 0) = c; rz(0, 1) = -s; rz(1, 0) = s; rz(1, 1) = c;
    rotation = rz * ry * rx;
  }
  __syncthreads();

  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  num::Col3 p;
  p(0, 0) = points[i].x;
  p(1, 0) = points[i].y;
  p(2, 0) = points[i].z;
  num::Col3 q = rotation * p;
  out[i] = make_float3(q(0, 0) + t.x, q(1, 0) + t.y, q(2, 0) + t.z);
}

// Checks R^T R == I for the rotation each thread builds from its angles.
__global__ void orthogonalityError(const float *angles, float *error, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s, c;
  sincosf(angles[i], &s, &c);
  num::Mat3 r = num::Mat3::identity();
  r(0, 0) = c; r(0, 1) = -s; r(1, 0) = s; r(1, 1) = c;
  num::Mat3 prod = r.transposed() * r;
  float worst = 0.0f;
  for (int a = 0; a < num::Mat3::rows; ++a)
    for (int b = 0; b < num::Mat3::cols; ++b)
      worst = fmaxf(worst, fabsf(prod(a, b) - (a == b ? 1.0f : 0.0f)));
  error[i] = worst;
}

// ------------------------------------------------------------------ host

int main() {
  findCudaDevice();
  constexpr int kLogN = 10;
  constexpr int N = 1 << kLogN;
  constexpr int kSignals = 8;

  std::vector<Complex> signal(N * kSignals);
  for (int s = 0; s < kSignals; ++s)
    for (int i = 0; i < N; ++i)
      signal[s * N + i] = Complex(cosf(2.0f * num::kPi * (s + 3) * i / N), 0.25f * sinf(0.1f * i));

  Complex *dSignal, *dDft, *dFft;
  cuFloatComplex *dCu, *dCuOut;
  float *dPower;
  checkCudaErrors(cudaMalloc(&dSignal, N * kSignals * sizeof(Complex)));
  checkCudaErrors(cudaMalloc(&dDft, N * sizeof(Complex)));
  checkCudaErrors(cudaMalloc(&dFft, N * kSignals * sizeof(Complex)));
  checkCudaErrors(cudaMalloc(&dCu, N * sizeof(cuFloatComplex)));
  checkCudaErrors(cudaMalloc(&dCuOut, N * sizeof(cuFloatComplex)));
  checkCudaErrors(cudaMalloc(&dPower, N * sizeof(float)));
  checkCudaErrors(cudaMemcpy(dSignal, signal.data(), N * kSignals * sizeof(Complex), cudaMemcpyHostToDevice));
  static_assert(sizeof(Complex) == sizeof(cuFloatComplex), "same layout");
  checkCudaErrors(cudaMemcpy(dCu, signal.data(), N * sizeof(cuFloatComplex), cudaMemcpyHostToDevice));

  dftDirect<<<iDivUp(N, 128), 128>>>(dSignal, dDft, N);
  dftCuComplex<<<iDivUp(N, 128), 128>>>(dCu, dCuOut, N);
  fftRadix2<kLogN><<<kSignals, 256>>>(dSignal, dFft);
  powerSpectrum<<<iDivUp(N, 128), 128>>>(dFft, dPower, N);
  getLastCudaError("spectral kernels");

  std::vector<Complex> dft(N), fft(N);
  checkCudaErrors(cudaMemcpy(dft.data(), dDft, N * sizeof(Complex), cudaMemcpyDeviceToHost));
  checkCudaErrors(cudaMemcpy(fft.data(), dFft, N * sizeof(Complex), cudaMemcpyDeviceToHost));
  bool ok = true;
  for (int k = 0; k < N; ++k) {
    Complex d = dft[k] - fft[k];
    ok = ok && d.norm() < 1e-2f * (1.0f + dft[k].norm());
  }

  const int points = 4096;
  std::vector<float3> pts(points);
  for (int i = 0; i < points; ++i) pts[i] = make_float3(i % 17 - 8.0f, i % 5 - 2.0f, i % 11 * 0.5f);
  float3 *dPts, *dOut;
  float *dAngles, *dErr;
  checkCudaErrors(cudaMalloc(&dPts, points * sizeof(float3)));
  checkCudaErrors(cudaMalloc(&dOut, points * sizeof(float3)));
  checkCudaErrors(cudaMalloc(&dAngles, points * sizeof(float)));
  checkCudaErrors(cudaMalloc(&dErr, points * sizeof(float)));
  checkCudaErrors(cudaMemcpy(dPts, pts.data(), points * sizeof(float3), cudaMemcpyHostToDevice));
  std::vector<float> angles(points);
  for (int i = 0; i < points; ++i) angles[i] = 0.01f * i;
  checkCudaErrors(cudaMemcpy(dAngles, angles.data(), points * sizeof(float), cudaMemcpyHostToDevice));
  transformPoints<<<iDivUp(points, 256), 256>>>(dPts, dOut, points, 0.3f, -0.2f, 1.1f,
                                                 make_float3(1.0f, 2.0f, 3.0f));
  orthogonalityError<<<iDivUp(points, 256), 256>>>(dAngles, dErr, points);
  getLastCudaError("transform kernels");

  std::vector<float3> moved(points);
  std::vector<float> err(points);
  checkCudaErrors(cudaMemcpy(moved.data(), dOut, points * sizeof(float3), cudaMemcpyDeviceToHost));
  checkCudaErrors(cudaMemcpy(err.data(), dErr, points * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < points; ++i) {
    // a rotation keeps lengths
    float3 p = pts[i], q = moved[i];
    float before = p.x * p.x + p.y * p.y + p.z * p.z;
    float dx = q.x - 1.0f, dy = q.y - 2.0f, dz = q.z - 3.0f;
    float after = dx * dx + dy * dy + dz * dz;
    ok = ok && fabsf(before - after) <= 1e-3f * (1.0f + before);
    ok = ok && err[i] < 1e-5f;
  }

  checkCudaErrors(cudaFree(dSignal));
  checkCudaErrors(cudaFree(dDft));
  checkCudaErrors(cudaFree(dFft));
  checkCudaErrors(cudaFree(dCu));
  checkCudaErrors(cudaFree(dCuOut));
  checkCudaErrors(cudaFree(dPower));
  checkCudaErrors(cudaFree(dPts));
  checkCudaErrors(cudaFree(dOut));
  checkCudaErrors(cudaFree(dAngles));
  checkCudaErrors(cudaFree(dErr));
  return reportResult("cxx_complex_matrix", ok);
}
