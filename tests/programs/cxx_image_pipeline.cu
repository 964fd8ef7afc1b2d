// A small image-processing library and the program that drives it, in the
// style of header-only imaging toolkits: a pitched `Image2D<Pixel>` view with
// __host__ __device__ accessors and `operator()(x, y)`, border handling as
// policy classes passed as template parameters, uchar4/float4 pixel
// arithmetic through operators in a namespace, a separable Gaussian blur
// (rows to float4, columns back to uchar4) whose taps live in constant
// memory, and a 3x3 median filter built on a sorting network. The host
// keeps the Gaussian weights in a std::array (host code only), runs the
// same filters on the CPU through the same view class and compares.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#define CHECK_CUDA(call)                                                               \
  do {                                                                                 \
    cudaError_t status_ = (call);                                                      \
    if (status_ != cudaSuccess) {                                                      \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,               \
                   cudaGetErrorString(status_));                                       \
      std::exit(EXIT_FAILURE);                                                         \
    }                                                                                  \
  } while (0)

namespace img {

// ---- pixel arithmetic -------------------------------------------------------

namespace px {

__host__ __device__ inline float4 operator+(float4 a, float4 b) {
  return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
}

__host__ __device__ inline float4 operator*(float s, float4 a) {
  return make_float4(s * a.x, s * a.y, s * a.z, s * a.w);
}

__host__ __device__ inline float4 &operator+=(float4 &a, float4 b) {
  a = a + b;
  return a;
}

__host__ __device__ inline bool operator==(uchar4 a, uchar4 b) {
  return a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w;
}

__host__ __device__ inline float4 widen(uchar4 p) {
  return make_float4(p.x, p.y, p.z, p.w);
}

__host__ __device__ inline unsigned char toByte(float v) {
  v = v < 0.0f ? 0.0f : (v > 255.0f ? 255.0f : v);
  return static_cast<unsigned char>(v + 0.5f);
}

__host__ __device__ inline uchar4 narrow(float4 p) {
  return make_uchar4(toByte(p.x), toByte(p.y), toByte(p.z), toByte(p.w));
}

}  // namespace px

// ---- the view ---------------------------------------------------------------

template <typename Pixel>
class Image2D {
 public:
  using value_type = Pixel;

  __host__ __device__ Image2D(Pixel *data, int width, int height, size_t pitchBytes)
      : data_(data), width_(width), height_(height), pitch_(pitchBytes) {}

  __host__ __device__ int width() const { return width_; }
  __host__ __device__ int height() const { return height_; }
  __host__ __device__ size_t pitch() const { return pitch_; }

  __host__ __device__ bool contains(int x, int y) const {
    return x >= 0 && y >= 0 && x < width_ && y < height_;
  }

  __host__ __device__ Pixel &operator()(int x, int y) { return row(y)[x]; }
  __host__ __device__ const Pixel &operator()(int x, int y) const { return row(y)[x]; }

 private:
  __host__ __device__ Pixel *row(int y) const {
    return reinterpret_cast<Pixel *>(reinterpret_cast<char *>(data_) + y * pitch_);
  }

  Pixel *data_;
  int width_;
  int height_;
  size_t pitch_;
};

// ---- border policies ----------------------------------------------------------

struct ClampToEdge {
  static constexpr const char *name = "clamp";
  __host__ __device__ static int index(int i, int n) { return i < 0 ? 0 : (i >= n ? n - 1 : i); }
};

struct MirrorEdge {
  static constexpr const char *name = "mirror";
  __host__ __device__ static int index(int i, int n) {
    if (i < 0) i = -i - 1;
    if (i >= n) i = 2 * n - i - 1;
    return i;
  }
};

struct WrapEdge {
  static constexpr const char *name = "wrap";
  __host__ __device__ static int index(int i, int n) { return ((i % n) + n) % n; }
};

template <typename Border, typename Pixel>
__host__ __device__ inline Pixel fetch(const Image2D<Pixel> &image, int x, int y) {
  return image(Border::index(x, image.width()), Border::index(y, image.height()));
}

// ---- filters ------------------------------------------------------------------

template <int RADIUS>
struct Gaussian {
  static constexpr int radius = RADIUS;
  static constexpr int taps = 2 * RADIUS + 1;
};

constexpr int kMaxTaps = 17;
__constant__ float c_taps[kMaxTaps];

template <typename Border, int RADIUS>
__global__ void gaussianRows(Image2D<float4> dst, const Image2D<uchar4> src) {
  using G = Gaussian<RADIUS>;
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (!dst.contains(x, y)) return;
  using namespace px;
  float4 sum = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll
  for (int k = 0; k < G::taps; ++k) sum += c_taps[k] * widen(fetch<Border>(src, x + k - G::radius, y));
  dst(x, y) = sum;
}

template <typename Border, int RADIUS>
__global__ void gaussianCols(Image2D<uchar4> dst, const Image2D<float4> src) {
  using G = Gaussian<RADIUS>;
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (!dst.contains(x, y)) return;
  using namespace px;
  float4 sum = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll
  for (int k = 0; k < G::taps; ++k) sum += c_taps[k] * fetch<Border>(src, x, y + k - G::radius);
  dst(x, y) = narrow(sum);
}

// The median of nine by a sorting network of compare-exchanges (19 of them).
__host__ __device__ inline void order(unsigned char &a, unsigned char &b) {
  const unsigned char lo = a < b ? a : b;
  b = a < b ? b : a;
  a = lo;
}

__host__ __device__ inline unsigned char median9(unsigned char v[9]) {
  order(v[1], v[2]); order(v[4], v[5]); order(v[7], v[8]);
  order(v[0], v[1]); order(v[3], v[4]); order(v[6], v[7]);
  order(v[1], v[2]); order(v[4], v[5]); order(v[7], v[8]);
  order(v[0], v[3]); order(v[5], v[8]); order(v[4], v[7]);
  order(v[3], v[6]); order(v[1], v[4]); order(v[2], v[5]);
  order(v[4], v[7]); order(v[4], v[2]); order(v[6], v[4]);
  order(v[4], v[2]);
  return v[4];
}

template <typename Border>
__host__ __device__ inline uchar4 medianAt(const Image2D<uchar4> &src, int x, int y) {
  unsigned char r[9], g[9], b[9], a[9];
  int n = 0;
#pragma unroll
  for (int dy = -1; dy <= 1; ++dy) {
#pragma unroll
    for (int dx = -1; dx <= 1; ++dx, ++n) {
      const uchar4 p = fetch<Border>(src, x + dx, y + dy);
      r[n] = p.x;
      g[n] = p.y;
      b[n] = p.z;
      a[n] = p.w;
    }
  }
  return make_uchar4(median9(r), median9(g), median9(b), median9(a));
}

// Tightly packed images (pitch = width * 4): plain pointers as arguments.
template <typename Border>
__global__ void median3x3(uchar4 *dst, const uchar4 *src, int width, int height) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  const Image2D<uchar4> in(const_cast<uchar4 *>(src), width, height, width * sizeof(uchar4));
  Image2D<uchar4> out(dst, width, height, width * sizeof(uchar4));
  if (out.contains(x, y)) out(x, y) = medianAt<Border>(in, x, y);
}

}  // namespace img

// ---- host side ------------------------------------------------------------------

template <int RADIUS>
static std::array<float, 2 * RADIUS + 1> gaussianTaps(float sigma) {
  std::array<float, 2 * RADIUS + 1> taps{};
  float total = 0.0f;
  for (int i = -RADIUS; i <= RADIUS; ++i) {
    taps[i + RADIUS] = std::exp(-0.5f * i * i / (sigma * sigma));
    total += taps[i + RADIUS];
  }
  for (float &t : taps) t /= total;
  return taps;
}

template <typename Border, int RADIUS>
static void blurOnHost(img::Image2D<uchar4> dst, const img::Image2D<uchar4> &src,
                       const std::array<float, 2 * RADIUS + 1> &taps) {
  using namespace img::px;
  std::vector<float4> tmp(static_cast<size_t>(src.width()) * src.height());
  img::Image2D<float4> mid(tmp.data(), src.width(), src.height(), src.width() * sizeof(float4));
  for (int y = 0; y < src.height(); ++y)
    for (int x = 0; x < src.width(); ++x) {
      float4 s = make_float4(0.f, 0.f, 0.f, 0.f);
      for (int k = 0; k <= 2 * RADIUS; ++k)
        s += taps[k] * widen(img::fetch<Border>(src, x + k - RADIUS, y));
      mid(x, y) = s;
    }
  for (int y = 0; y < src.height(); ++y)
    for (int x = 0; x < src.width(); ++x) {
      float4 s = make_float4(0.f, 0.f, 0.f, 0.f);
      for (int k = 0; k <= 2 * RADIUS; ++k) s += taps[k] * img::fetch<Border>(mid, x, y + k - RADIUS);
      dst(x, y) = narrow(s);
    }
}

static int countMismatches(const std::vector<uchar4> &a, const std::vector<uchar4> &b, int tolerance) {
  int bad = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const int d = std::max({std::abs(a[i].x - b[i].x), std::abs(a[i].y - b[i].y),
                            std::abs(a[i].z - b[i].z), std::abs(a[i].w - b[i].w)});
    if (d > tolerance) ++bad;
  }
  return bad;
}

template <typename Border, int RADIUS>
static int runGaussian(const std::vector<uchar4> &input, int width, int height) {
  const auto taps = gaussianTaps<RADIUS>(RADIUS / 2.0f);
  static_assert(2 * RADIUS + 1 <= img::kMaxTaps, "too many taps for c_taps");
  CHECK_CUDA(cudaMemcpyToSymbol(img::c_taps, taps.data(), sizeof(float) * taps.size()));

  size_t pitchIn, pitchMid, pitchOut;
  uchar4 *dIn, *dOut;
  float4 *dMid;
  CHECK_CUDA(cudaMallocPitch(&dIn, &pitchIn, width * sizeof(uchar4), height));
  CHECK_CUDA(cudaMallocPitch(&dMid, &pitchMid, width * sizeof(float4), height));
  CHECK_CUDA(cudaMallocPitch(&dOut, &pitchOut, width * sizeof(uchar4), height));
  CHECK_CUDA(cudaMemcpy2D(dIn, pitchIn, input.data(), width * sizeof(uchar4), width * sizeof(uchar4),
                          height, cudaMemcpyHostToDevice));

  const dim3 block(16, 16);
  const dim3 grid((width + block.x - 1) / block.x, (height + block.y - 1) / block.y);
  img::Image2D<uchar4> in(dIn, width, height, pitchIn);
  img::Image2D<float4> mid(dMid, width, height, pitchMid);
  img::Image2D<uchar4> out(dOut, width, height, pitchOut);
  img::gaussianRows<Border, RADIUS><<<grid, block>>>(mid, in);
  CHECK_CUDA(cudaGetLastError());
  img::gaussianCols<Border, RADIUS><<<grid, block>>>(out, mid);
  CHECK_CUDA(cudaGetLastError());

  std::vector<uchar4> gpu(input.size()), cpu(input.size());
  CHECK_CUDA(cudaMemcpy2D(gpu.data(), width * sizeof(uchar4), dOut, pitchOut, width * sizeof(uchar4),
                          height, cudaMemcpyDeviceToHost));
  img::Image2D<uchar4> hostIn(const_cast<uchar4 *>(input.data()), width, height, width * sizeof(uchar4));
  blurOnHost<Border, RADIUS>(img::Image2D<uchar4>(cpu.data(), width, height, width * sizeof(uchar4)),
                             hostIn, taps);
  CHECK_CUDA(cudaFree(dIn));
  CHECK_CUDA(cudaFree(dMid));
  CHECK_CUDA(cudaFree(dOut));

  const int bad = countMismatches(gpu, cpu, 1);
  std::printf("gaussian r=%d %-6s: %d of %zu pixels differ\n", RADIUS, Border::name, bad, input.size());
  return bad;
}

template <typename Border>
static int runMedian(const std::vector<uchar4> &input, int width, int height) {
  const size_t bytes = input.size() * sizeof(uchar4);
  uchar4 *dIn, *dOut;
  CHECK_CUDA(cudaMalloc(&dIn, bytes));
  CHECK_CUDA(cudaMalloc(&dOut, bytes));
  CHECK_CUDA(cudaMemcpy(dIn, input.data(), bytes, cudaMemcpyHostToDevice));
  const dim3 block(32, 8);
  const dim3 grid((width + block.x - 1) / block.x, (height + block.y - 1) / block.y);
  img::median3x3<Border><<<grid, block>>>(dOut, dIn, width, height);
  CHECK_CUDA(cudaGetLastError());
  std::vector<uchar4> gpu(input.size()), cpu(input.size());
  CHECK_CUDA(cudaMemcpy(gpu.data(), dOut, bytes, cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaFree(dIn));
  CHECK_CUDA(cudaFree(dOut));

  const img::Image2D<uchar4> in(const_cast<uchar4 *>(input.data()), width, height, width * sizeof(uchar4));
  img::Image2D<uchar4> out(cpu.data(), width, height, width * sizeof(uchar4));
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) out(x, y) = img::medianAt<Border>(in, x, y);
  const int bad = countMismatches(gpu, cpu, 0);
  std::printf("median 3x3 %-6s: %d of %zu pixels differ\n", Border::name, bad, input.size());
  return bad;
}

int main() {
  const int width = 97, height = 61;
  std::vector<uchar4> input(static_cast<size_t>(width) * height);
  uint32_t state = 12345u;
  for (auto &p : input) {
    state = state * 1664525u + 1013904223u;
    p = make_uchar4(state >> 24, (state >> 16) & 0xff, (state >> 8) & 0xff, 255);
  }

  int failures = 0;
  failures += runGaussian<img::ClampToEdge, 2>(input, width, height);
  failures += runGaussian<img::MirrorEdge, 4>(input, width, height);
  failures += runGaussian<img::WrapEdge, 8>(input, width, height);
  failures += runMedian<img::ClampToEdge>(input, width, height);
  failures += runMedian<img::MirrorEdge>(input, width, height);
  CHECK_CUDA(cudaDeviceSynchronize());
  std::puts(failures == 0 ? "PASSED" : "FAILED");
  return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
