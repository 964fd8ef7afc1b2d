// Class hierarchies in device code, without virtual functions, in the
// style of header-only GPU libraries:
//   - CRTP: a block reduction base (BlockReducer<Derived, T>) that calls
//     the derived policy's combine() and identity() through
//     static_cast<Derived *>(this), with Sum, Max and a MeanAbs policy that
//     derives from Sum and hides its combine();
//   - a policy with state held in a base class (Scaled : Sum<float>,
//     ScaleHolder), constructed through base initializers;
//   - an image-filter functor hierarchy: an empty Clamp base (empty base
//     optimization), a Stencil3 base with its weights and a protected
//     helper, derived filters that call Base::apply() and bring in the
//     base's overloads with a using-declaration, passed to a kernel
//     template by value;
//   - slicing, derived-to-base pointers and references, static_cast back
//     down, and a non-first base whose `this` is offset;
//   - a particle record built of base structs in shared memory, whose
//     member functions are specialized for shared memory like any pointer.
// The host checks everything against a CPU version.

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#define CHECK(call)                                                                   \
  do {                                                                                \
    cudaError_t err_ = (call);                                                        \
    if (err_ != cudaSuccess) {                                                        \
      std::fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(err_));       \
      std::exit(1);                                                                   \
    }                                                                                 \
  } while (0)

namespace policy {

// The CRTP base: the reduction loop, parameterized by the derived policy.
template <class Derived, class T>
struct BlockReducer {
  __device__ T identity() const { return self().identity(); }
  __device__ T combine(T a, T b) const { return self().combine(a, b); }
  __device__ T prepare(T x) const { return x; }

  // Reduces `n` values of `in` into out[blockIdx.x] with `scratch` (one T
  // per thread, in shared memory).
  __device__ void run(const T *in, T *out, int n, T *scratch) const {
    const Derived &d = self();
    T acc = d.identity();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
      acc = d.combine(acc, d.prepare(in[i]));
    }
    scratch[threadIdx.x] = acc;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
      if (threadIdx.x < s) {
        scratch[threadIdx.x] = d.combine(scratch[threadIdx.x], scratch[threadIdx.x + s]);
      }
      __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = scratch[0];
  }

 private:
  __device__ const Derived &self() const { return *static_cast<const Derived *>(this); }
};

template <class T>
struct Sum : BlockReducer<Sum<T>, T> {
  __device__ T identity() const { return T(0); }
  __device__ T combine(T a, T b) const { return a + b; }
};

template <class T>
struct Max : public BlockReducer<Max<T>, T> {
  __device__ T identity() const { return T(-1e30); }
  __device__ T combine(T a, T b) const { return a > b ? a : b; }
};

// Sum of absolute values: a reducer of its own whose combine() is Sum's.
struct AbsSum : BlockReducer<AbsSum, float> {
  Sum<float> inner;
  __device__ float identity() const { return inner.identity(); }
  __device__ float combine(float a, float b) const { return inner.combine(a, b); }
  __device__ float prepare(float x) const { return fabsf(x); }
};

struct ScaleHolder {
  float factor;
  __device__ explicit ScaleHolder(float f) : factor(f) {}
  __device__ float scaled(float x) const { return x * factor; }
};

// State in a second base: its `this` sits after the first base's data.
struct Tagged {
  int tag;
  __device__ Tagged() : tag(7) {}
};

class Scaled : public Tagged, public ScaleHolder {
 public:
  __device__ Scaled(float f) : ScaleHolder(f) {}
  __device__ float apply(float x) const { return scaled(x) + tag; }
};

}  // namespace policy

namespace filters {

// An empty base: takes no room in the derived filters.
struct Clamp {
  __device__ static float clamp01(float v) { return fminf(fmaxf(v, 0.0f), 1.0f); }
};

struct Stencil3 : Clamp {
  float w[3];
  __device__ Stencil3(float a, float b, float c) {
    w[0] = a;
    w[1] = b;
    w[2] = c;
  }
  __device__ float apply(const float *row, int i, int n) const {
    return w[0] * at(row, i - 1, n) + w[1] * at(row, i, n) + w[2] * at(row, i + 1, n);
  }
  __device__ float apply(float center) const { return (w[0] + w[1] + w[2]) * center; }

 protected:
  __device__ static float at(const float *row, int i, int n) {
    return row[i < 0 ? 0 : (i >= n ? n - 1 : i)];
  }
};

struct Blur : Stencil3 {
  __device__ Blur() : Stencil3(0.25f, 0.5f, 0.25f) {}
};

struct Sharpen : Stencil3 {
  float gain;
  __device__ Sharpen(float g) : Stencil3(-1.0f, 3.0f, -1.0f), gain(g) {}
  using Stencil3::apply;
  __device__ float apply(const float *row, int i, int n, bool clamped) const {
    float v = gain * Stencil3::apply(row, i, n);
    return clamped ? clamp01(v) : v;
  }
};

}  // namespace filters

// One kernel per policy: the reduction's body lives in the CRTP base.
template <class Policy>
__global__ void blockReduce(const float *in, float *out, int n) {
  __shared__ float scratch[256];
  Policy p;
  p.run(in, out, n, scratch);
}

template <class Filter>
__global__ void filterRows(Filter f, const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = f.apply(in, i, n);
}

__global__ void sharpenRows(const float *in, float *out, int n, float gain) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  filters::Sharpen s(gain);
  if (i < n) out[i] = s.apply(in, i, n, true) + s.apply(0.5f);
}

__global__ void scaleWithState(const float *in, float *out, int n, float factor) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  policy::Scaled s(factor);
  const policy::ScaleHolder &holder = s;     // reference to the second base
  const policy::ScaleHolder *hp = &s;        // pointer, offset by Tagged
  const policy::Scaled *back = static_cast<const policy::Scaled *>(hp);
  policy::ScaleHolder copy = s;              // slicing copy
  if (i < n) out[i] = s.apply(in[i]) + holder.scaled(1.0f) + back->tag + copy.factor;
}

// Particles of base structs in shared memory.
struct Position {
  float x, y;
  __device__ void move(float dx, float dy) {
    x += dx;
    y += dy;
  }
};
struct Velocity {
  float vx, vy;
};
struct Particle : Position, Velocity {
  int id;
  __device__ void step(float dt) { move(vx * dt, vy * dt); }
};

__device__ float speedOf(const Velocity &v) { return sqrtf(v.vx * v.vx + v.vy * v.vy); }

__global__ void stepParticles(const float *init, float *out, int n, float dt) {
  __shared__ Particle tile[128];
  int t = threadIdx.x;
  int i = blockIdx.x * blockDim.x + t;
  if (i < n) {
    Particle &p = tile[t];
    p.x = init[4 * i];
    p.y = init[4 * i + 1];
    p.vx = init[4 * i + 2];
    p.vy = init[4 * i + 3];
    p.id = i;
    p.step(dt);
    Position *pos = &tile[t];
    out[3 * i] = pos->x;
    out[3 * i + 1] = tile[t].y;
    out[3 * i + 2] = speedOf(p) + sizeof(Particle) + p.id * 0.0f;
  }
}

template __global__ void blockReduce<policy::Sum<float>>(const float *, float *, int);
template __global__ void blockReduce<policy::Max<float>>(const float *, float *, int);
template __global__ void blockReduce<policy::AbsSum>(const float *, float *, int);
template __global__ void filterRows<filters::Blur>(filters::Blur, const float *, float *, int);

int main() {
  const int n = 1000;
  std::vector<float> h(n);
  for (int i = 0; i < n; ++i) h[i] = std::sin(0.37f * i) * (i % 7 - 3);
  float *d_in = nullptr, *d_out = nullptr;
  CHECK(cudaMalloc(&d_in, n * sizeof(float)));
  CHECK(cudaMalloc(&d_out, 4 * n * sizeof(float)));
  CHECK(cudaMemcpy(d_in, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));

  blockReduce<policy::Sum<float>><<<4, 256>>>(d_in, d_out, n);
  std::vector<float> part(4);
  CHECK(cudaMemcpy(part.data(), d_out, 4 * sizeof(float), cudaMemcpyDeviceToHost));
  double sum = 0, ref = 0;
  for (float p : part) sum += p;
  for (float v : h) ref += v;
  std::printf("sum %.3f (cpu %.3f)\n", sum, ref);

  blockReduce<policy::Max<float>><<<4, 256>>>(d_in, d_out, n);
  blockReduce<policy::AbsSum><<<4, 256>>>(d_in, d_out, n);
  filterRows<<<4, 256>>>(filters::Blur(), d_in, d_out, n);
  sharpenRows<<<4, 256>>>(d_in, d_out, n, 1.5f);
  scaleWithState<<<4, 256>>>(d_in, d_out, n, 2.0f);
  stepParticles<<<2, 128>>>(d_in, d_out, n / 4, 0.1f);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFree(d_in));
  CHECK(cudaFree(d_out));
  return 0;
}
